package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// TestFinderGolden: ctrl+p, a text, enter: the matches of the whole
// store, the needle marked, at 120x40, 80x24 and 60x18.
func TestFinderGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			a := reference(t, false, sz.w, sz.h)
			a.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlP})
			a.waitFor("FIND")
			a.tm.Type("Ca")
			a.keys("enter")
			a.waitFor("found in", "dwk_lease")
			golden.RequireEqual(t, a.final().View())
		})
	}
}

// findFromLease runs the reference at w x h, selects the Ticker lease on
// Leases, and jumps with :find billing to the match in Browse.
func findFromLease(t *testing.T, w, h int) *app {
	t.Helper()
	a := reference(t, false, w, h)
	a.keys("2")
	a.waitFor("LEASES", "Ticker")
	a.keys("j") // the Ticker lease
	a.command("find billing")
	a.waitFor("1 found in")
	a.keys("enter")
	a.waitFor("[1 Browse]", `"billing"`)
	return a
}

// TestFinderJumpAndBack: :find on Leases, enter on a match shows it in
// Browse; [ goes back to Leases with the lease selected, ] forward to the
// key again; the text is a recent find.
func TestFinderJumpAndBack(t *testing.T) {
	a := findFromLease(t, 120, 40)
	a.keys("[")
	a.waitFor("[2 Leases]")
	a.keys("]")
	a.waitFor("[1 Browse]")
	m := a.final()
	want := codec.Key{codec.String("accounts"), codec.String("acme"), codec.String("billing")}
	if m.tab != tabBrowse || !m.browseAt.Equal(want) {
		t.Errorf("after ] the TUI is on %v at %v, want Browse at %v", m.tab, m.browseAt, want)
	}
	if len(m.hist.back) != 1 || m.hist.back[0].tab != tabLeases {
		t.Fatalf("back stack %+v, want the lease", m.hist.back)
	}
	const lease = `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]`
	if k := m.hist.back[0].key; codec.Format(k) != lease {
		t.Errorf("the place left on Leases is %v, want the lease selected", k)
	}
	if !slices.Equal(m.finds, []string{"billing"}) {
		t.Errorf("recent finds %q", m.finds)
	}
}

// TestFinderEscStopsBetweenPages: esc during a scan stops it: the page in
// flight is dropped when it comes, no further page is asked, and esc again
// closes the finder.
func TestFinderEscStopsBetweenPages(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	m := newModel(s, Config{Clock: clock}, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	m, cmd := m.openFinder("acc")
	if cmd == nil || m.finder() == nil || !m.finder().scanning {
		t.Fatal(":find did not start a scan")
	}
	gen := m.finder().gen
	m, _ = m.handleFinder(tea.KeyMsg{Type: tea.KeyEsc})
	if m.finder() == nil || m.finder().scanning || !m.finder().stopped {
		t.Fatal("esc did not stop the scan")
	}
	page := finderPage{session: m.session, gen: gen, text: "acc", page: store.FindPage{
		Matches: []store.FoundKey{{Key: codec.Key{codec.String("accounts")}}}, Next: []byte{2}}}
	m, cmd = m.onFinderPage(page)
	if cmd != nil || len(m.finder().matches) != 0 {
		t.Errorf("the page in flight after esc was taken (%d matches, next read %v)", len(m.finder().matches), cmd != nil)
	}
	if m.finder().status() != "stopped after 0 key(s): 0 found" {
		t.Errorf("status %q", m.finder().status())
	}
	m, _ = m.handleFinder(tea.KeyMsg{Type: tea.KeyEsc})
	if m.finder() != nil {
		t.Error("esc after the stop did not close the finder")
	}
}

// TestParseFind: :find TEXT (or :f) carries the text, spaces inside kept;
// :find alone opens the finder empty.
func TestParseFind(t *testing.T) {
	for line, want := range map[string]string{"find acme bill": "acme bill", "f  x ": "x", "find": ""} {
		c, err := parseCommand(line)
		if err != nil || c.verb != "find" || c.text != want {
			t.Errorf("%q: %+v, %v; want find %q", line, c, err, want)
		}
	}
}

// TestBackAfterRecordJump: o on a lease (a view's GotoMsg) shows the raw
// key in Browse; [ comes back to Leases, the lease still selected, and ]
// goes to Browse again.
func TestBackAfterRecordJump(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.leaseInBrowse("234f594be1ed8ecc8c4d393b295c02f3")
	a.keys("[")
	a.waitFor("[2 Leases]")
	m := a.final()
	const lease = `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]`
	if r, ok := m.tabs.leases.Selected(); m.tab != tabLeases || !ok || codec.Format(r) != lease {
		t.Errorf("after [ the TUI is on %v with %v selected, want Leases on the lease", m.tab, r)
	}
	if len(m.hist.fwd) != 1 || m.hist.fwd[0].tab != tabBrowse || codec.Format(m.hist.fwd[0].key) != lease {
		t.Errorf("forward holds %+v, want Browse at the lease", m.hist.fwd)
	}
}

// TestFinderHostileKey: a key whose string holds terminal escapes shows
// escaped in the finder, never raw.
func TestFinderHostileKey(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	m := newModel(s, Config{Clock: clock}, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	m.setSize(120, 40)
	m, _ = m.openFinder("")
	m.finder().input.SetValue("evil")
	m.finder().text = "evil"
	m.finder().matches = []store.FoundKey{{Key: codec.Key{codec.String("evil\x1b]0;pwned\x07\x1b[2J")}}}
	if v := m.finderView(30); strings.ContainsAny(v, "\x1b\x07") {
		t.Errorf("the finder shows a raw escape: %q", v)
	}
}

// TestOpenDropsPlaces: :open shows another store, so the places of the
// one left (keys that may not exist there) are dropped: [ says there is
// nothing to go back to.
func TestOpenDropsPlaces(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.command(`goto ["ledger", -0, 5n]`)
	a.waitFor(`["ledger", -0, 5n]`)
	other := storetest.CopyReference(t)
	a.command("open " + other)
	a.waitFor("opened file:" + other)
	a.keys("[")
	a.waitFor("nothing to go back to")
	if m := a.final(); len(m.hist.back) != 0 || m.browseAt != nil {
		t.Errorf("after :open the back stack holds %+v (Browse at %v)", m.hist.back, m.browseAt)
	}
}

// TestBackStackGolden: a finder jump from Leases to Browse, then [: the
// Leases tab again with the lease that was selected, at both sizes.
func TestBackStackGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			a := findFromLease(t, sz.w, sz.h)
			a.keys("[")
			a.waitFor("[2 Leases]", "Ticker")
			golden.RequireEqual(t, a.final().View())
		})
	}
}
