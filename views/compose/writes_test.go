package compose

import (
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// stage puts checks and mutations in the composition, as Browse's c does.
func stage(h *viewtest.Harness[Model], checks []store.Check, muts ...store.Mutation) {
	h.Send(views.ComposeMsg{Checks: checks, Mutations: muts})
}

// TestComposeWriteKeys walks the Compose tab's write-key table: read-only,
// ctrl+s is refused with its reason; writable, it asks (the dialog shows
// old → new) before anything is written.
func TestComposeWriteKeys(t *testing.T) {
	keys := DefaultKeys()
	viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
		Writes: keys.actions().Writes(),
		Start:  newComposeHarness,
		Prepare: func(h *viewtest.Harness[Model], key string) {
			acme := storetest.Key(h.T, `["accounts", "acme"]`)
			set := store.Mutation{Type: store.MutationSet, Key: acme, Value: []byte(`{"plan":"gold"}`)}
			if key != "r" {
				stage(h, nil, set)
				return
			}
			// r retries a commit whose check failed: make one fail.
			stage(h, []store.Check{{Key: acme}}, set)
			if !h.M.readOnly {
				h.Keys("ctrl+s")
				h.Confirm()
				h.RequireFlash("did not hold")
			}
		},
		Capturing: Model.Capturing,
	})
}

// TestComposeNothingChangedWritesNothing: a composition whose sets write
// the value and expiry stored now (whatever its spacing) and whose
// deletes name absent keys is not committed and says so; one real change
// among them is committed, and the dialog shows it as old → new.
func TestComposeNothingChangedWritesNothing(t *testing.T) {
	h := newComposeHarness(t, false)
	acme := storetest.Key(t, `["accounts", "acme"]`)
	e, found, err := h.S.Get(viewtest.Ctx, acme)
	if err != nil || !found || e.ExpiresAt != nil {
		t.Fatalf("acme: %+v %v %v", e, found, err)
	}
	spaced := strings.ReplaceAll(string(e.Value), ",", " , ")
	same := store.Mutation{Type: store.MutationSet, Key: acme, Value: []byte(spaced)}
	gone := store.Mutation{Type: store.MutationDelete, Key: storetest.Key(t, `["no", "such", "key"]`)}
	stage(h, []store.Check{{Key: acme, Versionstamp: e.Versionstamp()}}, same, gone)
	before := viewtest.Digest(t, h.S)
	h.Keys("ctrl+s")
	if len(h.Confirms) != 0 || viewtest.Digest(t, h.S) != before {
		t.Fatalf("a composition that changes nothing: %d dialog(s), store changed %v", len(h.Confirms), viewtest.Digest(t, h.S) != before)
	}
	h.RequireFlash("nothing changed, nothing written")

	ttl := time.Minute
	stage(h, nil, store.Mutation{Type: store.MutationSet, Key: acme, Value: e.Value, ExpireIn: &ttl})
	h.Keys("ctrl+s")
	if len(h.Confirms) != 1 || viewtest.Digest(t, h.S) != before {
		t.Fatalf("a new expiry: %d dialog(s), store changed %v", len(h.Confirms), viewtest.Digest(t, h.S) != before)
	}
	if text := strings.Join(h.Confirms[0].Lines, "\n"); !strings.Contains(text, "expires never → 2026-01-02T00:01:00") {
		t.Fatalf("the dialog does not show the new expiry:\n%s", text)
	}
	h.Confirm()
	h.RequireFlash("committed at stamp")
}
