package wasp

/*
#include <stdlib.h>
#include <string.h>
#include <wasp.h>
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Plan is a solver's answer (wasp_plan): read it with the accessors, or
// Render it as the plan document (doc/output.md).  Read-only; any number
// of goroutines may read it at once.
type Plan struct {
	p    *C.wasp_plan
	once sync.Once
}

func newPlan(p *C.wasp_plan) *Plan {
	pl := &Plan{p: p}
	runtime.SetFinalizer(pl, (*Plan).Close)
	return pl
}

// PlanFromText reads a rendered plan back (JSON or YAML).
func PlanFromText(text []byte, name string) (*Plan, error) {
	ct := C.CBytes(text)
	defer C.free(ct)
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var out *C.wasp_plan
	var e C.wasp_error
	if C.wasp_plan_from_text(&out, (*C.char)(ct), C.size_t(len(text)), cn, &e) != 0 {
		return nil, goErr(&e)
	}
	return newPlan(out), nil
}

// Close frees the plan (idempotent).
func (p *Plan) Close() {
	p.once.Do(func() {
		C.wasp_plan_free(p.p)
		p.p = nil
		runtime.SetFinalizer(p, nil)
	})
}

// Format of Render.
type Format int

// Render formats (enum wasp_format).
const (
	FormatJSON Format = 0
	FormatYAML Format = 1
	FormatText Format = 2
)

// Render writes the plan document (JSON, YAML) or the text report.
func (p *Plan) Render(f Format) ([]byte, error) {
	var e C.wasp_error
	s := C.wasp_plan_render(p.p, C.int(f), &e)
	runtime.KeepAlive(p)
	if s == nil {
		return nil, goErr(&e)
	}
	defer C.wasp_free(unsafe.Pointer(s))
	return C.GoBytes(unsafe.Pointer(s), C.int(C.strlen(s))), nil
}

// PlanStats are the plan's counts.
type PlanStats struct {
	PlacedPods, AdmittedGroups, WaitingGroups, EvictedPods, MovedPods int
	Status                                                            string
}

// Stats counts the plan's entries.
func (p *Plan) Stats() PlanStats {
	var st C.wasp_plan_stats
	C.wasp_plan_stats_get(p.p, &st)
	r := PlanStats{int(st.placed_pods), int(st.admitted_groups),
		int(st.waiting_groups), int(st.evicted_pods), int(st.moved_pods),
		gostr(st.status)}
	runtime.KeepAlive(p)
	return r
}

// Placement is a pending pod placed on a node; Group is "" for a lone pod.
type Placement struct{ Namespace, Pod, Node, Group string }

// Placements lists the plan's placements.
func (p *Plan) Placements() []Placement {
	n := int(C.wasp_plan_placement_count(p.p))
	out := make([]Placement, 0, n)
	for i := 0; i < n; i++ {
		var c C.wasp_placement
		if C.wasp_plan_placement_get(p.p, C.size_t(i), &c) != 0 {
			break
		}
		out = append(out, Placement{gostr(c.ns), gostr(c.pod),
			gostr(c.node), gostr(c.group)})
	}
	runtime.KeepAlive(p)
	return out
}

// DeviceAlloc is one allocated device of a claim.
type DeviceAlloc struct {
	Namespace, Claim, Pod, Group, Node string
	Request, Driver, Pool, Device      string
}

// Devices lists the plan's device allocations.
func (p *Plan) Devices() []DeviceAlloc {
	n := int(C.wasp_plan_device_count(p.p))
	out := make([]DeviceAlloc, 0, n)
	for i := 0; i < n; i++ {
		var c C.wasp_device_alloc
		if C.wasp_plan_device_get(p.p, C.size_t(i), &c) != 0 {
			break
		}
		out = append(out, DeviceAlloc{gostr(c.ns), gostr(c.claim),
			gostr(c.pod), gostr(c.group), gostr(c.node),
			gostr(c.request), gostr(c.driver), gostr(c.pool),
			gostr(c.device)})
	}
	runtime.KeepAlive(p)
	return out
}

// Eviction is a running pod the plan evicts, and what for.
type Eviction struct {
	Namespace, Pod, Node, Unit string
	Priority                   int32
	ByKind, ByNamespace, By    string
	PDBViolation               bool
}

// Evictions lists the plan's evictions.
func (p *Plan) Evictions() []Eviction {
	n := int(C.wasp_plan_eviction_count(p.p))
	out := make([]Eviction, 0, n)
	for i := 0; i < n; i++ {
		var c C.wasp_eviction
		if C.wasp_plan_eviction_get(p.p, C.size_t(i), &c) != 0 {
			break
		}
		out = append(out, Eviction{gostr(c.ns), gostr(c.pod),
			gostr(c.node), gostr(c.unit), int32(c.priority),
			gostr(c.by_kind), gostr(c.by_ns), gostr(c.by),
			c.pdb_violation != 0})
	}
	runtime.KeepAlive(p)
	return out
}

// Move is a running pod the plan moves.
type Move struct{ Namespace, Pod, From, To, Group string }

// Moves lists the plan's moves.
func (p *Plan) Moves() []Move {
	n := int(C.wasp_plan_move_count(p.p))
	out := make([]Move, 0, n)
	for i := 0; i < n; i++ {
		var c C.wasp_move
		if C.wasp_plan_move_get(p.p, C.size_t(i), &c) != 0 {
			break
		}
		out = append(out, Move{gostr(c.ns), gostr(c.pod), gostr(c.from),
			gostr(c.to), gostr(c.group)})
	}
	runtime.KeepAlive(p)
	return out
}

// GroupResult is a group the plan admits or keeps waiting.
type GroupResult struct {
	Namespace, Name string
	Kind            string // "PodGroup", or "Pod" for a waiting lone pod
	Admitted        bool
	Pods            int
	Priority        int32
	Key, Domain     string // admitted with a topology key: its domain
	Reason          string // waiting: why
}

// Groups lists the admitted groups, then the waiting ones.
func (p *Plan) Groups() []GroupResult {
	n := int(C.wasp_plan_group_count(p.p))
	out := make([]GroupResult, 0, n)
	for i := 0; i < n; i++ {
		var c C.wasp_group_result
		if C.wasp_plan_group_get(p.p, C.size_t(i), &c) != 0 {
			break
		}
		out = append(out, GroupResult{gostr(c.ns), gostr(c.name),
			gostr(c.kind), c.admitted != 0, int(c.pods),
			int32(c.priority), gostr(c.key), gostr(c.domain),
			gostr(c.reason)})
	}
	runtime.KeepAlive(p)
	return out
}

// Warnings lists the plan's warnings.
func (p *Plan) Warnings() []string {
	var w []string
	for i := 0; ; i++ {
		c := C.wasp_plan_warning(p.p, C.size_t(i))
		if c == nil {
			break
		}
		w = append(w, C.GoString(c))
	}
	runtime.KeepAlive(p)
	return w
}
