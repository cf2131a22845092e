// Command example is a gang-scheduling plugin's call pattern against
// wasp, run once in-process (the cgo binding) and once against `wasp
// serve` (the pure-Go client).  See README.md: the scheduling framework
// is mimicked, not linked.
//
//	wasp gen --nodes 5000 --gangs 200 --json -o cluster.json
//	go run ./example -backend cgo cluster.json
//	wasp serve --socket /tmp/w.sock &
//	go run ./example -backend server -socket /tmp/w.sock cluster.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	wasp "wasp.dev/wasp"
	"wasp.dev/wasp/client"
)

func main() {
	backend := flag.String("backend", "cgo", "cgo (in-process) or server")
	sock := flag.String("socket", "", "the socket of `wasp serve` (backend server)")
	batch := flag.Int("batch", 500, "objects per informer event batch")
	deadline := flag.Duration("deadline", 100*time.Millisecond, "deadline of one place call (PreFilter's budget)")
	work := flag.Int64("work-limit", 0, "> 0: a work budget per place call (plans independent of the clock)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: example [-backend cgo|server] [-socket PATH] CLUSTER.json\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	list, err := ReadList(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	pl, err := NewPlanner(ctx, *backend, *sock, *deadline, *work)
	if err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(2)
	}
	defer pl.Close()
	t0 := time.Now()
	rep, err := Run(ctx, pl, list, *batch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
	fmt.Printf("backend %s: %d events in %d deltas, %d gangs: %d admitted and bound (%d pods), %s\n",
		*backend, rep.Events, rep.Deltas, rep.Gangs, rep.Admitted, rep.PodsBound, time.Since(t0).Round(time.Millisecond))
	fmt.Printf("place: %d calls, median %v, p99 %v\n", len(rep.PlaceTimes),
		Quantile(rep.PlaceTimes, 0.5).Round(time.Microsecond), Quantile(rep.PlaceTimes, 0.99).Round(time.Microsecond))
	for _, t := range []struct {
		what string
		d    []time.Duration
	}{{"apply", rep.ApplyTimes}, {"check", rep.CheckTimes}, {"assume", rep.AssumeTimes}} {
		var sum time.Duration
		for _, d := range t.d {
			sum += d
		}
		fmt.Printf("%s: %d calls, median %v, p99 %v, total %v\n", t.what, len(t.d),
			Quantile(t.d, 0.5).Round(time.Microsecond), Quantile(t.d, 0.99).Round(time.Microsecond),
			sum.Round(time.Millisecond))
	}
	fmt.Printf("pods bound in the cache: %d before, %d after\n", rep.BoundBefore, rep.BoundAt)
	var reasons []string
	for r := range rep.Waiting {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Printf("waiting: %d gangs: %s\n", rep.Waiting[r], r)
	}
	if rep.BoundAt != rep.BoundBefore+rep.PodsBound {
		fmt.Fprintln(os.Stderr, "example: the cache does not count the bound pods once each")
		os.Exit(1)
	}
}

// ReadList reads a `kind: List` in JSON (as `wasp gen --json` writes it).
func ReadList(path string) ([]json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l.Items, nil
}

// NewPlanner makes the backend.
func NewPlanner(ctx context.Context, backend, sock string, deadline time.Duration, work int64) (Planner, error) {
	switch backend {
	case "cgo":
		// one thread per call, as `wasp serve` defaults to: a scheduler
		// calls from many goroutines, and OpenMP teams on a busy machine
		// cost more than they give (bench/README.md)
		return newCgoPlanner(&wasp.Options{WorkLimit: work, Threads: 1}, deadline)
	case "server":
		if sock == "" {
			return nil, fmt.Errorf("backend server needs -socket")
		}
		return newServerPlanner(ctx, sock, &client.Options{WorkLimit: work}, deadline)
	}
	return nil, fmt.Errorf("unknown backend %q (cgo or server)", backend)
}
