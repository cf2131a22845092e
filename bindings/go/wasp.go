// Package wasp is the cgo binding of libwasp, the Workload-Aware
// Scheduling Planner (src/wasp.h, doc/library.md).
//
// A Snapshot is an immutable cluster state.  Applying a Delta, assuming a
// plan or forgetting one gives a new Snapshot and leaves the old one as it
// was, so a scheduler plugin can keep answering from one version while an
// informer builds the next.  Every handle (Snapshot, Delta, Plan) is freed
// by Close, or by a finalizer when it becomes unreachable; Close a handle
// only when no call on it is in flight.
//
// Calls that search (Place, Solve) take a context.Context: when it ends,
// a goroutine sets the library's cancel flag (allocated in C memory, as
// the cgo pointer rules require) and the call returns its best plan so
// far.
//
// libwasp is GPL-3.0-or-later; a program that links this package is too.
// A scheduler that cannot link it talks to `wasp serve` through the
// pure-Go package wasp.dev/wasp/client instead.
package wasp

/*
#cgo LDFLAGS: -lwasp
#include <stdlib.h>
#include <string.h>
#include <wasp.h>

// The cancel flag lives in C memory: the library reads it while Go may
// move or collect its own memory.
static int *wgo_flag_new(void) { return calloc(1, sizeof(int)); }
static void wgo_flag_set(int *f) { __atomic_store_n(f, 1, __ATOMIC_SEQ_CST); }
static void wgo_opts_cancel(wasp_options *o, int *f) { o->cancel = f; }
*/
import "C"

import (
	"context"
	"runtime"
	"sort"
	"sync"
	"time"
	"unsafe"
)

// LibraryVersion is the library's version (wasp_version()).
func LibraryVersion() string { return C.GoString(C.wasp_version()) }

func goErr(e *C.wasp_error) error {
	return &Error{
		Code: Code(e.code),
		File: C.GoString(&e.file[0]),
		Line: int(e.line),
		Col:  int(e.col),
		Msg:  C.GoString(&e.msg[0]),
	}
}

