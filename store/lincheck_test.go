package store_test

// The linearizability check: several OS processes (the test binary re-run as
// TestLinWorker) do random get / set / delete / atomic-with-a-check on three
// keys of one store, each op stamped with wall-clock call and return times
// (comparable across processes on one machine), and write their histories as
// JSON lines; the parent merges them and asks porcupine whether some order
// of the ops, each taking effect between its call and its return, explains
// every answer under a model of the store.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// linKeys is the size of the key set: small, so that ops collide.
const linKeys = 3

// linOp is one op of a history, as a worker writes it (one JSON line).
type linOp struct {
	Client int    `json:"c"`
	Kind   string `json:"op"` // get, set, del, atomic
	Key    int    `json:"k"`
	Value  string `json:"v,omitempty"` // JSON text set (set, atomic's set)
	// Atomic only: the check on CheckKey (CheckStamp 0 = absent) and the
	// mutation on Key ("set" or "del").
	CheckKey   int    `json:"ck,omitempty"`
	CheckStamp int64  `json:"cs,omitempty"`
	Mut        string `json:"mt,omitempty"`
	Call       int64  `json:"call"`
	Return     int64  `json:"ret"`
	// The answer: Found/Got/Stamp for get, Stamp for set, OK/Stamp for
	// atomic. Unknown: a write whose outcome is unknown (an error or a
	// timeout); it may have taken effect at any time after its call.
	Found   bool   `json:"found,omitempty"`
	Got     string `json:"got,omitempty"`
	Stamp   int64  `json:"stamp,omitempty"`
	OK      bool   `json:"ok,omitempty"`
	Unknown bool   `json:"unknown,omitempty"`
	Err     string `json:"err,omitempty"`
}

// linState is the model's state: each key's value ("" = absent) and stamp,
// and seq, the newest stamp issued (every commit with a set that applies
// issues seq+1; a delete issues none).
type linState struct {
	vals   [linKeys]string
	stamps [linKeys]int64
	seq    int64
}

func linStep(s linState, op linOp) (bool, linState) {
	switch op.Kind {
	case "get":
		if op.Found != (s.vals[op.Key] != "") {
			return false, s
		}
		return !op.Found || (op.Got == s.vals[op.Key] && op.Stamp == s.stamps[op.Key]), s
	case "set":
		if !op.Unknown && op.Stamp != s.seq+1 {
			return false, s
		}
		s.seq++
		s.vals[op.Key], s.stamps[op.Key] = op.Value, s.seq
		return true, s
	case "del":
		s.vals[op.Key], s.stamps[op.Key] = "", 0
		return true, s
	case "atomic":
		pass := s.stamps[op.CheckKey] == op.CheckStamp // stamps[k] is 0 when absent
		if !op.Unknown && op.OK != pass {
			return false, s
		}
		if !pass {
			return true, s
		}
		if op.Mut == "del" {
			s.vals[op.Key], s.stamps[op.Key] = "", 0
			return true, s
		}
		if !op.Unknown && op.Stamp != s.seq+1 {
			return false, s
		}
		s.seq++
		s.vals[op.Key], s.stamps[op.Key] = op.Value, s.seq
		return true, s
	}
	return false, s
}

// linModel is the porcupine model of the store, starting at seq.
func linModel(seq int64) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return linState{seq: seq} },
		Step: func(state, input, _ any) (bool, any) {
			return linStep(state.(linState), input.(linOp))
		},
		Hash: func(state any) uint64 {
			s := state.(linState)
			h := fnv.New64a()
			for i := range s.vals {
				fmt.Fprintf(h, "%s|%d|", s.vals[i], s.stamps[i])
			}
			fmt.Fprintf(h, "%d", s.seq)
			return h.Sum64()
		},
		DescribeOperation: func(input, _ any) string { return input.(linOp).String() },
		DescribeState: func(state any) string {
			s := state.(linState)
			return fmt.Sprintf("%v %v seq=%d", s.vals, s.stamps, s.seq)
		},
	}
}

