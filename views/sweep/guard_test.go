package sweep

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// present reports whether s holds a row at k, expired or not.
func present(t *testing.T, s *store.Store, k codec.Key) bool {
	t.Helper()
	found := false
	err := s.Dump(storetest.Ctx(t), nil, func(e store.Entry) error {
		found = found || codec.Format(e.Key) == codec.Format(k)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestSweepGuardDialog: with the tab's clock 59 minutes ahead of the real
// one (the reference store's rows expiring at 00:02 and a lease expiring
// at 00:30 live by the real clock at 00:01), s counts the rows the real clock still sees live and opens the
// guard's dialog with that count (golden) instead of the usual yes/no;
// e sweeps only what the real clock sees expired (the lease stays), esc
// cancels, A sweeps the lease too. Under the real clock s asks the usual
// confirmation, as before.
func TestSweepGuardDialog(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	clock.Advance(time.Hour) // the tab's clock: every TTL of the reference store has run out
	real := storetest.T0 + time.Minute.Milliseconds()
	lease := codec.Key{codec.String("lease"), codec.String("db")}
	at := storetest.T0 + 30*time.Minute.Milliseconds() // live by the real clock, expired by the tab's
	if _, err := s.Commit(storetest.Ctx(t), nil, []store.Mutation{{Type: store.MutationSet, Key: lease, Value: []byte(`{"holder":"replica-1"}`), ExpiresAt: &at}}); err != nil {
		t.Fatal(err)
	}
	var live, expired int64
	if err := s.Dump(storetest.Ctx(t), nil, func(e store.Entry) error {
		switch {
		case e.ExpiresAt == nil || *e.ExpiresAt > clock.Now():
		case *e.ExpiresAt > real:
			live++
		default:
			expired++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h := newSweepHarness(t, s, clock, path)
	h.M.realNow = func() int64 { return real }

	h.Keys("d")
	if len(h.Confirms) != 0 || h.M.guard == nil {
		t.Fatalf("s under a clock ahead: confirms %d, guard %+v", len(h.Confirms), h.M.guard)
	}
	if h.M.guard.live != live || h.M.guard.expired != expired {
		t.Fatalf("the dialog counts %d live and %d expired; the rows say %d and %d", h.M.guard.live, h.M.guard.expired, live, expired)
	}
	if !h.M.Capturing() {
		t.Error("the dialog does not capture the keys")
	}
	t.Run("dialog", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })

	h.Keys("enter", "j") // swallowed: enter must not confirm
	if h.M.guard == nil || h.M.run != nil || h.M.cursor != 0 {
		t.Fatal("a key other than the dialog's acted")
	}
	h.Keys("e")
	if h.M.guard != nil || h.M.receipt == nil || h.M.receipt.res.Swept != expired || h.M.receipt.res.LiveByReal != live {
		t.Fatalf("e: receipt %+v", h.M.receipt)
	}
	if !present(t, s, lease) {
		t.Fatal("e swept the lease the real clock sees live")
	}
	h.RequireView(fmt.Sprintf("kept %d row(s) that the real clock still sees live", live))

	h.Keys("d")
	if h.M.guard == nil || h.M.guard.expired != 0 || h.M.guard.live != live {
		t.Fatalf("s again: %+v", h.M.guard)
	}
	h.Keys("esc")
	if h.M.guard != nil || !strings.Contains(h.LastFlash(), "cancelled") || !present(t, s, lease) {
		t.Fatalf("esc: guard %+v, flash %q", h.M.guard, h.LastFlash())
	}

	h.Keys("d", "A")
	if present(t, s, lease) {
		t.Fatal("A kept the lease")
	}

	// The real clock ahead of the tab's: the usual confirmation.
	h.M.realNow = func() int64 { return clock.Now() + 1 }
	if _, err := s.Commit(storetest.Ctx(t), nil, []store.Mutation{{Type: store.MutationSet, Key: lease, Value: []byte(`1`), ExpiresAt: &at}}); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	h.Keys("d")
	if len(h.Confirms) != 1 || h.M.guard != nil {
		t.Fatalf("s under the real clock: confirms %d, guard %+v", len(h.Confirms), h.M.guard)
	}
}
