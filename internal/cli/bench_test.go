package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/store"
)

// TestBench runs the bench command small, embedded and against a real sqld:
// every operation is measured on both sides, and remote round trips are
// one per get and per commit, with the benchmark's rows removed after.
func TestBench(t *testing.T) {
	srv := sqldtest.Start(t)
	r := runMain(t, nil, "", []string{"bench", "--ops", "20", "--keys", "300", "--rounds", "1", "--remote", srv.URL, "--remote-keys", "50", "--load-rows", "120", "-o", "json"})
	if r.code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	type line struct {
		Target, Op        string
		Calls, Rows       int
		EngineOpsPerSec   float64
		RawOps            float64 `json:"rawOpsPerSec"`
		Ratio, RoundTrips float64
		FloorOpsPerSec    float64
		Requests          int64
		BytesSent         int64 `json:"bytesSent"`
		BytesReceived     int64 `json:"bytesReceived"`
		ServerWritten     int64 `json:"serverRowsWritten"`
	}
	got := map[string]line{}
	network := map[string]line{}
	for _, text := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var l line
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			t.Fatalf("bad line %q: %v", text, err)
		}
		if l.Target == "network" {
			network[l.Op] = l
			continue
		}
		if l.EngineOpsPerSec <= 0 || l.RawOps <= 0 || l.Ratio <= 0 {
			t.Errorf("%s %s: empty figures %+v", l.Target, l.Op, l)
		}
		got[l.Target+" "+l.Op] = l
	}
	if len(got) != 12 {
		t.Fatalf("want 5 operations on 2 targets, the census and the journaled sweep on the file, got %d: %s", len(got), r.stdout)
	}
	if _, ok := got["remote census"]; ok {
		t.Error("bench ran a whole-store census of the server (the user's store)")
	}
	for op, trips := range map[string]float64{"set": 1, "get": 1, "check+set": 2} {
		if l := got["remote "+op]; l.RoundTrips != trips {
			t.Errorf("remote %s: %.1f round trips per call, want %.0f", op, l.RoundTrips, trips)
		}
	}
	if got["embedded set"].FloorOpsPerSec <= 0 || got["remote set"].FloorOpsPerSec != 0 {
		t.Errorf("the autocommit floor is measured on the embedded file only: %+v %+v", got["embedded set"], got["remote set"])
	}
	if got["embedded list"].Rows != 300 || got["remote list"].Rows != 50 {
		t.Errorf("range sizes: %+v %+v", got["embedded list"], got["remote list"])
	}
	// The network section counts requests at a proxy: each command with
	// its open, each TUI screen's reads. A dump is the open, its NULL-key
	// rows and its keyset pages (one here).
	for op, max := range map[string]int64{"get (open + get)": 1, "set (open + set)": 1, "stats": 10, "doctor": 10, "sweep --dry-run": 10, "dump": 3, "load": 4,
		"tui: first frame (top level)": 2, "tui: expand the largest prefix": 1, "tui: Leases tab": 3, "tui: idle refresh tick": 1} {
		if l, ok := network[op]; !ok || l.Requests < 1 || l.Requests > max {
			t.Errorf("network %s: %+v, want 1..%d requests", op, l, max)
		}
	}
	// Each line says what the store's meter counted.
	if l := network["set (open + set)"]; l.BytesSent == 0 || l.BytesReceived == 0 || l.ServerWritten == 0 {
		t.Errorf("network set: %+v, want bytes each way and server rows written", l)
	}
	if l := network["load"]; l.Rows != 120 {
		t.Errorf("network load wrote %d rows, want 120", l.Rows)
	}
	s, err := store.Open(t.Context(), srv.URL, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st, err := s.Stats(t.Context(), 0); err != nil || st.Rows != 0 {
		t.Fatalf("bench left rows behind: %+v %v", st, err)
	}
	if r := runMain(t, nil, "", []string{"bench", "--ops", "0"}); r.code != 2 {
		t.Errorf("--ops 0: exit %d", r.code)
	}
}
