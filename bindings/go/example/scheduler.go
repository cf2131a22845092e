package main

// The scheduling framework's call pattern, mimicked (the framework itself
// is not available here): an informer replays the cluster as events, a
// queue hands out pending pods one at a time, a gang plugin's PreFilter
// asks wasp where the whole gang fits, and its Permit holds each pod
// until every pod of the gang has been reserved, then binds them all.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// object is the part of a Kubernetes object the example reads.
type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		NodeName        string `json:"nodeName"`
		SchedulingGroup struct {
			PodGroupName string `json:"podGroupName"`
		} `json:"schedulingGroup"`
	} `json:"spec"`
}

type pod struct {
	raw  json.RawMessage
	ns   string
	name string
	gang string
}

// gangState is the plugin's memory of one gang.
type gangState struct {
	ns, name string
	pods     []*pod            // arrived so far
	nodes    map[string]string // from PreFilter's plan: pod -> node
	waiting  []*pod            // reserved, held in Permit
	bound    bool
	reason   string // why it is unschedulable
}

// Report is what a run did.
type Report struct {
	Events, Deltas       int
	Gangs, Admitted      int
	PodsBound            int
	Waiting              map[string]int // reason -> gangs
	PlaceTimes           []time.Duration
	ApplyTimes           []time.Duration // each delta (informer batch or bind)
	CheckTimes           []time.Duration
	AssumeTimes          []time.Duration
	BoundBefore, BoundAt int // pods bound in the planner's cache
	Nodes                map[string]string
}

// Run replays the cluster (a `kind: List`, as `wasp gen --json` writes
// it) through the planner: first the initial list (everything but the
// pending pods, in batches of `batch` objects), then the pending pods as
// watch events, scheduling as they arrive.
func Run(ctx context.Context, pl Planner, list []json.RawMessage, batch int) (*Report, error) {
	rep := &Report{Waiting: map[string]int{}, Nodes: map[string]string{}}
	var initial []json.RawMessage
	var pending []*pod
	for _, raw := range list {
		var o object
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, err
		}
		if o.Kind == "Pod" && o.Spec.NodeName == "" && o.Spec.SchedulingGroup.PodGroupName != "" {
			pending = append(pending, &pod{raw, o.Metadata.Namespace, o.Metadata.Name,
				o.Spec.SchedulingGroup.PodGroupName})
			continue
		}
		initial = append(initial, raw)
	}
	// informer: the initial LIST
	for i := 0; i < len(initial); i += batch {
		j := i + batch
		if j > len(initial) {
			j = len(initial)
		}
		if err := apply(ctx, pl, rep, initial[i:j]); err != nil {
			return nil, fmt.Errorf("initial list: %w", err)
		}
	}
	var err error
	if rep.BoundBefore, err = pl.Bound(ctx); err != nil {
		return nil, err
	}

	// watch: pending pods arrive interleaved across gangs (round robin),
	// a few per event batch; the queue schedules each as it arrives
	gangs := map[string]*gangState{}
	byGang := map[string][]*pod{}
	var order []string
	for _, p := range pending {
		k := p.ns + "/" + p.gang
		if _, ok := byGang[k]; !ok {
			order = append(order, k)
		}
		byGang[k] = append(byGang[k], p)
	}
	var arrivals []*pod
	for more := true; more; {
		more = false
		for _, k := range order {
			if len(byGang[k]) > 0 {
				arrivals = append(arrivals, byGang[k][0])
				byGang[k] = byGang[k][1:]
				more = true
			}
		}
	}
	size := map[string]int{}
	for _, p := range pending {
		size[p.ns+"/"+p.gang]++
	}
	rep.Gangs = len(order)
	for i := 0; i < len(arrivals); i += batch {
		j := i + batch
		if j > len(arrivals) {
			j = len(arrivals)
		}
		var evs []json.RawMessage
		for _, p := range arrivals[i:j] {
			evs = append(evs, p.raw)
		}
		if err := apply(ctx, pl, rep, evs); err != nil {
			return nil, fmt.Errorf("pod events: %w", err)
		}
		for _, p := range arrivals[i:j] {
			k := p.ns + "/" + p.gang
			g := gangs[k]
			if g == nil {
				g = &gangState{ns: p.ns, name: p.gang}
				gangs[k] = g
			}
			g.pods = append(g.pods, p)
			if err := schedule(ctx, pl, g, p, len(g.pods) == size[k], rep); err != nil {
				return nil, err
			}
		}
	}
	for _, g := range gangs {
		if g.bound {
			rep.Admitted++
		} else {
			rep.Waiting[g.reason]++
		}
	}
	if rep.BoundAt, err = pl.Bound(ctx); err != nil {
		return nil, err
	}
	return rep, nil
}

