package leases

import (
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// selectLease moves the cursor down until the selected row is k.
func selectLease(t *testing.T, h *viewtest.Harness[Model], k codec.Key) {
	t.Helper()
	h.Keys("g")
	for range len(h.M.rows) {
		if r, ok := h.M.selected(); ok && r.Key.Equal(k) {
			return
		}
		h.Keys("j")
	}
	t.Fatalf("no row %s:\n%s", codec.Format(k), h.M.View())
}

func seededLeases(t *testing.T) *viewtest.Harness[Model] {
	t.Helper()
	return viewtest.Seeded(t, newLeasesHarness)
}

func TestLeasesAcquireThenRelease(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Cart", "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0")
	selectLease(t, h, coord.LeaseKey("Cart", viewtest.IDCart1))
	h.Keys("n")
	h.RequireView("ACQUIRE A LEASE AS KVDECK", `key ["dwk_lease", "Cart", "`) // prefilled with the selected class
	h.ClearInput()
	h.TypeText(`["dwk_lease", "Cart", "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0"`)
	h.RequireView("✗") // live validation: the key is not closed yet
	h.TypeText("]")
	h.Keys("tab", "ctrl+u")
	h.TypeText("45s")
	h.RequireView("lapses at 2026-01-02T00:00:45Z")
	h.Keys("enter")
	h.RequireFlash("acquired "+codec.Format(k), "d releases it")
	e, found, err := h.S.Get(viewtest.Ctx, k)
	if err != nil || !found || e.ExpiresAt == nil || *e.ExpiresAt != viewtest.T+45000 {
		t.Fatalf("lease not written with a 45s TTL: %+v %v %v", e, found, err)
	}
	if r, _ := h.M.selected(); !r.Key.Equal(k) {
		t.Fatalf("the acquired lease is not selected:\n%s", h.M.View())
	}
	h.RequireView("★ kvdeck's", "45s (kvdeck acquired it with this TTL)")

	h.Keys("d")
	if c := h.Confirm(); !strings.Contains(strings.Join(c.Lines, " "), codec.Format(k)) {
		t.Fatalf("the release dialog does not name the lease: %q", c.Lines)
	}
	h.RequireFlash("released " + codec.Format(k))
	if _, found, _ := h.S.Get(viewtest.Ctx, k); found {
		t.Fatal("the lease is still there after release")
	}
	// Release refuses what kvdeck did not acquire.
	selectLease(t, h, coord.LeaseKey("Cart", viewtest.IDCart1))
	h.Keys("d")
	h.RequireFlash("did not acquire")
	if _, found, _ := h.S.Get(viewtest.Ctx, coord.LeaseKey("Cart", viewtest.IDCart1)); !found {
		t.Fatal("d released a lease kvdeck does not hold")
	}
}

func TestLeasesAcquireContended(t *testing.T) {
	h := seededLeases(t)
	selectLease(t, h, coord.LeaseKey("Cart", viewtest.IDCart1))
	h.Keys("n", "ctrl+u")
	h.TypeText(codec.Format(coord.LeaseKey("Cart", viewtest.IDCart1)))
	h.Keys("enter")
	h.RequireView("held by someone else: at stamp 00000000000000000001", "a1b2c3d4-0001-4e5f-8a9b-0c1d2e3f4a5b", "wrote")
	h.Keys("esc")
	if h.M.Form != nil {
		t.Fatal("esc did not close the form")
	}
	// The form closed while an attempt is in flight: the answer goes to
	// the flash line.
	h.Keys("n", "ctrl+u")
	h.TypeText(codec.Format(coord.LeaseKey("Cart", viewtest.IDCart1)))
	m, cmd := h.M.Update(viewtest.Key("enter"))
	m, _ = m.Update(viewtest.Key("esc"))
	h.M = m
	h.Settle(cmd)
	h.RequireFlash("not acquired", "held by someone else")
}

func TestLeasesBreakAsksAndBreaks(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Ticker", viewtest.IDTicker1)
	selectLease(t, h, k)
	h.Keys("B")
	c := h.Confirm()
	text := strings.Join(c.Lines, " ")
	for _, want := range []string{codec.Format(k), "a1b2c3d4-0003-4e5f-8a9b-0c1d2e3f4a5b", "stamp 00000000000000000003"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog does not name %q: %s", want, text)
		}
	}
	h.RequireFlash("broken " + codec.Format(k))
	if _, found, _ := h.S.Get(viewtest.Ctx, k); found {
		t.Fatal("the lease is still there after a confirmed break")
	}
}

