// Package client talks to `wasp serve` (doc/serve.md) over its
// Unix-domain socket: newline-delimited JSON, protocol version 1.
//
// It is pure Go (standard library, no cgo), so a scheduler built with
// CGO_ENABLED=0 can use wasp without linking it.  A Client is safe for
// concurrent use: it keeps a small pool of connections, one request in
// flight on each.
package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Protocol is the protocol version this package speaks.
const Protocol = 1

// MaxIdle is how many idle connections a Client keeps for reuse.
const MaxIdle = 16

// Error is an error answered by the server.  Code is the server's name
// for it ("EINPUT", "ENOTFOUND", "ELIMIT", ...); File, Line and Col
// (1-based) locate bad input when there is a position ("request" for the
// request line itself, "put[2]" for the third manifest of a delta).
type Error struct {
	Code    string `json:"code"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message)
	}
	return e.Message
}

// Is matches a bare *Error of the same code: errors.Is(err,
// client.ErrNotFound).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.File == "" && t.Message == "" && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrInput    = &Error{Code: "EINPUT"}
	ErrInvalid  = &Error{Code: "EINVAL"}
	ErrLimit    = &Error{Code: "ELIMIT"}
	ErrNotFound = &Error{Code: "ENOTFOUND"}
)

// Client is a connection pool to one server.
type Client struct {
	path   string
	mu     sync.Mutex
	idle   []*conn
	closed bool
	nextID uint64
}

type conn struct {
	c net.Conn
	r *bufio.Reader
}

// New returns a client of the server at socket path; it connects on
// first use.
func New(path string) *Client { return &Client{path: path} }

// Dial returns a client after checking that the server answers health.
func Dial(ctx context.Context, path string) (*Client, error) {
	c := New(path)
	if _, err := c.Health(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the idle connections; calls in flight finish.
func (c *Client) Close() error {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.closed = true
	c.mu.Unlock()
	for _, k := range idle {
		k.c.Close()
	}
	return nil
}

func (c *Client) get(ctx context.Context) (*conn, error) {
	c.mu.Lock()
	if n := len(c.idle); n > 0 {
		k := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return k, nil
	}
	c.mu.Unlock()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", c.path)
	if err != nil {
		return nil, err
	}
	return &conn{c: nc, r: bufio.NewReaderSize(nc, 1<<16)}, nil
}

func (c *Client) put(k *conn) {
	c.mu.Lock()
	if !c.closed && len(c.idle) < MaxIdle {
		c.idle = append(c.idle, k)
		k = nil
	}
	c.mu.Unlock()
	if k != nil {
		k.c.Close()
	}
}

type request struct {
	V          int               `json:"v"`
	ID         uint64            `json:"id"`
	Op         string            `json:"op"`
	Kind       string            `json:"kind,omitempty"`
	Namespace  string            `json:"namespace,omitempty"`
	Name       string            `json:"name,omitempty"`
	DeadlineMs int64             `json:"deadlineMs,omitempty"`
	Options    *Options          `json:"options,omitempty"`
	Put        []json.RawMessage `json:"put,omitempty"`
	Delete     []Ref             `json:"delete,omitempty"`
	Plan       json.RawMessage   `json:"plan,omitempty"`
}

type response struct {
	V      int             `json:"v"`
	ID     uint64          `json:"id"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// call sends one request and decodes the result into out.  ctx's
// deadline becomes the connection's; when ctx ends the connection is
// closed (the server then drops the answer).
func (c *Client) call(ctx context.Context, req *request, out interface{}) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req.V = Protocol
	req.ID = atomic.AddUint64(&c.nextID, 1)
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	k, err := c.get(ctx)
	if err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok {
		k.c.SetDeadline(d)
	} else {
		k.c.SetDeadline(time.Time{})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if ctx.Done() != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-ctx.Done():
				k.c.SetDeadline(time.Unix(1, 0))
			case <-stop:
			}
		}()
	}
	var resp response
	_, err = k.c.Write(line)
	var text []byte
	if err == nil {
		text, err = k.r.ReadBytes('\n')
	}
	close(stop)
	wg.Wait()
	if err != nil {
		k.c.Close()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	if err := json.Unmarshal(text, &resp); err != nil {
		k.c.Close()
		return fmt.Errorf("wasp serve: bad response: %w", err)
	}
	if resp.ID != req.ID && resp.ID != 0 {
		k.c.Close()
		return fmt.Errorf("wasp serve: response %d to request %d", resp.ID, req.ID)
	}
	c.put(k)
	if !resp.OK {
		if resp.Error == nil {
			return errors.New("wasp serve: error without a message")
		}
		return resp.Error
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(resp.Result, out)
}

// ---------------------------------------------------------------- calls

// Health is the answer of the health operation.
type Health struct {
	Status          string `json:"status"` // "serving" or "draining"
	Protocol        int    `json:"protocol"`
	Version         string `json:"version"`
	SnapshotVersion int64  `json:"snapshotVersion"`
}

// Health asks whether the server serves, and at which snapshot version.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	err := c.call(ctx, &request{Op: "health"}, &h)
	return h, err
}

// Stats are the held snapshot's counts and the server's counters.
type Stats struct {
	SnapshotVersion int64   `json:"snapshotVersion"`
	Nodes           int     `json:"nodes"`
	Pods            int     `json:"pods"`
	PodsPending     int     `json:"podsPending"`
	PodsBound       int     `json:"podsBound"`
	Groups          int     `json:"groups"`
	Resources       int     `json:"resources"`
	Warnings        int     `json:"warnings"`
	Requests        int64   `json:"requests"`
	Errors          int64   `json:"errors"`
	Clients         int     `json:"clients"`
	ClientsTotal    int64   `json:"clientsTotal"`
	Uptime          float64 `json:"uptime"`
	Journal         string  `json:"journal"`
}

