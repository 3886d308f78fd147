package queues

import (
	"encoding/json"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

func seededQueues(t *testing.T) *viewtest.Harness[Model] {
	t.Helper()
	return viewtest.Seeded(t, newQueuesHarness)
}

// queueRows lists the stored messages of queue: id → {dueAt, attempts, body}.
type storedMsg struct {
	dueAt    int64
	attempts int
	body     string
}

func queueRows(t *testing.T, s *store.Store, queue string) map[string]storedMsg {
	t.Helper()
	p, err := s.List(viewtest.Ctx, store.ListOptions{Prefix: codec.Key{codec.String(coord.PrefixQueueDue), codec.String(queue)}, IncludeExpired: true})
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
	h.Keys("n")
	h.RequireView("SEND A MESSAGE", "queue invoices", "✓ valid JSON · 2 bytes", "✓ due at once")
	h.ClearInput()
	h.TypeText(`{"order": 7`)
	h.RequireView("✗ not JSON")
	h.Keys("enter")
	h.RequireView("✗ body: not JSON")
	h.TypeText(`}`)
	h.Keys("tab")
	h.TypeText("-1s")
	h.RequireView("✗ \"-1s\": want a whole number of milliseconds")
	h.Keys("ctrl+u")
	h.TypeText("5s")
	h.RequireView("due 2026-01-02T00:00:05Z (in 5s)")
	h.Keys("enter")
	h.RequireFlash("sent ", "to invoices, due 2026-01-02T00:00:05Z")
	msg, ok := h.M.message()
	if !ok || string(msg.Body) != `{"order":7}` || !h.M.lists.OnItems {
		t.Fatalf("the sent message is not selected: %+v\n%s", msg, h.M.View())
	}
	if got := queueRows(t, h.S, "invoices")[msg.ID]; got.dueAt != viewtest.T+5000 || got.attempts != 0 || got.body != `{"order":7}` {
		t.Fatalf("stored %+v", got)
	}
}

// TestQueuesPollMixedDecisions: a batch of four claimed messages, one
// acked, one retried after 20s, one nacked (redelivered after the
// backoff) and one nacked on its final attempt (dropped); the store holds
// exactly what a consumer would have left.
func TestQueuesPollMixedDecisions(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	w := viewtest.Seeder{T: t, S: s, Clock: clock}
	for i, v := range []string{`{"body":1,"attempts":0}`, `{"body":2,"attempts":0}`, `{"body":3,"attempts":1}`, `{"body":4,"attempts":4}`} {
		w.Set(coord.QueueKey("jobs", viewtest.T-int64(4-i)*1000, "j"+string(rune('1'+i))), v, 0)
	}
	w.Set(coord.QueueKey("jobs", viewtest.T+60000, "later"), `{"body":5,"attempts":0}`, 0)
	clock.Fix(viewtest.T)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("t")
	// c asks first, naming the queue and how many messages leave it.
	if len(h.Confirms) != 1 || len(queueRows(t, s, "jobs")) != 5 {
		t.Fatalf("c: %d dialog(s), %d message(s) left in jobs; want one dialog and nothing claimed yet", len(h.Confirms), len(queueRows(t, s, "jobs")))
	}
	if c := h.Confirms[0]; !strings.Contains(c.Title, "jobs") || !strings.Contains(c.Title, "claim 4 of its 4 ready") {
		t.Fatalf("the poll dialog says %q", c.Title)
	}
	h.Confirm()
	if !h.M.Capturing() || h.M.poll == nil || h.M.poll.phase != pollDeciding {
		t.Fatalf("no batch to decide:\n%s", h.M.View())
	}
	h.RequireView("CLAIMED 4 MESSAGE(S) OF jobs", "out of the store")
	if got := queueRows(t, s, "jobs"); len(got) != 1 {
		t.Fatalf("while deciding the store holds %v, want only the delayed message", got)
	}
	h.Keys("a", "e", "ctrl+u")
	h.TypeText("20s")
	h.Keys("enter", "b", "b")
	h.RequireView("ack", "retry after 20s", "requeued, due +2s", "DROPPED (last try)")
	h.Keys("enter")
	c := h.Confirm()
	if text := strings.Join(c.Lines, " "); !strings.Contains(text, "1 consumed, 2 requeued, 1 dropped") {
		t.Errorf("dialog: %s", text)
	}
	h.RequireFlash("polled jobs: 1 acked, 2 requeued, 1 dropped")
	got := queueRows(t, s, "jobs")
	want := map[string]storedMsg{
		"j2":    {viewtest.T + 20000, 1, "2"},
		"j3":    {viewtest.T + 2000, 2, "3"}, // backoff 1s·2^(2-1)
		"later": {viewtest.T + 60000, 0, "5"},
	}
	if len(got) != len(want) {
		t.Fatalf("store after the poll: %+v, want %+v", got, want)
	}
	for id, m := range want {
		if got[id] != m {
			t.Errorf("%s = %+v, want %+v", id, got[id], m)
		}
	}
	h.RequireView("POLLED AT", "dropped  j4", "requeued j3")
	if h.M.Capturing() {
		t.Error("still capturing keys after the poll")
	}
}

func TestQueuesPollNothingDue(t *testing.T) {
	h := seededQueues(t)
	h.Keys("j", "t")
	// Nothing ready: nothing to claim, so nothing to ask.
	h.RequireFlash("thumbnails has no ready message to claim")
	if len(h.Confirms) != 0 {
		t.Fatal("c asked to claim messages from a queue with none ready")
	}
	if h.M.poll != nil {
		t.Fatal("the poll did not end")
	}
}

func TestQueuesPurge(t *testing.T) {
	h := seededQueues(t)
	h.Keys("d")
	c := h.Confirm()
	if c.Title != "Purge invoices: delete its 6 message(s)?" || !strings.Contains(strings.Join(c.Lines, " "), "3 ready, 2 delayed, 1 malformed") {
		t.Errorf("dialog %q %q", c.Title, c.Lines)
	}
	h.RequireFlash("purged invoices: 6 message(s) deleted")
	if got := queueRows(t, h.S, "invoices"); len(got) != 0 {
		t.Fatalf("left after purge: %v", got)
	}
	h.RequireView("thumbnails")
}

func TestQueuesSelectionFollowsID(t *testing.T) {
	h := seededQueues(t)
	h.Keys("l", "j", "j", "j")
	if msg, _ := h.M.message(); msg.ID != "m-0004" {
		t.Fatalf("selected %s", msg.ID)
	}
	if _, err := h.S.Set(viewtest.Ctx, coord.QueueKey("invoices", viewtest.T-600000, "m-0000"), []byte(`{"body":0,"attempts":0}`), nil); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	if msg, _ := h.M.message(); msg.ID != "m-0004" {
		t.Fatalf("selection moved to %s", msg.ID)
	}
	h.RequireView("oldest ready 10m")
}

func TestQueuesReadOnly(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	h := newQueuesHarness(t, s, clock, 120, 37)
	for _, k := range []string{"n", "t", "d"} {
		h.Keys(k)
		h.RequireFlash("read-only")
	}
	if h.M.Form != nil || h.M.poll != nil || len(h.Confirms) > 0 {
		t.Fatal("a write action opened in read-only mode")
	}
	viewtest.RequireNoHelp(t, h.M.FullHelp(), "n", "t", "d")
	h.Keys("l", "enter") // peeking reads nothing new: allowed
	h.RequireView("BODY OF", `"regenerate-all"`)
}

// TestQueuesDepthFollowsClock: with no write (so no reload), delayed
// messages coming due move to ready and the oldest ready one ages.
func TestQueuesDepthFollowsClock(t *testing.T) {
	h := seededQueues(t)
	h.RequireView("INVOICES  3 ready · 2 delayed · oldest ready 2m")
	h.Clock.Fix(viewtest.T + 6000)
	h.RequireView("INVOICES  4 ready · 1 delayed · oldest ready 2m6s", "thumbnails 1     0")
}

// TestQueuesPollExplainsAndGivesBack: while a claimed batch waits, a key
// the panel does not take says why (it was ignored), and u gives every
// message back at once (retry now) after a confirmation.
func TestQueuesPollExplainsAndGivesBack(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	readyJobs(t, s, clock, "j", 3)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("t")
	h.Confirm()
	h.Keys("3")
	h.RequireFlash("3 claimed message(s) are out of the store until you decide", "u gives them all back")
	h.Keys("u")
	if text := strings.Join(h.Confirm().Lines, " "); !strings.Contains(text, "3 requeued") {
		t.Errorf("dialog: %s", text)
	}
	if got := queueRows(t, s, "jobs"); len(got) != 3 {
		t.Fatalf("after giving back, the queue holds %v", got)
	}
}

// TestQueuesSaysWhenTheSelectedMessageIsGone: a live reload keeps the
// selection by id; when the selected message disappears (another consumer
// took it), the view says so instead of moving to a neighbour without a
// word, and kvdeck's own purge is not reported as a surprise.
func TestQueuesSaysWhenTheSelectedMessageIsGone(t *testing.T) {
	h := seededQueues(t)
	h.Keys("l", "j", "j", "j")
	msg, _ := h.M.message()
	if err := h.S.Delete(viewtest.Ctx, msg.Key); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	h.RequireFlash("message "+msg.ID+" is gone", "the cursor moved")
	n := len(h.Flashes)
	h.Keys("h", "d")
	h.Confirm()
	h.RequireFlash("purged invoices")
	h.RequireNoFlashSince(n, "is gone") // kvdeck's own purge
}

// TestQueuesFilter: / filters the queues and their messages as it is
// typed (by queue, message id or body); enter keeps it, esc clears it
// (/ filters on every list tab).
func TestQueuesFilter(t *testing.T) {
	h := seededQueues(t)
	viewtest.CheckFilter(h, Model.queueNames, "thumb", "thumbnails")
	viewtest.Filter(h, "m-0004")
	if ids := h.M.msgIDs(); len(ids) != 1 || ids[0] != "m-0004" {
		t.Fatalf("messages %v after /m-0004", ids)
	}
	viewtest.CheckFilterMatchesNothing(h, Model.queueNames, "no such thing")
}

// TestQueuesPollSaysWhenAnotherConsumerWon: t's dialog counted the ready
// messages; when another consumer (the demo's replicas) takes them
// between the dialog and the yes, the answer says so instead of a bare
// "nothing was due".
func TestQueuesPollSaysWhenAnotherConsumerWon(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	readyJobs(t, s, clock, "j", 2)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("t")
	if len(h.Confirms) != 1 || !strings.Contains(h.Confirms[0].Title, "claim 2 of its 2 ready") {
		t.Fatalf("dialogs %+v", h.Confirms)
	}
	for i := range 2 {
		if err := s.Delete(viewtest.Ctx, coord.QueueKey("jobs", viewtest.T-int64(2-i)*1000, "j"+string(rune('1'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	h.Confirm()
	h.RequireFlash("polled jobs", "the 2 message(s) due when asked went to another consumer meanwhile")

	// One of two taken meanwhile: the claimed batch says so at once.
	readyJobs(t, s, clock, "k", 2)
	h.Refresh()
	h.Keys("t")
	if err := s.Delete(viewtest.Ctx, coord.QueueKey("jobs", viewtest.T-2000, "k1")); err != nil {
		t.Fatal(err)
	}
	h.Confirm()
	h.RequireView("CLAIMED 1 MESSAGE(S) OF jobs", "1 of the 2 message(s) due when asked went to another consumer meanwhile")
}

// readyJobs writes n ready messages to the queue jobs, prefix1 (oldest)
// to prefixN, a second apart up to viewtest.T, and fixes the clock there.
func readyJobs(t *testing.T, s *store.Store, clock *store.VirtualClock, prefix string, n int) {
	t.Helper()
	w := viewtest.Seeder{T: t, S: s, Clock: clock}
	for i := range n {
		w.Set(coord.QueueKey("jobs", viewtest.T-int64(n-i)*1000, prefix+string(rune('1'+i))), `{"body":1,"attempts":0}`, 0)
	}
	clock.Fix(viewtest.T)
}
