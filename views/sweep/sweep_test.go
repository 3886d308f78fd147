package sweep

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

func newSweepHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, path string) *viewtest.Harness[Model] {
	t.Helper()
	h := viewtest.Start[Model, *Model](t, s, clock, 120, 40-3, New, viewtest.Reopen(path, clock))
	return h
}

// TestSweepGolden: the census of the reference store (its expired rows
// by prefix), a dry run of one prefix, the receipt of its sweep, and the
// census with the clock moved 10 minutes on.
func TestSweepGolden(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := newSweepHarness(t, s, clock, path)
	t.Run("census", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	target := -1
	for i, sc := range h.M.census.scopes {
		if i > 0 && sc.expired > 0 && !sc.undecodable {
			target = i
			break
		}
	}
	if target < 0 {
		t.Fatalf("the reference store has no prefix with expired rows: %+v", h.M.census.scopes)
	}
	for h.M.cursor < target {
		h.Keys("j")
	}
	h.Keys("enter")
	h.M.receipt.res.Elapsed = 0 // wall time: not for a golden
	t.Run("dryrun", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("d")
	if !strings.Contains(strings.Join(h.Confirms[0].Lines, " "), scopeName(h.M.census.scopes[h.M.cursor])) {
		t.Fatalf("the confirmation does not name the prefix: %q", h.Confirms[0].Lines)
	}
	h.M.receipt = nil
	clock.Fix(storetest.T0) // the dry run took wall time; the golden must not
	h.Confirm()
	h.M.receipt.res.Elapsed = 0 // wall time: not for a golden
	t.Run("receipt", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	clock.Advance(10 * time.Minute)
	v, cmd := h.M.Refresh()
	h.M = v
	h.Settle(cmd)
	t.Run("clock+10m", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
}

// TestSweepReadOnly: dry runs work, sweeping is refused and left out of help.
func TestSweepReadOnly(t *testing.T) {
	s, clock, path := viewtest.Reference(t, true)
	h := newSweepHarness(t, s, clock, path)
	h.Keys("enter")
	if h.M.receipt == nil || !h.M.receipt.dryRun || h.M.receipt.res.Swept == 0 {
		t.Fatalf("dry run in read-only mode: %+v", h.M.receipt)
	}
	h.Keys("d")
	if len(h.Confirms) > 0 || !strings.Contains(h.LastFlash(), "read-only") {
		t.Fatalf("d in read-only mode: confirms %d, flash %q", len(h.Confirms), h.LastFlash())
	}
	for _, b := range h.M.ShortHelp() {
		if b.Enabled() && b.Help().Key == "d" {
			t.Error("help offers d in read-only mode")
		}
	}
}

// TestSweepProgressAndCancel sweeps 5000 expired rows in batches of 100,
// cancels halfway, and checks the receipt: rows left == total - swept,
// and the store agrees.
func TestSweepProgressAndCancel(t *testing.T) {
	sweepCancelHalfway(t, 5000, 100)
}

// sweepCancelHalfway seeds n expired rows, sweeps them with the view in
// batches of batch rows, presses x once half are gone, and checks the
// progress seen and the receipt.
func sweepCancelHalfway(t *testing.T, n, batch int) { //nolint:thelper // a test body shared by the short and the large run: failures point into it
	clock := viewtest.FixedClock()
	path := filepath.Join(t.TempDir(), "sweep.db")
	s := viewtest.Open(t, path, clock, false)
	storetest.SeedExpired(t, s, "tmp", n)
	h := newSweepHarness(t, s, clock, path)
	h.M.batch, h.M.pollEvery = batch, time.Millisecond
	// The sweep waits, past half, until x has been handled: the cancel
	// lands before the end however slow the machine is (under load the
	// sweep finished all n rows before the key was taken).
	pressed := make(chan struct{})
	var once sync.Once
	h.M.pace = func(p store.SweepProgress) {
		if p.Swept >= int64(n/2) {
			once.Do(func() { <-pressed })
		}
	}
	if got := h.M.census.scopes[0].expired; got != int64(n) {
		t.Fatalf("census: %d expired, want %d", got, n)
	}
	h.Keys("d")
	do := h.Confirms[len(h.Confirms)-1].Do
	v, cmd := h.M.Update(do())
	h.M = v
	run := h.M.run
	if run == nil {
		t.Fatal("the confirmed sweep did not start")
	}
	var progressSeen []int64
	var bar string
	// x once half is swept and a progress bar has been drawn (the sweep
	// waits there for it).
	var drawn atomic.Bool
	half := func() bool { return run.swept.Load() >= int64(n/2) && drawn.Load() }
	h.Drive(cmd, half, viewtest.Key("x"), func(v Model, msg tea.Msg) {
		if k, ok := msg.(tea.KeyMsg); ok && k.String() == "x" {
			close(pressed)
		}
		if p, ok := msg.(sweepProgress); ok && v.run != nil && p.swept > 0 && p.swept < int64(n) {
			progressSeen = append(progressSeen, p.swept)
			bar = v.View()
			drawn.Store(true)
		}
	}, func(v Model) bool { return v.run == nil && v.receipt != nil && !v.scanning })
	r := h.M.receipt.res
	t.Logf("swept %d of %d in %d batches, %d left; %d progress polls in between", r.Swept, n, r.Batches, r.Remaining, len(progressSeen))
	if r.Swept < int64(n/2) || r.Swept >= int64(n) || r.Remaining != int64(n)-r.Swept {
		t.Fatalf("receipt: swept %d, remaining %d of %d; want a stop past half with remaining = total - swept", r.Swept, r.Remaining, n)
	}
	if len(progressSeen) == 0 || !strings.Contains(bar, "SWEEPING") || !strings.Contains(bar, "%") {
		t.Fatalf("no progress was shown while sweeping:\n%s", bar)
	}
	dry, err := s.Sweep(context.Background(), store.SweepOptions{DryRun: true})
	if err != nil || dry.Swept != r.Remaining {
		t.Fatalf("the store holds %d expired rows (%v); the receipt says %d", dry.Swept, err, r.Remaining)
	}
	if h.M.census.scopes[0].expired != r.Remaining {
		t.Errorf("the census after the sweep counts %d expired, want %d", h.M.census.scopes[0].expired, r.Remaining)
	}
	// The "cancelling" note and the receipt's "cancelled" flash come from
	// two commands: either may be the last one taken.
	cancelled := false
	for _, f := range h.Flashes {
		cancelled = cancelled || strings.Contains(f.Text, "sweep cancelled")
	}
	if !cancelled {
		t.Errorf("no 'sweep cancelled' flash: %v", h.Flashes)
	}
	// While sweeping, the preview does not list rows the sweep already
	// deleted (it kept listing the census's rows); the receipt of a
	// cancel says so in words, not "stopped: context canceled" (bug 8).
	if strings.Contains(bar, `["tmp", 0]`) || !strings.Contains(bar, "A sweep ran since") {
		t.Errorf("the preview lists the census's rows during the sweep:\n%s", bar)
	}
	if v := h.M.View(); strings.Contains(v, "context canceled") || !strings.Contains(v, "cancelled by you") {
		t.Errorf("the receipt of a cancel:\n%s", v)
	}
}

// TestSweepNarrowShowsFigures: at 80 columns the census shows its
// figures, not "…" (bug 6); the next-expiry column gives way.
func TestSweepNarrowShowsFigures(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := viewtest.Start[Model, *Model](t, s, clock, 80, 24-3, New, viewtest.Reopen(path, clock))
	all := h.M.census.scopes[0]
	for _, line := range strings.Split(h.M.View(), "\n") {
		if strings.Contains(line, "❯ all prefixes") {
			if strings.Contains(line, "…") || !strings.Contains(line, fmt.Sprint(all.rows)) || !strings.Contains(line, " "+fmt.Sprint(all.expired)+" ") {
				t.Fatalf("the census row is cut at 80 columns: %q", line)
			}
			return
		}
	}
	t.Fatalf("no census row:\n%s", h.M.View())
}

// TestPreviewKeysKeepParts: an expired key too long for the preview is
// shortened by part (widgets.KeyCell): the id keeps its end, where the
// rows differ (the key was cut at its end, after the queue's name), the
// queue's name stays whole, and the age gives way to the key when both
// do not fit (it showed ["cac…).
func TestPreviewKeysKeepParts(t *testing.T) {
	s, clock, path := viewtest.CoordStoreAt(t)
	dead := -time.Second
	var muts []store.Mutation
	for i, id := range []string{"52f270e7-1f2a-4c3d-839b-926c00b0d136", "52f270e7-1f2a-4c3d-839b-0a6eb113f71a"} {
		k := codec.Key{codec.String("dwk_queue_due"), codec.String("invoices"), codec.Number(float64(1796121459946 + i)), codec.String(id)}
		muts = append(muts, store.Mutation{Type: store.MutationSet, Key: k, Value: []byte(`{"body":1,"attempts":0}`), ExpireIn: &dead})
	}
	if _, err := s.Commit(context.Background(), nil, muts); err != nil {
		t.Fatal(err)
	}
	h := newSweepHarness(t, s, clock, path)
	for _, end := range []string{`"…d136"]`, `"…f71a"]`} {
		if line := h.ViewLine(end); !strings.Contains(line, `["dwk_q`) || !strings.Contains(line, `"invoices"`) {
			t.Errorf("the preview row of %s lost its prefix or its queue:\n%s", end, line)
		}
	}
}

// TestSweepSizes: the census of the reference store at 120x40, 80x24 and
// 60x18 (the body is 3 lines shorter): at every size the census shows at
// least five rows.
func TestSweepSizes(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			s, clock, path := viewtest.Reference(t, false)
			h := viewtest.Start[Model, *Model](t, s, clock, sz.w, sz.h-3, New, viewtest.Reopen(path, clock))
			golden.RequireEqual(t, h.M.View())
		})
	}
}
