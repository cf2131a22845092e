package main

// The two ways a plugin reaches wasp, behind one interface: the cgo
// binding in the scheduler's own process, or `wasp serve` through the
// pure-Go client.

import (
	"context"
	"encoding/json"
	"fmt"
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
	cache    *wasp.Cache // the versions: swapped by writers, held by readers
	opts     *wasp.Options
	deadline time.Duration
}

func newCgoPlanner(opts *wasp.Options, deadline time.Duration) (*cgoPlanner, error) {
	s, err := wasp.FromText(nil, "empty")
	if err != nil {
		return nil, err
	}
	return &cgoPlanner{cache: wasp.NewCache(s), opts: opts, deadline: deadline}, nil
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
	return c.cache.Update(func(s *wasp.Snapshot) (*wasp.Snapshot, error) { return s.Apply(d) })
}

// cgoPlan is a plan and the version it was made on, held until Check.
type cgoPlan struct {
	p *wasp.Plan
	v *wasp.Version
}

func (c *cgoPlanner) Place(ctx context.Context, ns, gang string) (*Placed, error) {
	v := c.cache.Acquire()
	p, err := v.Place(ctx, wasp.Group{Kind: wasp.PodGroup, Namespace: ns, Name: gang}, c.opts, c.deadline)
	if err != nil {
		v.Release()
		return nil, err
	}
	out := &Placed{Nodes: map[string]string{}, plan: &cgoPlan{p, v}}
	for _, x := range p.Placements() {
		out.Nodes[x.Pod] = x.Node
	}
	for _, g := range p.Groups() {
		if !g.Admitted && g.Name == gang {
			out.Reason = g.Reason
		}
	}
	if len(out.Nodes) == 0 { // nothing to check or assume
		v.Release()
		p.Close()
	}
	return out, nil
}

// Check verifies the plan on the version it was made on, then lets go of
// that version.
func (c *cgoPlanner) Check(ctx context.Context, p *Placed) (int, string, error) {
	cp := p.plan.(*cgoPlan)
	defer cp.v.Release()
	return cp.v.Check(cp.p)
}

func (c *cgoPlanner) Assume(ctx context.Context, p *Placed) error {
	cp := p.plan.(*cgoPlan)
	defer cp.p.Close()
	return c.cache.Update(func(s *wasp.Snapshot) (*wasp.Snapshot, error) { return s.Assume(cp.p) })
}

func (c *cgoPlanner) Forget(ctx context.Context, ns, gang string) error {
	return c.cache.Update(func(s *wasp.Snapshot) (*wasp.Snapshot, error) {
		return s.Forget(wasp.Group{Kind: wasp.PodGroup, Namespace: ns, Name: gang})
	})
}

func (c *cgoPlanner) Bound(ctx context.Context) (int, error) {
	v := c.cache.Acquire()
	defer v.Release()
	return v.Stats().PodsBound, nil
}

func (c *cgoPlanner) Close() { c.cache.Close() }

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
