// Command bench measures place-one-group latency in-process (the cgo
// binding) and through `wasp serve` (the pure-Go client), and the
// server's throughput with several concurrent clients (bench/README.md,
// "The plugin API in-process and through wasp serve").
//
//	go run ./bench -wasp ../../src/cli/wasp -nodes 1000,5000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	wasp "wasp.dev/wasp"
	"wasp.dev/wasp/client"
)

type gang struct{ ns, name string }

// Both ways place with the same options: one thread per call (the
// server's default; concurrency comes from the clients), the default
// deadline of 100 ms.
var sameOptions = &client.Options{Threads: 1}

func main() {
	bin := flag.String("wasp", "wasp", "the wasp command (for `wasp serve`)")
	nodesList := flag.String("nodes", "1000,5000", "cluster sizes")
	gangs := flag.Int("gangs", 100, "pending gangs in each cluster")
	calls := flag.Int("calls", 200, "place calls per latency figure")
	clientsList := flag.String("clients", "1,4,16", "concurrent clients for throughput")
	secs := flag.Duration("for", 10*time.Second, "duration of each throughput figure")
	tput := flag.Int("throughput-nodes", 1000, "cluster size of the throughput figures")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "wasp-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range strings.Split(*nodesList, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			fail(err)
		}
		path, gs := generate(tmp, n, *gangs)
		inproc, inAdm := latencyInProcess(path, gs, *calls)
		srv := startServer(*bin, tmp, path)
		c, err := client.Dial(context.Background(), srv.sock)
		if err != nil {
			fail(err)
		}
		remote, srvAdm := latencyServer(c, gs, *calls)
		fmt.Printf("nodes %d: place in-process median %v p99 %v; through the server median %v p99 %v (%d calls each; gangs placed: %d and %d)\n",
			n, q(inproc, 0.5), q(inproc, 0.99), q(remote, 0.5), q(remote, 0.99), *calls, inAdm, srvAdm)
		if n == *tput {
			for _, f := range strings.Split(*clientsList, ",") {
				k, _ := strconv.Atoi(f)
				done, lat := throughput(srv.sock, gs, k, *secs)
				fmt.Printf("nodes %d: %d clients: %.1f place calls/s (latency median %v, p99 %v)\n",
					n, k, float64(done)/secs.Seconds(), q(lat, 0.5), q(lat, 0.99))
			}
		}
		c.Close()
		srv.stop()
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

// generate writes a cluster of n nodes and returns its pending gangs.
func generate(dir string, n, gangs int) (string, []gang) {
	text, err := wasp.Generate(map[string]string{"nodes": strconv.Itoa(n),
		"gangs": strconv.Itoa(gangs), "json": "1", "seed": "1"})
	if err != nil {
		fail(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("cluster-%d.json", n))
	if err := os.WriteFile(path, text, 0o600); err != nil {
		fail(err)
	}
	var l struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct{ Name, Namespace string }
		} `json:"items"`
	}
	if err := json.Unmarshal(text, &l); err != nil {
		fail(err)
	}
	var gs []gang
	for _, it := range l.Items {
		if it.Kind == "PodGroup" && strings.HasPrefix(it.Metadata.Name, "gang-") {
			gs = append(gs, gang{it.Metadata.Namespace, it.Metadata.Name})
		}
	}
	return path, gs
}

// latencyInProcess also returns how many calls placed their gang.
func latencyInProcess(path string, gs []gang, calls int) ([]time.Duration, int) {
	s, err := wasp.Load(path)
	if err != nil {
		fail(err)
	}
	defer s.Close()
	var out []time.Duration
	placed := 0
	for i := 0; i < calls; i++ {
		g := gs[i%len(gs)]
		t0 := time.Now()
		p, err := s.Place(context.Background(), wasp.Group{Namespace: g.ns, Name: g.name}, &wasp.Options{Threads: 1}, 0)
		out = append(out, time.Since(t0))
		if err != nil {
			fail(err)
		}
		if i < len(gs) { // every distinct plan is checked once
			if n, r, err := s.Check(p); err != nil || n != 0 {
				fail(fmt.Errorf("plan for %v: %d violations %v\n%s", g, n, err, r))
			}
		}
		if len(p.Placements()) > 0 {
			placed++
		}
		p.Close()
	}
	return out, placed
}

func latencyServer(c *client.Client, gs []gang, calls int) ([]time.Duration, int) {
	var out []time.Duration
	placed := 0
	for i := 0; i < calls; i++ {
		g := gs[i%len(gs)]
		t0 := time.Now()
		p, err := c.Place(context.Background(), client.Group{Namespace: g.ns, Name: g.name}, sameOptions, 0)
		out = append(out, time.Since(t0))
		if err != nil {
			fail(err)
		}
		if i < len(gs) {
			if r, err := c.Check(context.Background(), p); err != nil || r.Violations != 0 {
				fail(fmt.Errorf("plan for %v: %v %s", g, err, r.Report))
			}
		}
		if len(p.Doc.Placements) > 0 {
			placed++
		}
	}
	return out, placed
}

// throughput: k clients, each with its own connection, place in a loop.
func throughput(sock string, gs []gang, k int, d time.Duration) (int, []time.Duration) {
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	for w := 0; w < k; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := client.New(sock)
			defer c.Close()
			for i := w; time.Now().Before(stop); i += k {
				g := gs[i%len(gs)]
				t0 := time.Now()
				if _, err := c.Place(context.Background(), client.Group{Namespace: g.ns, Name: g.name}, sameOptions, 0); err != nil {
					fail(err)
				}
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	return len(lat), lat
}

type server struct {
	cmd  *exec.Cmd
	sock string
}

func startServer(bin, dir, path string) *server {
	sock := filepath.Join(dir, "wasp.sock")
	cmd := exec.Command(bin, "serve", "-q", "--socket", sock, path)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	for i := 0; i < 60000; i++ {
		if c, err := client.Dial(context.Background(), sock); err == nil {
			c.Close()
			return &server{cmd, sock}
		}
		time.Sleep(10 * time.Millisecond)
	}
	fail(fmt.Errorf("wasp serve did not start"))
	return nil
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		fail(fmt.Errorf("wasp serve: %v", err))
	}
}

func q(d []time.Duration, f float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(f*float64(len(s))+0.999999) - 1
	if k < 0 {
		k = 0
	}
	if k >= len(s) {
		k = len(s) - 1
	}
	return s[k].Round(10 * time.Microsecond)
}