func (op linOp) String() string {
	var s string
	switch op.Kind {
	case "get":
		s = fmt.Sprintf("get(k%d) -> found=%v %s @%d", op.Key, op.Found, op.Got, op.Stamp)
	case "set":
		s = fmt.Sprintf("set(k%d, %s) -> @%d", op.Key, op.Value, op.Stamp)
	case "del":
		s = fmt.Sprintf("del(k%d)", op.Key)
	default:
		s = fmt.Sprintf("atomic(check k%d@%d; %s k%d %s) -> ok=%v @%d", op.CheckKey, op.CheckStamp, op.Mut, op.Key, op.Value, op.OK, op.Stamp)
	}
	if op.Unknown {
		s += " (unknown: " + op.Err + ")"
	}
	return s
}

// linOperations turns merged histories into porcupine's operations: a write
// of unknown outcome returns at the end of time (it may take effect
// anywhere after its call, or never: last); a read that failed is dropped.
func linOperations(ops []linOp) []porcupine.Operation {
	out := make([]porcupine.Operation, 0, len(ops))
	for _, op := range ops {
		ret := op.Return
		if op.Unknown {
			if op.Kind == "get" {
				continue
			}
			ret = math.MaxInt64
		}
		out = append(out, porcupine.Operation{ClientId: op.Client, Input: op, Call: op.Call, Output: nil, Return: ret})
	}
	return out
}

// linConfig is one run: procs processes of clients goroutines each, doing
// ops ops each or ops for dur, whichever ends first (the checker's time
// grows faster than the history's length, so the length is bounded), the
// check given up to checkTimeout.
type linConfig struct {
	procs, clients, ops int
	dur                 time.Duration
	checkTimeout        time.Duration
}

// runLinearizability runs cfg against a fresh store of each of the file,
// HTTP and WS backends and checks the merged history.
func runLinearizability(t *testing.T, cfg linConfig) { //nolint:thelper // a test body shared by the short and the large run: failures point into it
	seed := time.Now().UnixNano()
	if v := os.Getenv("KVDECK_LIN_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("KVDECK_LIN_SEED: %v", err)
		}
	}
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		seq, err := s.Seq(storetest.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var cmds []*exec.Cmd
		for p := 0; p < cfg.procs; p++ {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLinWorker$")
			cmd.Env = append(os.Environ(), "KVDECK_LIN_URL="+url,
				"KVDECK_LIN_OUT="+filepath.Join(dir, fmt.Sprintf("h%d.jsonl", p)),
				"KVDECK_LIN_WORKER="+strconv.Itoa(p),
				"KVDECK_LIN_CLIENTS="+strconv.Itoa(cfg.clients),
				"KVDECK_LIN_OPS="+strconv.Itoa(cfg.ops),
				"KVDECK_LIN_SEED="+strconv.FormatInt(seed, 10),
				"KVDECK_LIN_DURATION="+cfg.dur.String())
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		for p, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("worker %d (seed %d): %v", p, seed, err)
			}
		}
		var ops []linOp
		for p := 0; p < cfg.procs; p++ {
			h, err := readHistory(filepath.Join(dir, fmt.Sprintf("h%d.jsonl", p)))
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, h...)
		}
		counts := map[string]int{}
		unknown, passed := 0, 0
		for _, op := range ops {
			counts[op.Kind]++
			if op.Unknown {
				unknown++
				t.Logf("unknown: %s", op)
			}
			if op.Kind == "atomic" && op.OK {
				passed++
			}
		}
		if len(ops)-unknown < cfg.procs*cfg.clients {
			t.Fatalf("seed %d: only %d of %d ops answered", seed, len(ops)-unknown, len(ops))
		}
		model := linModel(seq)
		start := time.Now()
		res, info := porcupine.CheckOperationsVerbose(model, linOperations(ops), cfg.checkTimeout)
		took := time.Since(start)
		t.Logf("seed %d: %d ops (get %d, set %d, del %d, atomic %d of which %d passed their check; %d unknown) from %d processes x %d clients; checked in %v: %s",
			seed, len(ops), counts["get"], counts["set"], counts["del"], counts["atomic"], passed, unknown, cfg.procs, cfg.clients, took.Round(time.Millisecond), res)
		switch res {
		case porcupine.Ok:
		case porcupine.Illegal:
			out := filepath.Join(os.TempDir(), fmt.Sprintf("kvdeck-lin-%s-%d.html", b.Name, seed))
			if err := porcupine.VisualizePath(model, info, out); err != nil {
				t.Logf("visualization: %v", err)
			}
			t.Fatalf("history is not linearizable (seed %d, rerun with KVDECK_LIN_SEED=%d); see %s", seed, seed, out)
		default:
			t.Fatalf("checker gave up after %v on %d ops (seed %d): history too large for the budget", cfg.checkTimeout, len(ops), seed)
		}
	})
}