func cstr(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

func gostr(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// ---------------------------------------------------------------- options

// Mode chooses the solver.
type Mode int

// Solver modes (enum wasp_mode).
const (
	ModeAuto   Mode = 0
	ModeGreedy Mode = 1
	ModeILP    Mode = 2
)

// Options of a run; the zero value is the library's defaults.
type Options struct {
	// TimeLimit bounds the whole run: 0 the library's default (60 s),
	// negative none.
	TimeLimit time.Duration
	Gap       float64 // relative MIP gap to stop at (0: prove)
	Threads   int     // OpenMP threads (0: the runtime's default)
	Mode      Mode
	// DomainPath reads topology domains as Kueue does (the values of all
	// coarser levels too) instead of by the key's value alone.
	DomainPath    bool
	ValueResource string // count admitted work in this resource, not pods
	Rebalance     bool   // running pods may move
	MaxMoves      int    // at most this many moves (0: no limit)
	Protect       string // label selector: pods it selects never move
	NodeModel     bool   // the ILP works node by node
	WorkLimit     int64  // > 0: a work budget instead of the clock
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// cOptions fills a wasp_options; the returned function frees its strings.
func cOptions(o *Options, flag *C.int) (C.wasp_options, func()) {
	var co C.wasp_options
	C.wasp_options_init(&co)
	var strs []*C.char
	if o != nil {
		if o.TimeLimit < 0 {
			co.time_limit_s = 0
		} else if o.TimeLimit > 0 {
			co.time_limit_s = C.double(o.TimeLimit.Seconds())
		}
		co.gap = C.double(o.Gap)
		co.threads = C.int(o.Threads)
		co.mode = C.int(o.Mode)
		if o.DomainPath {
			co.domain_mode = C.WASP_DOMAIN_PATH
		}
		keep := func(v string) *C.char { // freed by the returned function
			if v == "" {
				return nil
			}
			c := C.CString(v)
			strs = append(strs, c)
			return c
		}
		co.value_resource = keep(o.ValueResource)
		co.protect = keep(o.Protect)
		co.rebalance = cbool(o.Rebalance)
		co.node_model = cbool(o.NodeModel)
		co.max_moves = C.int(o.MaxMoves)
		co.work_limit = C.long(o.WorkLimit)
	}
	if flag != nil {
		C.wgo_opts_cancel(&co, flag)
	}
	return co, func() {
		for _, s := range strs {
			C.free(unsafe.Pointer(s))
		}
	}
}

// CheckOptions reports what the library would refuse in o
// (wasp_options_check): the field and its accepted range.
func CheckOptions(o *Options) error {
	co, free := cOptions(o, nil)
	defer free()
	var e C.wasp_error
	if C.wasp_options_check(&co, &e) != 0 {
		return goErr(&e)
	}
	return nil
}

// withCancel runs f with a cancel flag that a goroutine sets when ctx
// ends; the flag is freed only after that goroutine has stopped.
func withCancel(ctx context.Context, f func(flag *C.int)) {
	if ctx.Done() == nil {
		f(nil)
		return
	}
	flag := C.wgo_flag_new()
	if flag == nil {
		f(nil)
		return
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			C.wgo_flag_set(flag)
		case <-done:
		}
	}()
	f(flag)
	close(done)
	wg.Wait()
	C.free(unsafe.Pointer(flag))
}

// ---------------------------------------------------------------- snapshot

// Snapshot is an immutable cluster state (wasp_snapshot).  Any number of
// goroutines may call its methods at once.
type Snapshot struct {
	p    *C.wasp_snapshot
	once sync.Once
}

func newSnapshot(p *C.wasp_snapshot) *Snapshot {
	s := &Snapshot{p: p}
	runtime.SetFinalizer(s, (*Snapshot).Close)
	return s
}

// Load reads one or more files ("-" is standard input) as one snapshot:
// YAML or JSON Kubernetes objects, or `kind: List`.
func Load(paths ...string) (*Snapshot, error) {
	cp := C.malloc(C.size_t(len(paths)+1) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(cp)
	arr := unsafe.Slice((**C.char)(cp), len(paths)+1)
	for i, p := range paths {
		arr[i] = C.CString(p)
		defer C.free(unsafe.Pointer(arr[i]))
	}
	var out *C.wasp_snapshot
	var e C.wasp_error
	if C.wasp_snapshot_load(&out, (**C.char)(cp), C.size_t(len(paths)), &e) != 0 {
		return nil, goErr(&e)
	}
	return newSnapshot(out), nil
}

// FromText reads a snapshot from memory; name appears in error positions.
func FromText(text []byte, name string) (*Snapshot, error) {
	ct := C.CBytes(text)
	defer C.free(ct)
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var out *C.wasp_snapshot
	var e C.wasp_error
	if C.wasp_snapshot_from_text(&out, (*C.char)(ct), C.size_t(len(text)), cn, &e) != 0 {
		return nil, goErr(&e)
	}
	return newSnapshot(out), nil
}

// snapshotResult turns a call's return into Go's.
func snapshotResult(rc C.int, out *C.wasp_snapshot, e *C.wasp_error) (*Snapshot, error) {
	if rc != 0 {
		return nil, goErr(e)
	}
	return newSnapshot(out), nil
}

// planResult turns a call's return into Go's.
func planResult(rc C.int, out *C.wasp_plan, e *C.wasp_error) (*Plan, error) {
	if rc != 0 {
		return nil, goErr(e)
	}
	return newPlan(out), nil
}

// Close frees the snapshot (idempotent).  Snapshots made from it stay
// valid.
func (s *Snapshot) Close() {
	s.once.Do(func() {
		C.wasp_snapshot_free(s.p)
		s.p = nil
		runtime.SetFinalizer(s, nil)
	})
}

// SnapshotStats are counts for summaries.
type SnapshotStats struct {
	Nodes, Pods, PodsPending, PodsBound, Groups, Resources int
}

// Stats counts the snapshot's objects.
func (s *Snapshot) Stats() SnapshotStats {
	var st C.wasp_snapshot_stats
	C.wasp_snapshot_stats_get(s.p, &st)
	runtime.KeepAlive(s)
	return SnapshotStats{int(st.nodes), int(st.pods), int(st.pods_pending),
		int(st.pods_bound), int(st.groups), int(st.resources)}
}

// Warnings collected while decoding.
func (s *Snapshot) Warnings() []string {
	var w []string
	for i := 0; ; i++ {
		c := C.wasp_snapshot_warning(s.p, C.size_t(i))
		if c == nil {
			break
		}
		w = append(w, C.GoString(c))
	}
	runtime.KeepAlive(s)
	return w
}

// GroupKind says what Place, Forget name.
type GroupKind int

// Group kinds (enum wasp_group_kind).
const (
	PodGroup          GroupKind = 0
	Workload          GroupKind = 1
	CompositePodGroup GroupKind = 2
)

// Group names a PodGroup, all PodGroups of a Workload, or a
// CompositePodGroup tree.
type Group struct {
	Kind      GroupKind
	Namespace string
	Name      string
}

// Apply returns the snapshot with the delta's changes; s is unchanged.
func (s *Snapshot) Apply(d *Delta) (*Snapshot, error) {
	var out *C.wasp_snapshot
	var e C.wasp_error
	rc := C.wasp_snapshot_apply(s.p, d.p, &out, &e)
	runtime.KeepAlive(s)
	runtime.KeepAlive(d)
	return snapshotResult(rc, out, &e)
}

// Place places one group on the snapshot as it is (wasp_place): running
// and assumed pods stay, other pending groups are not placed.  deadline
// bounds the call (0: the library's default, 100 ms), and so does ctx's
// deadline; when ctx ends during the call the best plan so far is
// returned.  o may be nil.
func (s *Snapshot) Place(ctx context.Context, g Group, o *Options, deadline time.Duration) (*Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if d, ok := ctx.Deadline(); ok {
		left := time.Until(d)
		if left < time.Millisecond {
			left = time.Millisecond
		}
		if deadline <= 0 || left < deadline {
			deadline = left
		}
	}
	ms := C.uint(deadline / time.Millisecond)
	if deadline > 0 && ms == 0 {
		ms = 1
	}
	ns, name := cstr(g.Namespace), C.CString(g.Name)
	defer C.free(unsafe.Pointer(ns))
	defer C.free(unsafe.Pointer(name))
	var out *C.wasp_plan
	var e C.wasp_error
	var rc C.int
	withCancel(ctx, func(flag *C.int) {
		co, free := cOptions(o, flag)
		defer free()
		rc = C.wasp_place(s.p, C.int(g.Kind), ns, name, &co, ms, &out, &e)
	})
	runtime.KeepAlive(s)
	return planResult(rc, out, &e)
}

// Solve places every pending group (wasp_solve).  When ctx ends during
// the call the best plan so far is returned.  o may be nil.
func (s *Snapshot) Solve(ctx context.Context, o *Options) (*Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *C.wasp_plan
	var e C.wasp_error
	var rc C.int
	withCancel(ctx, func(flag *C.int) {
		co, free := cOptions(o, flag)
		defer free()
		if d, ok := ctx.Deadline(); ok {
			left := time.Until(d).Seconds()
			if left < 0.001 {
				left = 0.001
			}
			if co.time_limit_s <= 0 || C.double(left) < co.time_limit_s {
				co.time_limit_s = C.double(left)
			}
		}
		rc = C.wasp_solve(s.p, &co, &out, &e)
	})
	runtime.KeepAlive(s)
	return planResult(rc, out, &e)
}

// Assume returns a snapshot in which the plan's placements count as bound
// (as the scheduler cache assumes a pod) until forgotten, or confirmed or
// dropped by a delta.
func (s *Snapshot) Assume(p *Plan) (*Snapshot, error) {
	var out *C.wasp_snapshot
	var e C.wasp_error
	rc := C.wasp_snapshot_assume(s.p, p.p, &out, &e)
	runtime.KeepAlive(s)
	runtime.KeepAlive(p)
	return snapshotResult(rc, out, &e)
}

// Forget returns a snapshot without the assumptions made for g
// (ErrNotFound if it has none).
func (s *Snapshot) Forget(g Group) (*Snapshot, error) {
	ns, name := cstr(g.Namespace), C.CString(g.Name)
	defer C.free(unsafe.Pointer(ns))
	defer C.free(unsafe.Pointer(name))
	var out *C.wasp_snapshot
	var e C.wasp_error
	rc := C.wasp_snapshot_forget(s.p, C.int(g.Kind), ns, name, &out, &e)
	runtime.KeepAlive(s)
	return snapshotResult(rc, out, &e)
}

// Check verifies a plan against the snapshot, independently of the
// solvers: the number of violations (0: valid) and one line per
// violation.
func (s *Snapshot) Check(p *Plan) (int, string, error) {
	var n C.size_t
	var report *C.char
	var e C.wasp_error
	rc := C.wasp_check(s.p, p.p, &n, &report, &e)
	runtime.KeepAlive(s)
	runtime.KeepAlive(p)
	if rc != 0 {
		return 0, "", goErr(&e)
	}
	r := gostr(report)
	C.wasp_free(unsafe.Pointer(report))
	return int(n), r, nil
}

// ---------------------------------------------------------------- delta

// Delta is a batch of changes, applied in order by Snapshot.Apply.
type Delta struct {
	p    *C.wasp_delta
	once sync.Once
}

// NewDelta makes an empty delta.
func NewDelta() (*Delta, error) {
	var out *C.wasp_delta
	var e C.wasp_error
	if C.wasp_delta_new(&out, &e) != 0 {
		return nil, goErr(&e)
	}
	d := &Delta{p: out}
	runtime.SetFinalizer(d, (*Delta).Close)
	return d, nil
}

// Put adds or replaces the objects in text (YAML or JSON, one or many);
// a bad object is reported now, with its position in name.
func (d *Delta) Put(text []byte, name string) error {
	ct := C.CBytes(text)
	defer C.free(ct)
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var e C.wasp_error
	rc := C.wasp_delta_put(d.p, (*C.char)(ct), C.size_t(len(text)), cn, &e)
	runtime.KeepAlive(d)
	if rc != 0 {
		return goErr(&e)
	}
	return nil
}

// Delete removes an object by kind ("Pod", "Node", "PodGroup", ...),
// namespace ("" for cluster-scoped kinds) and name.
func (d *Delta) Delete(kind, namespace, name string) error {
	ck, cns, cn := C.CString(kind), cstr(namespace), C.CString(name)
	defer C.free(unsafe.Pointer(ck))
	defer C.free(unsafe.Pointer(cns))
	defer C.free(unsafe.Pointer(cn))
	var e C.wasp_error
	rc := C.wasp_delta_delete(d.p, ck, cns, cn, &e)
	runtime.KeepAlive(d)
	if rc != 0 {
		return goErr(&e)
	}
	return nil
}

// Close frees the delta (idempotent).
func (d *Delta) Close() {
	d.once.Do(func() {
		C.wasp_delta_free(d.p)
		d.p = nil
		runtime.SetFinalizer(d, nil)
	})
}

// ---------------------------------------------------------------- generator

// Generate returns a deterministic synthetic cluster as manifests, as
// `wasp gen` prints it; opts are its option names without the dashes
// ("nodes": "5000", "gangs": "40", "json": "1", ...).
func Generate(opts map[string]string) ([]byte, error) {
	var g C.wasp_gen_options
	var e C.wasp_error
	C.wasp_gen_options_init(&g)
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ck, cv := C.CString(k), C.CString(opts[k])
		rc := C.wasp_gen_option_set(&g, ck, cv, &e)
		C.free(unsafe.Pointer(ck))
		C.free(unsafe.Pointer(cv))
		if rc != 0 {
			return nil, goErr(&e)
		}
	}
	s := C.wasp_gen(&g, &e)
	if s == nil {
		return nil, goErr(&e)
	}
	defer C.wasp_free(unsafe.Pointer(s))
	return C.GoBytes(unsafe.Pointer(s), C.int(C.strlen(s))), nil
}
