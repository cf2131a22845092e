package main

// The two ways a plugin reaches wasp, behind one interface: the cgo
// binding in the scheduler's own process, or `wasp serve` through the
// pure-Go client.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	wasp "wasp.dev/wasp"
	"wasp.dev/wasp/client"
)

// Placed is what PreFilter learns from one place call.
type Placed struct {
	Nodes  map[string]string // pod name -> node (the gang's namespace)
	Reason string            // when the gang waits
	plan   interface{}       // the backend's plan, for Check and Assume
}

// Planner is what the example's plugin calls.
type Planner interface {
	// Apply replays informer events: objects added or updated, deleted.
	Apply(ctx context.Context, put []json.RawMessage, del []client.Ref) error
	Place(ctx context.Context, ns, gang string) (*Placed, error)
	// Check verifies the plan (0 violations) on the cache it came from.
	Check(ctx context.Context, p *Placed) (int, string, error)
	Assume(ctx context.Context, p *Placed) error
	Forget(ctx context.Context, ns, gang string) error
	Bound(ctx context.Context) (int, error)
	Close()
}

// ---------------------------------------------------------------- cgo

type cgoPlanner struct {
	mu       sync.Mutex
	cur      *wasp.Snapshot
	opts     *wasp.Options
	deadline time.Duration
}

func newCgoPlanner(opts *wasp.Options, deadline time.Duration) (*cgoPlanner, error) {
	s, err := wasp.FromText(nil, "empty")
	if err != nil {
		return nil, err
	}
	return &cgoPlanner{cur: s, opts: opts, deadline: deadline}, nil
}

// snapshot returns the current version; the cache swaps versions but
// never changes one.
func (c *cgoPlanner) snapshot() *wasp.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// swap installs the next version made from the current one.
func (c *cgoPlanner) swap(make func(*wasp.Snapshot) (*wasp.Snapshot, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	next, err := make(c.cur)
	if err != nil {
		return err
	}
	// the old version is freed by its finalizer once no call uses it
	c.cur = next
	return nil
}

func (c *cgoPlanner) Apply(ctx context.Context, put []json.RawMessage, del []client.Ref) error {
	d, err := wasp.NewDelta()
	if err != nil {
		return err
	}
	defer d.Close()
	for i, obj := range put {
		if err := d.Put(obj, fmt.Sprintf("event[%d]", i)); err != nil {
			return err
		}
	}
	for _, r := range del {
		if err := d.Delete(r.Kind, r.Namespace, r.Name); err != nil {
			return err
		}
	}
	return c.swap(func(s *wasp.Snapshot) (*wasp.Snapshot, error) { return s.Apply(d) })
}

type cgoPlan struct {
	p *wasp.Plan
	s *wasp.Snapshot
}

func (c *cgoPlanner) Place(ctx context.Context, ns, gang string) (*Placed, error) {
	s := c.snapshot()
	p, err := s.Place(ctx, wasp.Group{Kind: wasp.PodGroup, Namespace: ns, Name: gang}, c.opts, c.deadline)
	if err != nil {
		return nil, err
	}
	out := &Placed{Nodes: map[string]string{}, plan: cgoPlan{p, s}}
	for _, x := range p.Placements() {
		out.Nodes[x.Pod] = x.Node
	}
	for _, g := range p.Groups() {
		if !g.Admitted && g.Name == gang {
			out.Reason = g.Reason
		}
	}
	return out, nil
}

func (c *cgoPlanner) Check(ctx context.Context, p *Placed) (int, string, error) {
	cp := p.plan.(cgoPlan)
	return cp.s.Check(cp.p)
}

func (c *cgoPlanner) Assume(ctx context.Context, p *Placed) error {
	return c.swap(func(s *wasp.Snapshot) (*wasp.Snapshot, error) { return s.Assume(p.plan.(cgoPlan).p) })
}

func (c *cgoPlanner) Forget(ctx context.Context, ns, gang string) error {
	return c.swap(func(s *wasp.Snapshot) (*wasp.Snapshot, error) {
		return s.Forget(wasp.Group{Kind: wasp.PodGroup, Namespace: ns, Name: gang})
	})
}

func (c *cgoPlanner) Bound(ctx context.Context) (int, error) {
	return c.snapshot().Stats().PodsBound, nil
}

func (c *cgoPlanner) Close() { c.snapshot().Close() }

// ---------------------------------------------------------------- server

type serverPlanner struct {
	c        *client.Client
	opts     *client.Options
	deadline time.Duration
}

func newServerPlanner(ctx context.Context, sock string, opts *client.Options, deadline time.Duration) (*serverPlanner, error) {
	c, err := client.Dial(ctx, sock)
	if err != nil {
		return nil, err
	}
	return &serverPlanner{c: c, opts: opts, deadline: deadline}, nil
}

func (s *serverPlanner) Apply(ctx context.Context, put []json.RawMessage, del []client.Ref) error {
	_, err := s.c.Apply(ctx, &client.Delta{Put: put, Delete: del})
	return err
}

func (s *serverPlanner) Place(ctx context.Context, ns, gang string) (*Placed, error) {
	p, err := s.c.Place(ctx, client.Group{Namespace: ns, Name: gang}, s.opts, s.deadline)
	if err != nil {
		return nil, err
	}
	out := &Placed{Nodes: map[string]string{}, plan: p}
	for _, x := range p.Doc.Placements {
		out.Nodes[x.Pod] = x.Node
	}
	for _, w := range p.Doc.Waiting {
		if w.Name == gang {
			out.Reason = w.Reason
		}
	}
	return out, nil
}

func (s *serverPlanner) Check(ctx context.Context, p *Placed) (int, string, error) {
	r, err := s.c.Check(ctx, p.plan.(*client.Plan))
	return r.Violations, r.Report, err
}

func (s *serverPlanner) Assume(ctx context.Context, p *Placed) error {
	_, err := s.c.Assume(ctx, p.plan.(*client.Plan))
	return err
}

func (s *serverPlanner) Forget(ctx context.Context, ns, gang string) error {
	_, err := s.c.Forget(ctx, client.Group{Namespace: ns, Name: gang})
	return err
}

func (s *serverPlanner) Bound(ctx context.Context) (int, error) {
	st, err := s.c.Stats(ctx)
	return st.PodsBound, err
}

func (s *serverPlanner) Close() { s.c.Close() }
