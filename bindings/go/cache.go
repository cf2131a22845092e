package wasp

import "sync"

// Cache holds a plugin's current snapshot version (doc/library.md,
// "Scheduler plugins"): readers Acquire the current version and Release
// it when done, writers Update it, and a version is closed as soon as it
// is neither current nor held by a reader.  Without it, old versions wait
// for their finalizers, and the garbage collector, which does not see
// their C memory, lets them pile up.
type Cache struct {
	mu  sync.Mutex // cur and every refs
	wmu sync.Mutex // one Update at a time
	cur *Version
}

// Version is one snapshot held by a Cache.
type Version struct {
	*Snapshot
	c    *Cache
	refs int // readers, plus one while current
}

// NewCache makes s the current version; the cache owns it from now on.
func NewCache(s *Snapshot) *Cache {
	c := &Cache{}
	c.cur = &Version{Snapshot: s, c: c, refs: 1}
	return c
}

// Acquire returns the current version; Release it when done with it.
func (c *Cache) Acquire() *Version {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur.refs++
	return c.cur
}

// Release lets go of a version got from Acquire.
func (v *Version) Release() { v.c.unref(v) }

func (c *Cache) unref(v *Version) {
	c.mu.Lock()
	v.refs--
	last := v.refs == 0
	c.mu.Unlock()
	if last {
		v.Snapshot.Close()
	}
}

// Update makes the next version from the current one (Apply, Assume,
// Forget) and swaps it in; on error nothing changes.  Readers keep the
// versions they hold.
func (c *Cache) Update(next func(*Snapshot) (*Snapshot, error)) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	v := c.Acquire()
	s, err := next(v.Snapshot)
	v.Release()
	if err != nil {
		return err
	}
	c.mu.Lock()
	old := c.cur
	c.cur = &Version{Snapshot: s, c: c, refs: 1}
	c.mu.Unlock()
	c.unref(old)
	return nil
}

// Close lets go of the current version (readers keep theirs until they
// Release them).
func (c *Cache) Close() {
	c.mu.Lock()
	old := c.cur
	c.mu.Unlock()
	if old != nil {
		c.unref(old)
	}
}
