package views

import (
	"encoding/json"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

func seededQueues(t *testing.T) *coordHarness[Queues] {
	t.Helper()
	s, clock, _ := coordStoreAt(t)
	seedCoordAnomalies(t, s, clock)
	return newQueuesHarness(t, s, clock, 120, 37)
}

// queueRows lists the stored messages of queue: id → {dueAt, attempts, body}.
type storedMsg struct {
	dueAt    int64
	attempts int
	body     string
}

func queueRows(t *testing.T, s *store.Store, queue string) map[string]storedMsg {
	t.Helper()
	p, err := s.List(ctx, store.ListOptions{Prefix: codec.Key{codec.String(coord.PrefixQueueDue), codec.String(queue)}, IncludeExpired: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]storedMsg{}
	for _, e := range p.Entries {
		var v struct {
			Body     json.RawMessage `json:"body"`
			Attempts int             `json:"attempts"`
		}
		if json.Unmarshal(e.Value, &v) != nil || len(e.Key) != 4 {
			continue
		}
		out[e.Key[3].StringValue()] = storedMsg{int64(e.Key[2].NumberValue()), v.Attempts, string(v.Body)}
	}
	return out
}

func TestQueuesSend(t *testing.T) {
	h := seededQueues(t)
	h.keys("n")
	h.requireView("SEND A MESSAGE", "queue invoices", "✓ valid JSON · 2 bytes", "✓ due at once")
	h.clearInput()
	h.typeText(`{"order": 7`)
	h.requireView("✗ not JSON")
	h.keys("enter")
	h.requireView("✗ body: not JSON")
	h.typeText(`}`)
	h.keys("tab")
	h.typeText("-1s")
	h.requireView("✗ \"-1s\": want a whole number of milliseconds")
	h.keys("ctrl+u")
	h.typeText("5s")
	h.requireView("due 2026-01-02T00:00:05Z (in 5s)")
	h.keys("enter")
	h.requireFlash("sent ", "to invoices, due 2026-01-02T00:00:05Z")
	msg, ok := h.m.message()
	if !ok || string(msg.Body) != `{"order":7}` || !h.m.onMessages {
		t.Fatalf("the sent message is not selected: %+v\n%s", msg, h.m.View())
	}
	if got := queueRows(t, h.s, "invoices")[msg.ID]; got.dueAt != T+5000 || got.attempts != 0 || got.body != `{"order":7}` {
		t.Fatalf("stored %+v", got)
	}
}

// TestQueuesPollMixedDecisions: a batch of four claimed messages, one
// acked, one retried after 20s, one nacked (redelivered after the
// backoff) and one nacked on its final attempt (dropped); the store holds
// exactly what a consumer would have left.
func TestQueuesPollMixedDecisions(t *testing.T) {
	s, clock, _ := coordStoreAt(t)
	w := seeder{t: t, s: s, clock: clock}
	for i, v := range []string{`{"body":1,"attempts":0}`, `{"body":2,"attempts":0}`, `{"body":3,"attempts":1}`, `{"body":4,"attempts":4}`} {
		w.set(coord.QueueKey("jobs", T-int64(4-i)*1000, "j"+string(rune('1'+i))), v, 0)
	}
	w.set(coord.QueueKey("jobs", T+60000, "later"), `{"body":5,"attempts":0}`, 0)
	clock.Fix(T)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.keys("c")
	if !h.m.Capturing() || h.m.poll == nil || h.m.poll.phase != pollDeciding {
		t.Fatalf("no batch to decide:\n%s", h.m.View())
	}
	h.requireView("CLAIMED 4 MESSAGE(S) OF jobs", "out of the store")
	if got := queueRows(t, s, "jobs"); len(got) != 1 {
		t.Fatalf("while deciding the store holds %v, want only the delayed message", got)
	}
	h.keys("a", "r", "ctrl+u")
	h.typeText("20s")
	h.keys("enter", "n", "n")
	h.requireView("ack", "retry after 20s", "requeued, due +2s", "DROPPED (last try)")
	h.keys("enter")
	c := h.confirm()
	if text := strings.Join(c.Lines, " "); !strings.Contains(text, "1 consumed, 2 requeued, 1 dropped") {
		t.Errorf("dialog: %s", text)
	}
	h.requireFlash("polled jobs: 1 acked, 2 requeued, 1 dropped")
	got := queueRows(t, s, "jobs")
	want := map[string]storedMsg{
		"j2":    {T + 20000, 1, "2"},
		"j3":    {T + 2000, 2, "3"}, // backoff 1s·2^(2-1)
		"later": {T + 60000, 0, "5"},
	}
	if len(got) != len(want) {
		t.Fatalf("store after the poll: %+v, want %+v", got, want)
	}
	for id, m := range want {
		if got[id] != m {
			t.Errorf("%s = %+v, want %+v", id, got[id], m)
		}
	}
	h.requireView("POLLED AT", "dropped  j4", "requeued j3")
	if h.m.Capturing() {
		t.Error("still capturing keys after the poll")
	}
}

func TestQueuesPollNothingDue(t *testing.T) {
	h := seededQueues(t)
	h.keys("j", "c")
	h.requireFlash("polled thumbnails: nothing was due")
	if h.m.poll != nil {
		t.Fatal("the poll did not end")
	}
}

func TestQueuesPurge(t *testing.T) {
	h := seededQueues(t)
	h.keys("x")
	c := h.confirm()
	if c.Title != "Purge invoices: delete its 6 message(s)?" || !strings.Contains(strings.Join(c.Lines, " "), "3 ready, 2 delayed, 1 malformed") {
		t.Errorf("dialog %q %q", c.Title, c.Lines)
	}
	h.requireFlash("purged invoices: 6 message(s) deleted")
	if got := queueRows(t, h.s, "invoices"); len(got) != 0 {
		t.Fatalf("left after purge: %v", got)
	}
	h.requireView("thumbnails")
}

func TestQueuesSelectionFollowsID(t *testing.T) {
	h := seededQueues(t)
	h.keys("l", "j", "j", "j")
	if msg, _ := h.m.message(); msg.ID != "m-0004" {
		t.Fatalf("selected %s", msg.ID)
	}
	if _, err := h.s.Set(ctx, coord.QueueKey("invoices", T-600000, "m-0000"), []byte(`{"body":0,"attempts":0}`), nil); err != nil {
		t.Fatal(err)
	}
	h.refresh()
	if msg, _ := h.m.message(); msg.ID != "m-0004" {
		t.Fatalf("selection moved to %s", msg.ID)
	}
	h.requireView("oldest ready 10m")
}

func TestQueuesReadOnly(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	h := newQueuesHarness(t, s, clock, 120, 37)
	for _, k := range []string{"n", "c", "x"} {
		h.keys(k)
		h.requireFlash("read-only")
	}
	if h.m.form != nil || h.m.poll != nil || len(h.confirms) > 0 {
		t.Fatal("a write action opened in read-only mode")
	}
	requireNoHelp(t, h.m.FullHelp(), "n", "c", "x")
	h.keys("l", "enter") // peeking reads nothing new: allowed
	h.requireView("BODY OF", `"regenerate-all"`)
}

// TestQueuesDepthFollowsClock: with no write (so no reload), delayed
// messages coming due move to ready and the oldest ready one ages.
func TestQueuesDepthFollowsClock(t *testing.T) {
	h := seededQueues(t)
	h.requireView("INVOICES  3 ready · 2 delayed · oldest ready 2m")
	h.clock.Fix(T + 6000)
	h.requireView("INVOICES  4 ready · 1 delayed · oldest ready 2m6s", "thumbnails  1     0")
}
