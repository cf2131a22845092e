package wasp

// Tests of the cgo binding against the libwasp of the build tree
// (tests/go.sh sets CGO_CFLAGS, CGO_LDFLAGS, LD_LIBRARY_PATH and
// WASP_SRCDIR).  Every plan a test makes goes through Snapshot.Check.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func srcPath(t *testing.T, rel string) string {
	t.Helper()
	dir := os.Getenv("WASP_SRCDIR")
	if dir == "" {
		dir = "../.."
	}
	return filepath.Join(dir, rel)
}

func load(t *testing.T, rel string) *Snapshot {
	t.Helper()
	s, err := Load(srcPath(t, rel))
	if err != nil {
		t.Fatalf("load %s: %v", rel, err)
	}
	return s
}

// checked fails the test unless the plan is valid on s.
func checked(t *testing.T, s *Snapshot, p *Plan) *Plan {
	t.Helper()
	n, report, err := s.Check(p)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if n != 0 {
		t.Fatalf("plan has %d violations:\n%s", n, report)
	}
	return p
}

func TestLoadErrorHasPosition(t *testing.T) {
	_, err := Load(srcPath(t, "tests/fixtures/bad/affinity-operator-unknown.yaml"))
	var we *Error
	if !errors.As(err, &we) {
		t.Fatalf("want *wasp.Error, got %v", err)
	}
	if we.Code != CodeInput || we.Line != 14 || we.Col != 23 ||
		!strings.HasSuffix(we.File, "affinity-operator-unknown.yaml") ||
		!strings.Contains(we.Msg, `unknown operator "Near"`) {
		t.Fatalf("error %+v", we)
	}
	if !strings.Contains(err.Error(), "affinity-operator-unknown.yaml:14:23: ") ||
		!errors.Is(err, ErrInput) || errors.Is(err, ErrNotFound) {
		t.Fatalf("Error() %q", err.Error())
	}
	_, err = FromText([]byte("kind: Node\nmetadata: [1\n"), "mem.yaml")
	if !errors.As(err, &we) || we.File != "mem.yaml" || we.Line == 0 {
		t.Fatalf("FromText error %v", err)
	}
}