func readHistory(path string) ([]linOp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ops []linOp
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var op linOp
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		ops = append(ops, op)
	}
	return ops, sc.Err()
}

// TestLinearizability is the short run of the suite: at most 2 s and 2400
// ops per transport.
func TestLinearizability(t *testing.T) {
	runLinearizability(t, linConfig{procs: 3, clients: 2, ops: 400, dur: 2 * time.Second, checkTimeout: time.Minute})
}

// TestLinWorker is one worker process of the check; it does nothing unless
// started by runLinearizability.
func TestLinWorker(t *testing.T) {
	url := os.Getenv("KVDECK_LIN_URL")
	if url == "" {
		t.Skip("a worker process of TestLinearizability")
	}
	worker, _ := strconv.Atoi(os.Getenv("KVDECK_LIN_WORKER"))
	clients, _ := strconv.Atoi(os.Getenv("KVDECK_LIN_CLIENTS"))
	maxOps, _ := strconv.Atoi(os.Getenv("KVDECK_LIN_OPS"))
	seed, _ := strconv.ParseInt(os.Getenv("KVDECK_LIN_SEED"), 10, 64)
	dur, err := time.ParseDuration(os.Getenv("KVDECK_LIN_DURATION"))
	if err != nil {
		t.Fatal(err)
	}
	// The clients stop starting operations at dur; the context only
	// bounds one that hangs. (It used to end with dur itself, so every
	// run ended with operations cut by it: up to 30 of unknown outcome,
	// which made the checker's search blow past its budget in a CI run.)
	ctx, cancel := context.WithTimeout(context.Background(), dur+time.Minute)
	defer cancel()
	s, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := os.Create(os.Getenv("KVDECK_LIN_OUT"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	end := time.Now().Add(dur)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		id := worker*clients + c
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed + int64(id)))
			l := linClient{s: s, id: id, rng: rng}
			for i := 0; i < maxOps && time.Now().Before(end); i++ {
				op := l.do(i)
				mu.Lock()
				err := enc.Encode(op)
				mu.Unlock()
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// linClient is one client of a worker: it remembers the stamps it saw, so
// that its checks often hold.
type linClient struct {
	s    *store.Store
	id   int
	rng  *rand.Rand
	seen [linKeys]int64
}

func linKey(k int) codec.Key { return codec.Key{codec.String("lin"), codec.Number(float64(k))} }

// do runs op number i, chosen by the client's rng, and records it.
func (l *linClient) do(i int) linOp {
	op := linOp{Client: l.id, Key: l.rng.Intn(linKeys), Value: fmt.Sprintf(`"c%d-%d"`, l.id, i)}
	// Long enough to ride out a stall of a loaded machine: a CI run cut
	// 24 operations at 10 s in one stall near the end, and each unknown
	// outcome blows up the checker's search (the worker's own context
	// still bounds an operation that hangs).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	switch r := l.rng.Intn(100); {
	case r < 35:
		op.Kind, op.Value = "get", ""
		var e store.Entry
		op.Call = time.Now().UnixNano()
		e, op.Found, err = l.s.Get(ctx, linKey(op.Key))
		op.Return = time.Now().UnixNano()
		if op.Found {
			op.Got, op.Stamp = string(e.Value), e.Ver
			l.seen[op.Key] = e.Ver
		}
	case r < 60:
		op.Kind = "set"
		var stamp string
		op.Call = time.Now().UnixNano()
		stamp, err = l.s.Set(ctx, linKey(op.Key), []byte(op.Value), nil)
		op.Return = time.Now().UnixNano()
		if err == nil {
			op.Stamp, err = codec.ParseStamp(stamp)
		}
	case r < 70:
		op.Kind, op.Value = "del", ""
		op.Call = time.Now().UnixNano()
		err = l.s.Delete(ctx, linKey(op.Key))
		op.Return = time.Now().UnixNano()
	default:
		op.Kind, op.Mut, op.CheckKey = "atomic", "set", l.rng.Intn(linKeys)
		switch c := l.rng.Intn(4); {
		case c < 2:
			op.CheckStamp = l.seen[op.CheckKey]
		case c == 2:
			op.CheckStamp = 0
		default:
			op.CheckStamp = l.rng.Int63n(l.seen[op.CheckKey] + 2)
		}
		check := ""
		if op.CheckStamp != 0 {
			check = codec.FormatStamp(op.CheckStamp)
		}
		a := l.s.Atomic().Check(linKey(op.CheckKey), check)
		if l.rng.Intn(5) == 0 {
			op.Mut, op.Value = "del", ""
			a.Delete(linKey(op.Key))
		} else {
			a.Set(linKey(op.Key), []byte(op.Value))
		}
		var res store.CommitResult
		op.Call = time.Now().UnixNano()
		res, err = a.Commit(ctx)
		op.Return = time.Now().UnixNano()
		op.OK = res.OK
		if err == nil && res.Versionstamp != "" {
			op.Stamp, err = codec.ParseStamp(res.Versionstamp)
		}
	}
	if err != nil {
		// Any failed op is unknown: a read is then dropped, a write may
		// have taken effect. ErrOutcomeUnknown is the expected case.
		op.Unknown, op.Err = true, err.Error()
		if !errors.Is(err, store.ErrOutcomeUnknown) {
			op.Err = "unexpected: " + op.Err
		}
	}
	return op
}

// TestLinearizabilityCheckerFails: the checker, fed hand-made histories
// that no order explains, rejects them, and accepts their concurrent twins.
func TestLinearizabilityCheckerFails(t *testing.T) {
	set := func(c, k int, v string, stamp, call, ret int64) linOp {
		return linOp{Client: c, Kind: "set", Key: k, Value: v, Stamp: stamp, Call: call, Return: ret}
	}
	get := func(c, k int, v string, stamp, call, ret int64) linOp {
		return linOp{Client: c, Kind: "get", Key: k, Found: v != "", Got: v, Stamp: stamp, Call: call, Return: ret}
	}
	cases := []struct {
		name string
		ops  []linOp
		want porcupine.CheckResult
	}{
		{"stale read", []linOp{set(0, 0, `"a"`, 1, 0, 10), set(0, 0, `"b"`, 2, 20, 30), get(1, 0, `"a"`, 1, 40, 50)}, porcupine.Illegal},
		{"read concurrent with the overwrite", []linOp{set(0, 0, `"a"`, 1, 0, 10), set(0, 0, `"b"`, 2, 20, 30), get(1, 0, `"a"`, 1, 25, 50)}, porcupine.Ok},
		{"stamp went back", []linOp{set(0, 0, `"a"`, 2, 0, 10), set(1, 1, `"b"`, 1, 20, 30)}, porcupine.Illegal},
		{"stamps in real-time order", []linOp{set(0, 0, `"a"`, 1, 0, 10), set(1, 1, `"b"`, 2, 20, 30)}, porcupine.Ok},
		{"check passed on a stale stamp", []linOp{
			set(0, 0, `"a"`, 1, 0, 10), set(0, 0, `"b"`, 2, 20, 30),
			{Client: 1, Kind: "atomic", CheckKey: 0, CheckStamp: 1, Mut: "set", Key: 1, Value: `"x"`, OK: true, Stamp: 3, Call: 40, Return: 50},
		}, porcupine.Illegal},
		{"read of a write that failed its check", []linOp{
			{Client: 1, Kind: "atomic", CheckKey: 0, CheckStamp: 7, Mut: "set", Key: 1, Value: `"x"`, Call: 0, Return: 10},
			get(0, 1, `"x"`, 1, 20, 30),
		}, porcupine.Illegal},
		{"read of a write of unknown outcome", []linOp{
			{Client: 1, Kind: "set", Key: 1, Value: `"x"`, Unknown: true, Call: 0, Return: 10},
			get(0, 1, `"x"`, 1, 20, 30),
		}, porcupine.Ok},
	}
	for _, c := range cases {
		if got := porcupine.CheckOperationsTimeout(linModel(0), linOperations(c.ops), 10*time.Second); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
