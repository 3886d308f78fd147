package viewtest

import (
	"fmt"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views"
)

// Digest is the store's seq and every physical row of s (expired and
// undecodable ones included: storetest.RowsText with the stamps), one
// line each: two digests differ exactly when something was written.
func Digest(t testing.TB, s *store.Store) string {
	t.Helper()
	seq, err := s.Seq(Ctx)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("seq %d\n", seq) + storetest.RowsText(t, s, true)
}

// WriteWalk is what WalkWriteKeys needs of a tab's tests.
type WriteWalk[V Model[V]] struct {
	// Writes is the tab's table (its Keys.Writes on DefaultKeys).
	Writes views.WriteKeys
	// Start opens the tab on a fresh store, read-only or not.
	Start func(t *testing.T, readOnly bool) *Harness[V]
	// Prepare puts the tab where key applies (a row selected, an op
	// staged); nil does nothing.
	Prepare func(h *Harness[V], key string)
	// Press presses key on a writable store when a key press alone does
	// not reach the ask (E: the editor runs first); nil sends the key.
	Press func(h *Harness[V], key string)
	// Capturing is the tab's Capturing: a form opened.
	Capturing func(V) bool
	// NoFollow lists keys whose confirmed action the walk does not run
	// (live workers): it checks that they ask, not what they write.
	NoFollow []string
}

// WalkWriteKeys walks a tab's write-key table: on a
// read-only store each key is refused with its reason (its Refusal), asks
// nothing, opens nothing and writes nothing; on a writable store each
// key writes nothing when pressed and asks first, by a dialog (a
// ConfirmMsg, whose action then does write) or by a form, as the table
// declares; a key that only stages (AskNone) writes and asks nothing.
func WalkWriteKeys[V Model[V]](t *testing.T, w WriteWalk[V]) {
	t.Helper()
	if len(w.Writes) == 0 {
		t.Fatal("the tab declares no write key")
	}
	for _, wk := range w.Writes {
		name := wk.Binding.Keys()[0]
		t.Run("read-only "+name, func(t *testing.T) { walkReadOnly(t, w, wk, name) })
		t.Run("writable "+name, func(t *testing.T) { walkWritable(t, w, wk, name) })
	}
}

// prepared starts the tab and puts it where key applies: the store's
// digest and the dialogs asked so far are what the walk compares with.
func (w WriteWalk[V]) prepared(t *testing.T, readOnly bool, key string) (h *Harness[V], before string, asked int) {
	t.Helper()
	h = w.Start(t, readOnly)
	if w.Prepare != nil {
		w.Prepare(h, key)
	}
	return h, Digest(t, h.S), len(h.Confirms)
}

// walkReadOnly: in read-only mode the key is refused with its action's
// name, opens nothing and writes nothing.
func walkReadOnly[V Model[V]](t *testing.T, w WriteWalk[V], wk views.WriteKey, name string) {
	t.Helper()
	h, before, asked := w.prepared(t, true, name)
	h.Keys(name)
	if got := h.LastFlash(); got != wk.Refusal() {
		t.Errorf("%s in read-only mode: flash %q, want %q", name, got, wk.Refusal())
	}
	if !strings.Contains(wk.Refusal(), wk.What) || wk.What == "" {
		t.Errorf("%s: the refusal %q does not name the action", name, wk.Refusal())
	}
	if len(h.Confirms) != asked || w.Capturing(h.M) {
		t.Errorf("%s in read-only mode opened a dialog (%d) or a form (%v)", name, len(h.Confirms)-asked, w.Capturing(h.M))
	}
	if Digest(t, h.S) != before {
		t.Errorf("%s in read-only mode wrote to the store", name)
	}
}

// walkWritable: in a writable store the key asks as declared (a form, a
// dialog, or nothing of its own) before anything is written, and a
// confirmed dialog writes.
func walkWritable[V Model[V]](t *testing.T, w WriteWalk[V], wk views.WriteKey, name string) {
	t.Helper()
	h, before, asked := w.prepared(t, false, name)
	if w.Press != nil {
		w.Press(h, name)
	} else {
		h.Keys(name)
	}
	if Digest(t, h.S) != before {
		t.Fatalf("%s wrote to the store before asking; flashes %v", name, h.Flashes)
	}
	switch wk.Asks {
	case views.Reads:
		t.Fatalf("%s is walked as a write, yet its table says it reads", name)
	case views.AskNone:
		if len(h.Confirms) != asked {
			t.Errorf("%s is declared to write nothing itself, yet it asked", name)
		}
	case views.AskForm:
		if !w.Capturing(h.M) {
			t.Fatalf("%s opened no form; flashes %v\n%s", name, h.Flashes, h.M.View())
		}
	case views.AskDialog:
		if len(h.Confirms) != asked+1 {
			t.Fatalf("%s asked %d time(s), want once; flashes %v\n%s", name, len(h.Confirms)-asked, h.Flashes, h.M.View())
		}
		for _, skip := range w.NoFollow {
			if skip == name {
				return
			}
		}
		h.Confirm()
		if Digest(t, h.S) == before {
			t.Errorf("%s: confirmed, it wrote nothing; flashes %v", name, h.Flashes)
		}
	}
}
