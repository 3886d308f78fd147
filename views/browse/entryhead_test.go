package browse

import (
	"bytes"
	"path/filepath"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/browse/entry"
	"kvdeck/views/viewtest"
	"kvdeck/views/widgets"
)

// TestEntryReadTakesTheHeadOfABigValue: issue 23 point 4 (22 point 7).
// Selecting a key whose value is larger than the pane shows reads its
// first entry.HeadCap bytes, its size, stamp and expiry in one statement,
// not the whole value (the read went through store.List, which loaded
// it whole); the pane says how large it is and how to read it all. What
// needs the whole reads it on demand: Y copies the whole value; e and c
// refuse (the TUI's form and Compose take 64 KiB), so the head is never
// written back. The bytes the read allocates are measured against a
// read of the whole row (store.GetRaw) and logged. On a file and over
// sqld.
func TestEntryReadTakesTheHeadOfABigValue(t *testing.T) {
	for _, backend := range []string{"file", "sqld"} {
		t.Run(backend, func(t *testing.T) {
			clock := viewtest.FixedClock()
			url := filepath.Join(t.TempDir(), "big.db")
			if backend == "sqld" {
				url = sqldtest.Start(t).URL
			}
			s := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
			h := startHarness(t, s, clock, 100, 30)
			value := viewtest.BigValue(4 << 20)
			setValue(t, h, `["big", "value"]`, value)
			h.Refresh()

			goTo(h, `["big", "value"]`)
			raw := h.M.entry.raw
			headBytes := viewtest.Allocated(func() {
				if msg := loadEntry(s, nil, 1, 1, raw)().(entryLoaded); msg.row.Err != nil || !msg.row.Found {
					t.Fatalf("entry read: %v, found %v", msg.row.Err, msg.row.Found)
				}
			})
			wholeBytes := viewtest.Allocated(func() {
				if _, err := s.List(viewtest.Ctx, store.ListOptions{Prefix: h.M.entry.key, IncludeExpired: true, Limit: 1}); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%s: the entry read of a %d-byte value allocates %d bytes; the read it replaced (store.List of the row) %d bytes",
				backend, len(value), headBytes, wholeBytes)
			st := h.M.entry
			if !st.found || !st.cut || st.size != int64(len(value)) || !st.json || !bytes.Equal(st.e.Value, value[:entry.HeadCap]) {
				t.Fatalf("the entry holds %d bytes (cut %v, size %d, json %v); want the first %d of %d", len(st.e.Value), st.cut, st.size, st.json, entry.HeadCap, len(value))
			}
			if headBytes > uint64(len(value))/2 {
				t.Errorf("selecting the value allocated %d bytes; want about its head (%d), not the value (%d)", headBytes, entry.HeadCap, len(value))
			}
			h.RequireView("value is 4.0 MiB: its first 64.0 KiB shown;")

			h.Keys("e")
			h.RequireFlash("the TUI edits values up to")
			if h.M.editor.Editing() {
				t.Fatal("e opened the form on the head of a value")
			}
			h.Keys("c")
			h.RequireFlash("Compose takes values up to")
			h.Keys("Y")
			if n := len(h.Copied); n == 0 || h.Copied[n-1] != string(value) {
				t.Fatalf("Y copied %d texts; want the whole value (%d bytes) last", n, len(value))
			}
			if got, _, _ := s.GetRaw(viewtest.Ctx, st.e.Raw); !bytes.Equal(got.Value, value) || got.Ver != st.e.Ver {
				t.Fatalf("the stored value changed: %d bytes at %d", len(got.Value), got.Ver)
			}
		})
	}
}

// TestEditFormNeverTakesTheHeadOnReload: a form open on a small value
// whose save conflicts because another writer made the value larger than
// the head: ctrl+r reloads the row, which arrives cut, and the form
// refuses it instead of filling its text with the head, so a save can
// never write the head back (a CAS write of it would destroy the value).
func TestEditFormNeverTakesTheHeadOnReload(t *testing.T) {
	h := newHarness(t, false, 100, 30)
	setValue(t, h, `["big", "value"]`, []byte(`"small"`))
	h.Refresh()
	goTo(h, `["big", "value"]`)
	h.Keys("e")
	if !h.M.editor.Editing() {
		t.Fatalf("e opened no form (flashes %v)", h.Flashes)
	}
	value := viewtest.BigValue(widgets.ValueCap * 3)
	setValue(t, h, `["big", "value"]`, value)
	h.Keys("end", "ctrl+u")
	h.TypeText(`"mine"`)
	h.Keys("ctrl+s") // conflicts: the stamp moved
	if !h.M.editor.Editing() || !h.M.editor.Reloadable() {
		t.Fatalf("the save did not conflict (form %v, flashes %v)", h.M.editor.Editing(), h.Flashes)
	}
	if h.M.editor.Conflicting() {
		h.Keys("e") // the conflict screen (theirs against yours): keep editing
	}
	h.Keys("ctrl+r")
	if !h.M.editor.Editing() || !h.M.entry.cut {
		t.Fatalf("the reload did not read the cut row (form %v, cut %v)", h.M.editor.Editing(), h.M.entry.cut)
	}
	if got := h.M.editor.Text(); len(got) >= widgets.ValueCap || h.M.editor.Err() == "" {
		t.Fatalf("the form took %d bytes of text on reload (error %q); want it refused", len(got), h.M.editor.Err())
	}
	h.Keys("ctrl+s") // still the old stamp: conflicts again, writes nothing
	if h.M.editor.Conflicting() {
		h.Keys("x") // discard the edit
	}
	if got, _, _ := h.S.GetRaw(viewtest.Ctx, h.M.entry.e.Raw); !bytes.Equal(got.Value, value) {
		t.Fatalf("the stored value is %d bytes now; want the %d written", len(got.Value), len(value))
	}
}

// TestChangedSinceYouLookedOverTheHead: a value looked at small that grew
// past the entry read's head says it changed, and = says only its stamp
// is compared: the head is never diffed as if it were the value; a value
// looked at cut is remembered by its whole size, not its head's.
func TestChangedSinceYouLookedOverTheHead(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("j") // looked at acme, then left it
	value := viewtest.BigValue(3 * widgets.ValueCap)
	setValue(t, h, `["accounts", "acme"]`, value)
	h.Refresh()
	h.Keys("k")
	h.RequireView("since you looked")
	h.Keys("=")
	h.RequireView("CHANGED SINCE YOU LOOKED", "only its stamp is compared")
	h.Keys("=", "j") // looked at the cut value
	if r := h.M.pane.seen.rows[string(h.M.pane.seen.order[len(h.M.pane.seen.order)-1])]; r.value != nil || r.big != len(value) {
		t.Fatalf("the cut value is remembered as %d bytes kept, size %d; want its size %d and no bytes", len(r.value), r.big, len(value))
	}
}
