package client

// Tests against a real `wasp serve` ($WASP_BIN, from tests/go.sh) on a
// socket in a temporary folder.  Every plan the server returns goes
// through its check op.  Built and run with CGO_ENABLED=0.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type server struct {
	cmd  *exec.Cmd
	sock string
	c    *Client
}

func start(t *testing.T, files ...string) *server {
	t.Helper()
	bin := os.Getenv("WASP_BIN")
	src := os.Getenv("WASP_SRCDIR")
	if bin == "" || src == "" {
		t.Skip("WASP_BIN and WASP_SRCDIR are not set (run tests/go.sh)")
	}
	sock := filepath.Join(t.TempDir(), "wasp.sock")
	args := []string{"serve", "-q", "--socket", sock}
	for _, f := range files {
		args = append(args, filepath.Join(src, f))
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, sock: sock}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	for i := 0; ; i++ {
		c, err := Dial(context.Background(), sock)
		if err == nil {
			s.c = c
			return s
		}
		if i > 3000 {
			t.Fatalf("wasp serve does not answer: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop sends SIGTERM and wants exit status 0 and the socket gone.
func (s *server) stop(t *testing.T) {
	t.Helper()
	s.c.Close()
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("wasp serve after SIGTERM: %v", err)
	}
	if _, err := os.Stat(s.sock); err == nil {
		t.Fatal("socket left behind")
	}
}

func mustCheck(t *testing.T, c *Client, p *Plan) {
	t.Helper()
	r, err := c.Check(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Violations != 0 {
		t.Fatalf("plan has %d violations:\n%s", r.Violations, r.Report)
	}
}

func TestOperations(t *testing.T) {
	s := start(t, "models/examples/gpu16.yaml")
	ctx := context.Background()
	c := s.c
	h, err := c.Health(ctx)
	if err != nil || h.Status != "serving" || h.Protocol != Protocol {
		t.Fatalf("health %+v %v", h, err)
	}
	st, err := c.Stats(ctx)
	if err != nil || st.Nodes != 16 {
		t.Fatalf("stats %+v %v", st, err)
	}

	all, err := c.Solve(ctx, &Options{Mode: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	mustCheck(t, c, all)
	if all.Doc.APIVersion != "wasp.dev/v1alpha1" || len(all.Doc.Placements) == 0 ||
		all.Doc.Summary.Counts.PlacedPods != len(all.Doc.Placements) {
		t.Fatalf("solve plan %+v", all.Doc.Summary)
	}

	g := Group{Namespace: "ml", Name: "finetune"}
	p, err := c.Place(ctx, g, &Options{Mode: "greedy"}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	mustCheck(t, c, p)
	if len(p.Doc.Placements) == 0 {
		t.Fatalf("finetune not placed: %+v", p.Doc.Waiting)
	}
	for _, x := range p.Doc.Placements {
		if x.Group != "finetune" || p.NodeOf(x.Namespace, x.Pod) != x.Node {
			t.Fatalf("placement %+v", x)
		}
	}
	v, err := c.Assume(ctx, p)
	if err != nil || v != p.SnapshotVersion+1 {
		t.Fatalf("assume: version %d (plan on %d): %v", v, p.SnapshotVersion, err)
	}
	st2, _ := c.Stats(ctx)
	if st2.PodsBound != st.PodsBound+len(p.Doc.Placements) {
		t.Fatalf("bound %d -> %d", st.PodsBound, st2.PodsBound)
	}
	if _, err := c.Forget(ctx, g); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Forget(ctx, g); !errors.Is(err, ErrNotFound) {
		t.Fatalf("forget twice: %v", err)
	}

	var d Delta
	d.PutObject(map[string]interface{}{"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]interface{}{"name": "extra"},
		"status": map[string]interface{}{"allocatable": map[string]string{
			"cpu": "8", "pods": "110"}}})
	if _, err := c.Apply(ctx, &d); err != nil {
		t.Fatal(err)
	}
	if st3, _ := c.Stats(ctx); st3.Nodes != 17 {
		t.Fatalf("nodes after put: %d", st3.Nodes)
	}
	// a bad manifest: its position in its own text; nothing changes
	var bad Delta
	bad.DeleteObject("Node", "", "extra")
	bad.PutText("apiVersion: v1\nkind: Node\nmetadata:\n  name: x\nstatus:\n" +
		"  allocatable:\n    cpu: lots\n")
	_, err = c.Apply(ctx, &bad)
	var we *Error
	if !errors.As(err, &we) || we.Code != "EINPUT" || we.File != "put[0]" || we.Line != 7 ||
		!strings.HasPrefix(err.Error(), "put[0]:7:") {
		t.Fatalf("bad put: %v", err)
	}
	if st4, _ := c.Stats(ctx); st4.Nodes != 17 {
		t.Fatalf("a refused delta changed the snapshot: %d nodes", st4.Nodes)
	}
	if _, err := c.Place(ctx, Group{Namespace: "ml", Name: "nope"}, nil, 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("place missing: %v", err)
	}
	if _, err := c.Solve(ctx, &Options{Mode: "fast"}); !errors.Is(err, ErrInput) {
		t.Fatalf("bad mode: %v", err)
	}
	s.stop(t)
	if _, err := c.Health(ctx); err == nil {
		t.Fatal("health answered after the drain")
	}
}

// Sixteen goroutines share one Client (a pool of connections).
func TestConcurrentClients(t *testing.T) {
	s := start(t, "models/examples/gpu16.yaml")
	groups := []string{"finetune", "batch-eval", "llm-pretrain"}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx := context.Background()
			for k := 0; k < 4; k++ {
				p, err := s.c.Place(ctx, Group{Namespace: "ml", Name: groups[(i+k)%3]},
					&Options{Mode: "greedy"}, 5*time.Second)
				if err != nil {
					errs <- err
					return
				}
				r, err := s.c.Check(ctx, p)
				if err != nil || r.Violations != 0 {
					errs <- errors.New(r.Report)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st, err := s.c.Stats(context.Background())
	if err != nil || st.Errors != 0 || st.Requests < 16*4*2 {
		t.Fatalf("stats %+v %v", st, err)
	}
	s.stop(t)
}

func TestContext(t *testing.T) {
	s := start(t, "models/examples/gpu16.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.c.Health(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	// a deadline bounds place's search too; the plan still checks
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := s.c.Place(ctx, Group{Namespace: "ml", Name: "batch-eval"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s.c, p)
	s.stop(t)
}