func TestSolveAccessorsAndRender(t *testing.T) {
	s := load(t, "models/examples/gpu16.yaml")
	defer s.Close()
	st := s.Stats()
	if st.Nodes != 16 || st.PodsPending == 0 {
		t.Fatalf("stats %+v", st)
	}
	p, err := s.Solve(context.Background(), &Options{Mode: ModeGreedy})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	checked(t, s, p)
	ps := p.Stats()
	pl := p.Placements()
	if len(pl) != ps.PlacedPods || ps.PlacedPods == 0 {
		t.Fatalf("%d placements, stats %+v", len(pl), ps)
	}
	admitted, waiting := 0, 0
	for _, g := range p.Groups() {
		if g.Admitted {
			admitted++
		} else {
			waiting++
			if g.Reason == "" {
				t.Errorf("waiting group %s/%s without a reason", g.Namespace, g.Name)
			}
		}
	}
	if admitted != ps.AdmittedGroups || waiting != ps.WaitingGroups {
		t.Fatalf("groups %d/%d, stats %+v", admitted, waiting, ps)
	}
	// the rendered document reads back to a plan that checks the same
	doc, err := p.Render(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	q, err := PlanFromText(doc, "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	checked(t, s, q)
	if len(q.Placements()) != len(pl) {
		t.Fatal("placements lost in the round trip")
	}
	// a plan moved to a node that does not exist is caught
	bad := strings.Replace(string(doc), `"node": "`+pl[0].Node+`"`, `"node": "no-such-node"`, 1)
	r, err := PlanFromText([]byte(bad), "bad.json")
	if err == nil {
		n, _, err := s.Check(r)
		if err != nil || n == 0 {
			t.Fatalf("corrupted plan: %d violations, %v", n, err)
		}
		r.Close()
	}
}

func TestOptionsRefused(t *testing.T) {
	err := CheckOptions(&Options{Threads: 100000})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "threads") {
		t.Fatalf("threads 100000: %v", err)
	}
	if err := CheckOptions(&Options{Gap: 0.1, Mode: ModeILP}); err != nil {
		t.Fatal(err)
	}
	s := load(t, "models/examples/gpu16.yaml")
	defer s.Close()
	if _, err := s.Solve(context.Background(), &Options{Gap: 2}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("gap 2: %v", err)
	}
}

// The informer's pattern: deltas make new versions, old ones stay.
func TestDeltaVersions(t *testing.T) {
	s := load(t, "models/examples/gpu16.yaml")
	defer s.Close()
	d, err := NewDelta()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	node := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"extra-0",` +
		`"labels":{"kubernetes.io/hostname":"extra-0"}},"status":{"allocatable":` +
		`{"cpu":"64","memory":"512Gi","pods":"110","nvidia.com/gpu":"8"}}}`
	if err := d.Put([]byte(node), "node.json"); err != nil {
		t.Fatal(err)
	}
	s2, err := s.Apply(d)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.Stats().Nodes != s.Stats().Nodes+1 {
		t.Fatalf("nodes %d -> %d", s.Stats().Nodes, s2.Stats().Nodes)
	}
	// a bad object is refused, with its position in its own text (at Put,
	// or at the latest when the delta is applied)
	err = d.Put([]byte("apiVersion: v1\nkind: Node\nmetadata:\n  name: x\n"+
		"status:\n  allocatable:\n    cpu: lots\n"), "bad.yaml")
	if err == nil {
		_, err = s.Apply(d)
	}
	var we *Error
	if !errors.As(err, &we) || we.File != "bad.yaml" || we.Line != 7 {
		t.Fatalf("bad put: %v", err)
	}
	// deleting what does not exist names it
	d2, _ := NewDelta()
	defer d2.Close()
	if err := d2.Delete("Node", "", "no-such-node"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(d2); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete missing: %v", err)
	}
}

// PreFilter, Reserve, Unreserve: place one group, assume it, forget it.
func TestPlaceAssumeForget(t *testing.T) {
	s := load(t, "models/examples/gpu16.yaml")
	defer s.Close()
	g := Group{PodGroup, "ml", "finetune"}
	p, err := s.Place(context.Background(), g, &Options{Mode: ModeGreedy}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	checked(t, s, p)
	pl := p.Placements()
	if len(pl) == 0 {
		t.Fatalf("finetune not placed: %+v", p.Groups())
	}
	for _, x := range pl {
		if x.Group != "finetune" || x.Namespace != "ml" {
			t.Fatalf("place placed another group's pod: %+v", x)
		}
	}
	a, err := s.Assume(p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Stats().PodsBound != s.Stats().PodsBound+len(pl) {
		t.Fatalf("assumed: bound %d -> %d, %d placed",
			s.Stats().PodsBound, a.Stats().PodsBound, len(pl))
	}
	// with the group assumed, a solve of the rest must leave its nodes'
	// capacity used: the whole plan on the assumed snapshot checks
	q, err := a.Solve(context.Background(), &Options{Mode: ModeGreedy})
	if err != nil {
		t.Fatal(err)
	}
	checked(t, a, q)
	q.Close()
	f, err := a.Forget(g)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Stats().PodsBound != s.Stats().PodsBound {
		t.Fatalf("forgotten: bound %d, was %d", f.Stats().PodsBound, s.Stats().PodsBound)
	}
	if _, err := f.Forget(g); !errors.Is(err, ErrNotFound) {
		t.Fatalf("forget twice: %v", err)
	}
	if _, err := s.Place(context.Background(), Group{PodGroup, "ml", "nope"}, nil, 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("place missing group: %v", err)
	}
}

// Many goroutines on one snapshot (the library allows it).
func TestConcurrentPlace(t *testing.T) {
	s := load(t, "models/examples/gpu16.yaml")
	defer s.Close()
	groups := []Group{{PodGroup, "ml", "finetune"}, {PodGroup, "ml", "batch-eval"},
		{PodGroup, "serve", "rerank"}, {PodGroup, "ml", "llm-pretrain"}}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(groups))
	for i := 0; i < 4; i++ {
		for _, g := range groups {
			wg.Add(1)
			go func(g Group) {
				defer wg.Done()
				p, err := s.Place(context.Background(), g, &Options{Mode: ModeGreedy}, time.Second)
				if err != nil {
					errs <- err
					return
				}
				defer p.Close()
				if n, r, err := s.Check(p); err != nil || n != 0 {
					errs <- errors.New(r)
				}
			}(g)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestContextCancel(t *testing.T) {
	s := load(t, "models/examples/gpu16.yaml")
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Solve(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("solve with a cancelled context: %v", err)
	}
	// a long search stopped by the context answers with its best plan
	text, err := Generate(map[string]string{"nodes": "256", "gangs": "40",
		"max-gang": "24", "seed": "3"})
	if err != nil {
		t.Fatal(err)
	}
	big, err := FromText(text, "gen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	p, err := big.Solve(ctx, &Options{Mode: ModeILP, TimeLimit: -1})
	if err != nil {
		t.Fatalf("cancelled solve: %v", err)
	}
	defer p.Close()
	checked(t, big, p)
	doc, _ := p.Render(FormatJSON)
	if !strings.Contains(string(doc), "cancel") {
		t.Fatalf("the plan does not say it was cancelled:\n%.600s", doc)
	}
}

// A Cache closes a version once it is neither current nor held.
func TestCacheVersions(t *testing.T) {
	s := load(t, "models/examples/gpu16.yaml")
	bound0 := s.Stats().PodsBound
	c := NewCache(s)
	held := c.Acquire()
	d, _ := NewDelta()
	defer d.Close()
	if err := d.Delete("Node", "", "no-such-node"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(func(s *Snapshot) (*Snapshot, error) { return s.Apply(d) }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("failed update: %v", err)
	}
	if cur := c.Acquire(); cur != held {
		t.Fatal("a failed update changed the current version")
	} else {
		cur.Release()
	}
	g := Group{PodGroup, "ml", "finetune"}
	p, err := held.Place(context.Background(), g, &Options{Mode: ModeGreedy}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	checked(t, held.Snapshot, p)
	if err := c.Update(func(s *Snapshot) (*Snapshot, error) { return s.Assume(p) }); err != nil {
		t.Fatal(err)
	}
	// the old version stays usable while held, and is closed on release
	if held.Stats().Nodes != 16 || held.Snapshot.p == nil {
		t.Fatal("a held version was closed")
	}
	held.Release()
	if held.Snapshot.p != nil {
		t.Fatal("a released old version stays open")
	}
	cur := c.Acquire()
	if cur.Stats().PodsBound != bound0+len(p.Placements()) {
		t.Fatal("the current version is not the assumed one")
	}
	cur.Release()
	c.Close()
	if cur.Snapshot.p != nil {
		t.Fatal("Close left the current version open")
	}
}