// TestLeasesBreakConflict: the lease is released and re-acquired between
// showing it and confirming the break: the break explains the conflict
// and deletes nothing.
func TestLeasesBreakConflict(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Cart", viewtest.IDCart1)
	selectLease(t, h, k)
	h.Keys("B")
	if len(h.Confirms) != 1 {
		t.Fatalf("b asked nothing; flashes %v", h.Flashes)
	}
	if err := h.S.Delete(viewtest.Ctx, k); err != nil {
		t.Fatal(err)
	}
	l, err := coord.AcquireKey(viewtest.Ctx, h.S, k, coord.LeaseOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	h.Confirm()
	h.RequireFlash("not broken", "stamp 00000000000000000001", "at stamp "+l.Versionstamp+" held by "+l.Holder, "Nothing was deleted")
	e, found, _ := h.S.Get(viewtest.Ctx, k)
	if !found || e.Versionstamp() != l.Versionstamp {
		t.Fatalf("the new lease was touched: %+v %v", e, found)
	}
	h.RequireView(l.Versionstamp) // reloaded: the table shows the new stamp
}

func TestLeasesBreakExpiredRefused(t *testing.T) {
	h := seededLeases(t)
	selectLease(t, h, coord.LeaseKey("Cart", viewtest.IDCart3))
	h.Keys("B")
	if len(h.Confirms) != 0 {
		t.Fatal("b on an expired row asked to break it")
	}
	h.RequireFlash("already expired")
}

func TestLeasesReadOnly(t *testing.T) {
	_, clock, url := viewtest.CoordAnomalies(t)
	h := newLeasesHarness(t, viewtest.Open(t, url, clock, true), clock, 120, 37)
	for _, k := range []string{"n", "d", "B"} {
		h.Keys(k)
		h.RequireFlash("read-only")
	}
	if h.M.Form != nil || len(h.Confirms) > 0 {
		t.Fatal("a write action opened in read-only mode")
	}
	viewtest.RequireNoHelp(t, h.M.FullHelp(), "n", "d", "B")
	h.RequireView("read-only: the store was opened read-only")
}

// TestLeasesSelectionFollowsKey: a refresh that inserts rows above keeps
// the cursor on the same lease; sorting, filtering and the live bar work
// on the loaded rows with the clock moving.
func TestLeasesSelectionFollowsKey(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Ticker", viewtest.IDTicker1)
	selectLease(t, h, k)
	for _, id := range []string{"00", "01", "02"} {
		if _, err := h.S.Set(viewtest.Ctx, coord.LeaseKey("Apple", id), []byte(viewtest.Holder(99)), nil); err != nil {
			t.Fatal(err)
		}
	}
	h.Refresh()
	if r, _ := h.M.selected(); !r.Key.Equal(k) {
		t.Fatalf("selection moved to %s", codec.Format(r.Key))
	}
	h.Keys("/")
	h.TypeText("expiring")
	h.Keys("enter")
	h.RequireView(viewtest.IDCart2[:15], "/expiring")
	h.Clock.Fix(viewtest.T + 4000) // the expiring lease lapses: no load needed
	h.RequireView("Nothing matches /expiring")
	h.Keys("esc")
	// An expired lease says how long ago, never a negative time left
	// (bug 8).
	h.RequireView("1s ago", "expired-unswept")
	if strings.Contains(h.M.View(), "-1s") {
		t.Error("an expired lease shows a negative time left")
	}
}

// TestLeasesNarrowKeepsWhatTellsRowsApart: at 80x24 (the body is 80x21)
// the SELECTED box shows the stamp, the fencing token b checks (it was
// cut off), and ids shown in the table keep both ends, not one shared
// prefix cut short while STATE had room (bug 6).
func TestLeasesNarrowKeepsWhatTellsRowsApart(t *testing.T) {
	s, clock, _ := viewtest.CoordAnomalies(t)
	h := newLeasesHarness(t, s, clock, 80, 21)
	r, ok := h.M.selected()
	if !ok {
		t.Fatal("nothing selected")
	}
	// The second row's id ends in c68c99f9; cut at its end, it showed
	// only a prefix.
	h.RequireView("stamp   "+r.Versionstamp, "c68c99f9")
}

// TestLeasesSaysWhenTheSelectedRowGoes: another writer deletes the
// selected lease; the reload says so instead of moving the cursor to a
// neighbour without a word. kvdeck's own release needs no note.
func TestLeasesSaysWhenTheSelectedRowGoes(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Ticker", viewtest.IDTicker1)
	selectLease(t, h, k)
	if err := h.S.Delete(viewtest.Ctx, k); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	h.RequireFlash(codec.Format(k) + " is gone")
}

// TestLeasesColumnsStayPutWhileScrolling: the columns are fitted to every
// row, not to the rows on screen, so the header (and the ID column under
// it) does not move as the cursor scrolls the table from the leases to
// the cron rows.
func TestLeasesColumnsStayPutWhileScrolling(t *testing.T) {
	s, clock, _ := viewtest.CoordAnomalies(t)
	h := newLeasesHarness(t, s, clock, 80, 15)
	top := h.ViewLine("ID/BUCKET")
	for range 11 {
		h.Keys("j")
		if got := h.ViewLine("ID/BUCKET"); got != top {
			t.Fatalf("the header moved while scrolling:\n%s\n%s", top, got)
		}
	}
}
