//go:build largedata

package store_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestLargeSweepNeighbourLatency measures (for the closing note, not as a
// goal) how a sweep of 1 000 000 expired rows on an embedded file affects
// another process committing single sets to the same file meanwhile: the
// neighbour is this test binary re-executed, on its own connection.
func TestLargeSweepNeighbourLatency(t *testing.T) {
	if path := os.Getenv("KVDECK_NEIGHBOUR_DB"); path != "" {
		neighbour(t, path)
		return
	}
	const rows = 1_000_000
	path := filepath.Join(t.TempDir(), "sweep.db")
	s, err := store.Open(context.Background(), path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	storetest.SeedExpired(t, s, "tmp", rows)
	t.Logf("seeded %d expired rows in %s", rows, time.Since(start).Round(time.Millisecond))

	out := filepath.Join(t.TempDir(), "latencies")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLargeSweepNeighbourLatency$", "-test.timeout", "30m")
	cmd.Env = append(os.Environ(), "KVDECK_NEIGHBOUR_DB="+path, "KVDECK_NEIGHBOUR_OUT="+out)
	stop, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the neighbour is committing before the sweep starts
	res, err := s.Sweep(context.Background(), store.SweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	stop.Close() // the neighbour stops at EOF on its stdin
	if err := cmd.Wait(); err != nil {
		t.Fatalf("neighbour: %v", err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var lat []time.Duration
	for _, f := range strings.Fields(string(raw)) {
		ns, _ := strconv.ParseInt(f, 10, 64)
		lat = append(lat, time.Duration(ns))
	}
	slices.Sort(lat)
	if len(lat) == 0 {
		t.Fatal("the neighbour committed nothing")
	}
	pct := func(p float64) time.Duration { return lat[min(int(p*float64(len(lat))), len(lat)-1)] }
	t.Logf("sweep: %d rows in %s, %d batches, %d left", res.Swept, res.Elapsed.Round(time.Millisecond), res.Batches, res.Remaining)
	t.Logf("neighbour: %d commits; latency p50 %s, p99 %s, max %s", len(lat), pct(0.5), pct(0.99), lat[len(lat)-1])
	if res.Swept != rows || res.Remaining != 0 {
		t.Errorf("swept %d of %d, %d left", res.Swept, rows, res.Remaining)
	}
	// The bound that matters is the busy timeout (5 s): past it the
	// neighbour's commit would fail with SQLITE_BUSY. The figures above
	// are the measurement.
	if lat[len(lat)-1] > store.DefaultBusyTimeout {
		t.Errorf("the neighbour waited %s for one commit", lat[len(lat)-1])
	}
}

// neighbour commits single sets to path until its stdin closes, then
// writes every commit's latency (ns) to KVDECK_NEIGHBOUR_OUT.
func neighbour(t *testing.T, path string) {
	t.Helper()
	s, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var done atomic.Bool
	go func() {
		buf := make([]byte, 1)
		os.Stdin.Read(buf)
		done.Store(true)
	}()
	var lines []byte
	for i := 0; !done.Load(); i++ {
		k := codec.Key{codec.String("neighbour"), codec.Number(float64(i % 100))}
		t0 := time.Now()
		if _, err := s.Set(context.Background(), k, []byte(strconv.Itoa(i)), nil); err != nil {
			t.Fatalf("neighbour commit %d: %v", i, err)
		}
		lines = strconv.AppendInt(lines, int64(time.Since(t0)), 10)
		lines = append(lines, '\n')
		time.Sleep(2 * time.Millisecond)
	}
	if err := os.WriteFile(os.Getenv("KVDECK_NEIGHBOUR_OUT"), lines, 0o644); err != nil {
		t.Fatal(err)
	}
}
