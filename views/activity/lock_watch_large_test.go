//go:build largedata

package activity

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestWatchAndActivityBesideReferenceWriterLarge: on a
// rollback-journal store of 100k rows without an index on ver, a
// reference-shaped writer (no busy timeout, the file's journal left as it
// is) commits every 50 ms while `kvdeck watch` of the 100k-row prefix runs
// in a process of its own (polling every 250 ms) and the Activity tab is
// refreshed every second in this one: no commit may be lost. The reads of
// the feed and of Version go without SQLite's locks, validated
// (store/lockfree.go). Before: 1-2% of the commits lost beside either
// reader (each holds SHARED for a moment per read; the reference's commit
// fails at once when it meets one), 13-82% before the feed was reworked.
func TestWatchAndActivityBesideReferenceWriterLarge(t *testing.T) {
	const rows = 100_000
	dir := t.TempDir()
	path := filepath.Join(dir, "kv.db")
	storetest.SeedRollbackJournal(t, path, rows)
	bin := filepath.Join(dir, "kvdeck")
	if out, err := exec.Command("go", "build", "-o", bin, "kvdeck").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	clock := viewtest.FixedClock()
	s := storetest.Open(t, path, store.Options{Clock: clock.Now})
	h := newActivityHarness(t, s, clock, 120, 40, realPace)
	h.Parked = func(m Model) int {
		if !m.loading && (m.f.c.Pending()) {
			return 1
		}
		return 0
	}
	// The watch starts (its first read of the prefix) before the writer.
	watch := exec.Command(bin, "--db", path, "watch", `["bulk"]`, "--interval", "250ms")
	watch.Env = append(os.Environ(), "NO_COLOR=1")
	var out storetest.Buffer
	var errb storetest.Buffer
	watch.Stdout, watch.Stderr = &out, &errb
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer watch.Process.Kill()
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(errb.String(), "watching"); {
		if time.Now().After(deadline) {
			t.Fatalf("watch did not start: %s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	w := storetest.StartRefWriter(t, path, 50*time.Millisecond, storetest.RefMix(rows))
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		time.Sleep(time.Second)
		h.Refresh()
		if h.M.err != nil {
			t.Fatal(h.M.err)
		}
	}
	commits, lost := w.Stop()
	time.Sleep(2 * time.Second) // the watch's last polls
	watch.Process.Signal(os.Interrupt)
	watch.Wait()
	sets := strings.Count(out.String(), `"change":"set"`)
	t.Logf("writer: %d commits, %d lost; watch: %d sets printed; activity: %d events; lock-free reads in this process: %+v", commits, len(lost), sets, len(h.M.f.events), s.LockFreeCounts())
	if len(lost) > 0 {
		t.Errorf("%d of %d commits lost beside watch and the Activity tab: %q", len(lost), commits, lost)
	}
	if want := commits / 3; sets < want-1 {
		t.Errorf("watch printed %d sets under the prefix, want about %d\nstderr: %s", sets, want, errb.String())
	}
	if len(h.M.f.events) < commits/2 {
		t.Errorf("the Activity tab holds %d events for %d commits", len(h.M.f.events), commits)
	}
}
