package activity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// paneText is the text of the view's lines without borders, joined by
// spaces: a wrapped sentence reads whole in it.
func paneText(view string) string {
	var words []string
	for _, l := range strings.Split(ansi.Strip(view), "\n") {
		words = append(words, strings.Fields(strings.Trim(l, "│╭╮╰╯─ "))...)
	}
	return strings.Join(words, " ")
}

// TestNoteReadsWhole: the note under the feed (what the feed cannot
// show) reads whole at every width from 80 up: it takes the lines it
// needs from the list, which shows as many events as it has rows for,
// and a click on the note selects nothing.
func TestNoteReadsWhole(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	for w := 80; w <= 200; w += 20 {
		for _, ht := range []int{24, 30, 40} {
			t.Run(fmt.Sprintf("%dx%d", w, ht), func(t *testing.T) {
				h := newActivityHarness(t, s, clock, w, ht)
				for i := range 40 {
					if _, err := s.Set(ctx, viewtest.KeyOf("n", i), []byte(`1`), nil); err != nil {
						t.Fatal(err)
					}
				}
				h.Refresh()
				if text := paneText(h.M.View()); !strings.Contains(text, activityNote) {
					t.Fatalf("the note does not read whole:\n%s", h.M.View())
				}
				rows := 0
				for _, l := range strings.Split(ansi.Strip(h.M.View()), "\n") {
					if strings.Contains(l, " set ") && strings.Contains(l, `["n", `) {
						rows++
					}
				}
				if rows != h.M.listRows() {
					t.Errorf("%d event rows show, the list counts %d:\n%s", rows, h.M.listRows(), h.M.View())
				}
				// The last event row on screen takes a click; the note's
				// lines under it do not.
				h.Keys("g")
				last := h.M.shown()[h.M.listRows()-1]
				h.ClickOn(codec.Format(last.key), 0)
				if ev, _ := h.M.selected(); ev.n != last.n {
					t.Errorf("a click on the last row %s selects %s", codec.Format(last.key), codec.Format(ev.key))
				}
				for _, l := range h.M.noteLines() {
					h.ClickOn(strings.TrimSpace(ansi.Strip(l)), 0)
				}
				if ev, _ := h.M.selected(); ev.n != last.n {
					t.Errorf("a click on the note moved the selection to %s", codec.Format(ev.key))
				}
			})
		}
	}
}

// TestKeyColumnKeepsParts: a long key in the KEY column is shortened by
// part: the first part, the queue and the due time's ends stay, and the
// id keeps its end, so that two messages of different queues or times
// tell apart (they were cut to ["dwk_queue_due", "…-839b-926c00b0d136"]).
func TestKeyColumnKeepsParts(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	h := newActivityHarness(t, s, clock, 120, 40)
	viewtest.Commit(t, s, func(a *store.Atomic) {
		a.Set(codec.Key{codec.String("dwk_queue_due"), codec.String("invoices"), codec.Number(1796121459946), codec.String("52f270e7-1f2a-4c3d-839b-926c00b0d136")}, []byte(`{"body":1,"attempts":0}`))
		a.Set(codec.Key{codec.String("dwk_queue_due"), codec.String("emails"), codec.Number(1796121460001), codec.String("52f270e7-1f2a-4c3d-839b-0a6eb113f71")}, []byte(`{"body":2,"attempts":0}`))
	})
	h.Refresh()
	for _, c := range []struct{ queue, id string }{{`"invoices"`, `46, "…d136"]`}, {`"emails"`, `01, "…3f71"]`}} {
		line := h.ViewLine(`["dwk_queue_due", ` + c.queue + `, 17`)
		if !strings.Contains(line, c.id) {
			t.Errorf("the row of the %s message shows no due time and id end %s:\n%s", c.queue, c.id, line)
		}
	}
}