// schedule is one scheduling cycle of pod p: PreFilter, Filter, Reserve,
// Permit (and Bind when Permit lets the gang go).
func schedule(ctx context.Context, pl Planner, g *gangState, p *pod, all bool, rep *Report) error {
	// PreFilter: as coscheduling does, a gang is not tried before all
	// its pods exist; then wasp places the whole gang at once
	if g.nodes == nil {
		if !all {
			g.reason = "waiting for the gang's pods to be created"
			return nil
		}
		t0 := time.Now()
		placed, err := pl.Place(ctx, g.ns, g.name)
		rep.PlaceTimes = append(rep.PlaceTimes, time.Since(t0))
		if err != nil {
			return fmt.Errorf("place %s/%s: %w", g.ns, g.name, err)
		}
		if len(placed.Nodes) == 0 {
			g.reason = placed.Reason
			return nil
		}
		// every plan is checked before the cache assumes it
		t1 := time.Now()
		n, report, err := pl.Check(ctx, placed)
		rep.CheckTimes = append(rep.CheckTimes, time.Since(t1))
		if err != nil {
			return err
		}
		if n != 0 {
			return fmt.Errorf("plan for %s/%s has %d violations:\n%s", g.ns, g.name, n, report)
		}
		t2 := time.Now()
		if err := pl.Assume(ctx, placed); err != nil {
			return fmt.Errorf("assume %s/%s: %w", g.ns, g.name, err)
		}
		rep.AssumeTimes = append(rep.AssumeTimes, time.Since(t2))
		g.nodes = placed.Nodes
		// the gang's earlier pods were rejected at PreFilter; the queue
		// retries them now (they are in g.pods)
		g.waiting = nil
		for _, q := range g.pods {
			if q != p {
				if err := reservePermit(ctx, pl, g, q, rep); err != nil {
					return err
				}
			}
		}
	}
	return reservePermit(ctx, pl, g, p, rep)
}

// reservePermit: Filter keeps only the plan's node, Reserve takes it,
// Permit waits until the gang is complete, then binds every pod.
func reservePermit(ctx context.Context, pl Planner, g *gangState, p *pod, rep *Report) error {
	if _, ok := g.nodes[p.name]; !ok {
		return nil // the plan left this pod out (beyond minCount)
	}
	g.waiting = append(g.waiting, p)
	if len(g.waiting) < len(g.nodes) {
		return nil // Permit: Wait
	}
	// Permit: Allow every waiting pod; Bind; the informer then sees the
	// pods bound, which confirms the assumption
	var evs []json.RawMessage
	for _, q := range g.waiting {
		var m map[string]interface{}
		if err := json.Unmarshal(q.raw, &m); err != nil {
			return err
		}
		m["spec"].(map[string]interface{})["nodeName"] = g.nodes[q.name]
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		evs = append(evs, b)
		rep.Nodes[q.ns+"/"+q.name] = g.nodes[q.name]
	}
	if err := apply(ctx, pl, rep, evs); err != nil {
		// Unreserve: give the gang's room back
		if ferr := pl.Forget(ctx, g.ns, g.name); ferr != nil {
			return fmt.Errorf("bind %s/%s: %v; forget: %w", g.ns, g.name, err, ferr)
		}
		return fmt.Errorf("bind %s/%s: %w", g.ns, g.name, err)
	}
	rep.PodsBound += len(evs)
	g.bound = true
	g.waiting = nil
	return nil
}

// apply replays one batch of events, timing it.
func apply(ctx context.Context, pl Planner, rep *Report, put []json.RawMessage) error {
	t0 := time.Now()
	err := pl.Apply(ctx, put, nil)
	rep.ApplyTimes = append(rep.ApplyTimes, time.Since(t0))
	if err == nil {
		rep.Deltas++
		rep.Events += len(put)
	}
	return err
}

// Quantile of sorted durations (q in 0..1), nearest rank.
func Quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(q*float64(len(s))+0.999999) - 1
	if k < 0 {
		k = 0
	}
	if k >= len(s) {
		k = len(s) - 1
	}
	return s[k]
}
