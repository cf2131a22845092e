package main

// The example on a small generated cluster, through both backends: each
// plan is checked before it is assumed (in Run), the cache counts every
// bound pod once, and both backends bind the same pods to the same nodes
// (a work limit makes the plans independent of the clock).

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	wasp "wasp.dev/wasp"
)

func cluster(t *testing.T) []json.RawMessage {
	text, err := wasp.Generate(map[string]string{"nodes": "128", "gangs": "16",
		"seed": "7", "json": "1"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cluster.json")
	if err := os.WriteFile(path, text, 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := ReadList(path)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func run(t *testing.T, pl Planner, list []json.RawMessage) *Report {
	t.Helper()
	rep, err := Run(context.Background(), pl, list, 100)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Admitted == 0 || rep.PodsBound == 0 {
		t.Fatalf("nothing admitted: %+v", rep)
	}
	if rep.BoundAt != rep.BoundBefore+rep.PodsBound {
		t.Fatalf("bound %d before, %d after, %d bound by the run",
			rep.BoundBefore, rep.BoundAt, rep.PodsBound)
	}
	return rep
}

func TestBothBackendsAgree(t *testing.T) {
	list := cluster(t)
	const work, deadline = 64, time.Minute
	pl, err := NewPlanner(context.Background(), "cgo", "", deadline, work)
	if err != nil {
		t.Fatal(err)
	}
	in := run(t, pl, list)
	pl.Close()

	bin := os.Getenv("WASP_BIN")
	if bin == "" {
		t.Skip("WASP_BIN not set (run tests/go.sh): the server backend is not tried")
	}
	sock := filepath.Join(t.TempDir(), "wasp.sock")
	cmd := exec.Command(bin, "serve", "-q", "--socket", sock)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("wasp serve after SIGTERM: %v", err)
		}
	}()
	for i := 0; ; i++ {
		if pl, err = NewPlanner(context.Background(), "server", sock, deadline, work); err == nil {
			break
		}
		if i > 3000 {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := run(t, pl, list)
	pl.Close()
	if !reflect.DeepEqual(in.Nodes, out.Nodes) || !reflect.DeepEqual(in.Waiting, out.Waiting) {
		t.Fatalf("the backends disagree:\ncgo    %v %v\nserver %v %v", in.Nodes, in.Waiting, out.Nodes, out.Waiting)
	}
}