// Stats reads the server's counts.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := c.call(ctx, &request{Op: "stats"}, &s)
	return s, err
}

// Ref names an object to delete.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Delta is a batch of changes: objects to add or replace (Kubernetes
// objects as JSON, or manifest text as a JSON string), then objects to
// delete.
type Delta struct {
	Put    []json.RawMessage
	Delete []Ref
}

// PutObject adds an object (anything encoding/json turns into one
// Kubernetes object, e.g. a json.RawMessage).
func (d *Delta) PutObject(obj interface{}) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	d.Put = append(d.Put, b)
	return nil
}

// PutText adds manifest text (YAML or JSON; one or many objects).
func (d *Delta) PutText(text string) {
	b, _ := json.Marshal(text)
	d.Put = append(d.Put, b)
}

// DeleteObject removes an object by kind, namespace and name.
func (d *Delta) DeleteObject(kind, namespace, name string) {
	d.Delete = append(d.Delete, Ref{kind, namespace, name})
}

type versionResult struct {
	SnapshotVersion int64 `json:"snapshotVersion"`
}

// Apply applies the delta to the held snapshot; the new version.
func (c *Client) Apply(ctx context.Context, d *Delta) (int64, error) {
	var r versionResult
	err := c.call(ctx, &request{Op: "delta", Put: d.Put, Delete: d.Delete}, &r)
	return r.SnapshotVersion, err
}

// Group names what to place or forget: Kind "PodGroup" (the default),
// "Workload" or "CompositePodGroup".
type Group struct {
	Kind      string
	Namespace string
	Name      string
}

// Options of a run; zero fields take the server's defaults.
type Options struct {
	Mode      string  `json:"mode,omitempty"`      // auto, greedy, ilp
	TimeLimit float64 `json:"timeLimit,omitempty"` // seconds
	Gap       float64 `json:"gap,omitempty"`
	Threads   int     `json:"threads,omitempty"`
	Domain    string  `json:"domain,omitempty"` // value, path
	Value     string  `json:"value,omitempty"`  // resource to count work in
	Rebalance bool    `json:"rebalance,omitempty"`
	MaxMoves  int     `json:"maxMoves,omitempty"`
	Protect   string  `json:"protect,omitempty"`
	NodeModel bool    `json:"nodeModel,omitempty"`
	WorkLimit int64   `json:"workLimit,omitempty"`
}

type planResult struct {
	SnapshotVersion int64           `json:"snapshotVersion"`
	Plan            json.RawMessage `json:"plan"`
}

func newPlan(r planResult) (*Plan, error) {
	p := &Plan{SnapshotVersion: r.SnapshotVersion, Raw: r.Plan}
	if err := json.Unmarshal(r.Plan, &p.Doc); err != nil {
		return nil, fmt.Errorf("wasp serve: bad plan: %w", err)
	}
	return p, nil
}

// Place places one group on the held snapshot as it is (doc/serve.md,
// "place").  deadline bounds the search (0: the server's default,
// 100 ms), and so does ctx's deadline.
func (c *Client) Place(ctx context.Context, g Group, o *Options, deadline time.Duration) (*Plan, error) {
	if d, ok := ctx.Deadline(); ok {
		// leave the answer time to come back
		left := time.Until(d) * 9 / 10
		if left < time.Millisecond {
			left = time.Millisecond
		}
		if deadline <= 0 || left < deadline {
			deadline = left
		}
	}
	ms := int64(deadline / time.Millisecond)
	if deadline > 0 && ms == 0 {
		ms = 1
	}
	var r planResult
	err := c.call(ctx, &request{Op: "place", Kind: g.Kind,
		Namespace: g.Namespace, Name: g.Name, DeadlineMs: ms,
		Options: o}, &r)
	if err != nil {
		return nil, err
	}
	return newPlan(r)
}

// Solve places every pending group of the held snapshot.
func (c *Client) Solve(ctx context.Context, o *Options) (*Plan, error) {
	var r planResult
	if err := c.call(ctx, &request{Op: "solve", Options: o}, &r); err != nil {
		return nil, err
	}
	return newPlan(r)
}

// Assume makes the plan's placements count as bound in the held snapshot
// until forgotten or confirmed by a delta; the new version.
func (c *Client) Assume(ctx context.Context, p *Plan) (int64, error) {
	var r versionResult
	err := c.call(ctx, &request{Op: "assume", Plan: p.Raw}, &r)
	return r.SnapshotVersion, err
}

// Forget drops the assumptions made for a group; the new version.
func (c *Client) Forget(ctx context.Context, g Group) (int64, error) {
	var r versionResult
	err := c.call(ctx, &request{Op: "forget", Kind: g.Kind,
		Namespace: g.Namespace, Name: g.Name}, &r)
	return r.SnapshotVersion, err
}

// CheckResult is the verifier's answer.
type CheckResult struct {
	SnapshotVersion int64  `json:"snapshotVersion"`
	Violations      int    `json:"violations"`
	Report          string `json:"report"` // one line per violation
}

// Check verifies a plan against the held snapshot, independently of the
// solvers.  Check a plan before assuming it: once assumed, its pods are
// no longer pending.
func (c *Client) Check(ctx context.Context, p *Plan) (CheckResult, error) {
	var r CheckResult
	err := c.call(ctx, &request{Op: "check", Plan: p.Raw}, &r)
	return r, err
}
