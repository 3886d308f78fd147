package views

import (
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// selectLease moves the cursor down until the selected row is k.
func selectLease(t *testing.T, h *coordHarness[Leases], k codec.Key) {
	t.Helper()
	h.keys("g")
	for range len(h.m.rows) {
		if r, ok := h.m.selected(); ok && r.Key.Equal(k) {
			return
		}
		h.keys("j")
	}
	t.Fatalf("no row %s:\n%s", codec.Format(k), h.m.View())
}

func seededLeases(t *testing.T) *coordHarness[Leases] {
	t.Helper()
	s, clock, _ := coordStoreAt(t)
	seedCoordAnomalies(t, s, clock)
	return newLeasesHarness(t, s, clock, 120, 37)
}

func TestLeasesAcquireThenRelease(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Cart", "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0")
	selectLease(t, h, coord.LeaseKey("Cart", idCart1))
	h.keys("a")
	h.requireView("ACQUIRE A LEASE AS KVDECK", `key ["dwk_lease", "Cart", "`) // prefilled with the selected class
	h.clearInput()
	h.typeText(`["dwk_lease", "Cart", "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0"`)
	h.requireView("✗") // live validation: the key is not closed yet
	h.typeText("]")
	h.keys("tab", "ctrl+u")
	h.typeText("45s")
	h.requireView("lapses at 2026-01-02T00:00:45Z")
	h.keys("enter")
	h.requireFlash("acquired "+codec.Format(k), "r releases it")
	e, found, err := h.s.Get(ctx, k)
	if err != nil || !found || e.ExpiresAt == nil || *e.ExpiresAt != T+45000 {
		t.Fatalf("lease not written with a 45s TTL: %+v %v %v", e, found, err)
	}
	if r, _ := h.m.selected(); !r.Key.Equal(k) {
		t.Fatalf("the acquired lease is not selected:\n%s", h.m.View())
	}
	h.requireView("★ kvdeck's", "45s (kvdeck acquired it with this TTL)")

	h.keys("r")
	h.requireFlash("released " + codec.Format(k))
	if _, found, _ := h.s.Get(ctx, k); found {
		t.Fatal("the lease is still there after release")
	}
	// Release refuses what kvdeck did not acquire.
	selectLease(t, h, coord.LeaseKey("Cart", idCart1))
	h.keys("r")
	h.requireFlash("did not acquire")
	if _, found, _ := h.s.Get(ctx, coord.LeaseKey("Cart", idCart1)); !found {
		t.Fatal("r released a lease kvdeck does not hold")
	}
}

func TestLeasesAcquireContended(t *testing.T) {
	h := seededLeases(t)
	selectLease(t, h, coord.LeaseKey("Cart", idCart1))
	h.keys("a", "ctrl+u")
	h.typeText(codec.Format(coord.LeaseKey("Cart", idCart1)))
	h.keys("enter")
	h.requireView("held by someone else: at stamp 00000000000000000001", "a1b2c3d4-0001-4e5f-8a9b-0c1d2e3f4a5b", "wrote")
	h.keys("esc")
	if h.m.form != nil {
		t.Fatal("esc did not close the form")
	}
	// The form closed while an attempt is in flight: the answer goes to
	// the flash line.
	h.keys("a", "ctrl+u")
	h.typeText(codec.Format(coord.LeaseKey("Cart", idCart1)))
	m, cmd := h.m.Update(viewtest.Key("enter"))
	m, _ = m.Update(viewtest.Key("esc"))
	h.m = m
	h.settle(cmd)
	h.requireFlash("not acquired", "held by someone else")
}

func TestLeasesBreakAsksAndBreaks(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Ticker", idTicker1)
	selectLease(t, h, k)
	h.keys("b")
	c := h.confirm()
	text := strings.Join(c.Lines, " ")
	for _, want := range []string{codec.Format(k), "a1b2c3d4-0003-4e5f-8a9b-0c1d2e3f4a5b", "stamp 00000000000000000003"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog does not name %q: %s", want, text)
		}
	}
	h.requireFlash("broken " + codec.Format(k))
	if _, found, _ := h.s.Get(ctx, k); found {
		t.Fatal("the lease is still there after a confirmed break")
	}
}

// TestLeasesBreakConflict: the lease is released and re-acquired between
// showing it and confirming the break: the break explains the conflict
// and deletes nothing.
func TestLeasesBreakConflict(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Cart", idCart1)
	selectLease(t, h, k)
	h.keys("b")
	if len(h.confirms) != 1 {
		t.Fatalf("b asked nothing; flashes %v", h.flashes)
	}
	if err := h.s.Delete(ctx, k); err != nil {
		t.Fatal(err)
	}
	l, err := coord.AcquireKey(ctx, h.s, k, coord.LeaseOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	h.confirm()
	h.requireFlash("not broken", "stamp 00000000000000000001", "at stamp "+l.Versionstamp+" held by "+l.Holder, "Nothing was deleted")
	e, found, _ := h.s.Get(ctx, k)
	if !found || e.Versionstamp() != l.Versionstamp {
		t.Fatalf("the new lease was touched: %+v %v", e, found)
	}
	h.requireView(l.Versionstamp) // reloaded: the table shows the new stamp
}

func TestLeasesBreakExpiredRefused(t *testing.T) {
	h := seededLeases(t)
	selectLease(t, h, coord.LeaseKey("Cart", idCart3))
	h.keys("b")
	if len(h.confirms) != 0 {
		t.Fatal("b on an expired row asked to break it")
	}
	h.requireFlash("already expired")
}

func TestLeasesReadOnly(t *testing.T) {
	s, clock, url := coordStoreAt(t)
	seedCoordAnomalies(t, s, clock)
	h := newLeasesHarness(t, viewtest.Open(t, url, clock, true), clock, 120, 37)
	for _, k := range []string{"a", "r", "b"} {
		h.keys(k)
		h.requireFlash("read-only")
	}
	if h.m.form != nil || len(h.confirms) > 0 {
		t.Fatal("a write action opened in read-only mode")
	}
	requireNoHelp(t, h.m.FullHelp(), "a", "r", "b")
	h.requireView("read-only: the store was opened read-only")
}

// TestLeasesSelectionFollowsKey: a refresh that inserts rows above keeps
// the cursor on the same lease; sorting, filtering and the live bar work
// on the loaded rows with the clock moving.
func TestLeasesSelectionFollowsKey(t *testing.T) {
	h := seededLeases(t)
	k := coord.LeaseKey("Ticker", idTicker1)
	selectLease(t, h, k)
	for _, id := range []string{"00", "01", "02"} {
		if _, err := h.s.Set(ctx, coord.LeaseKey("Apple", id), []byte(holder(99)), nil); err != nil {
			t.Fatal(err)
		}
	}
	h.refresh()
	if r, _ := h.m.selected(); !r.Key.Equal(k) {
		t.Fatalf("selection moved to %s", codec.Format(r.Key))
	}
	h.keys("/")
	h.typeText("expiring")
	h.keys("enter")
	h.requireView(idCart2[:15], "/expiring")
	h.clock.Fix(T + 4000) // the expiring lease lapses: no load needed
	h.requireView("Nothing matches /expiring")
	h.keys("esc")
	h.requireView("-1s", "expired-unswept")
}
