package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"kvdeck/codec"
	"kvdeck/internal/latency"
)

// startBehindProxy runs the TUI at 120x40 on the reference rows in a real
// sqld reached through the latency proxy (no delay yet: a test sets one
// when its jump starts).
func startBehindProxy(t *testing.T) (*app, *latency.Proxy) {
	t.Helper()
	s, p, clock := remoteReference(t, 0)
	return start(t, s, clock, 120, 40, time.Hour), p
}

// TestKeyDuringJumpToBrowseActsOnTarget: o on a lease shows Browse at
// once, but Browse's cursor reaches the lease only when the levels on the
// way have loaded; over a slow link that takes a while. o pressed as soon
// as Browse shows must act on the lease (back to Leases with it
// selected), not on the row the cursor had before (the first prefix:
// "o opens the tab of a coordination row").
func TestKeyDuringJumpToBrowseActsOnTarget(t *testing.T) {
	a, p := startBehindProxy(t)
	a.keys("2")
	a.waitFor("LEASES", "Ticker")
	a.keys("j") // the Ticker lease

	// Each level on the way (dwk_lease, then Ticker) now takes 400 ms.
	p.SetDelay(400 * time.Millisecond)
	a.keys("o")
	a.waitFor("[1 Browse]")
	a.keys("o")
	teatest.WaitFor(t, a.tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("[2 Leases]")) || bytes.Contains(b, []byte("o opens the tab"))
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	p.SetDelay(0)
	m := a.final()
	if m.tab != tabLeases {
		t.Fatalf("o pressed during the jump left the TUI on %v (flash %q)", m.tab, m.flash.msg.Text)
	}
	const lease = `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]`
	if r, ok := m.tabs.leases.Selected(); !ok || codec.Format(r) != lease {
		t.Errorf("Leases selects %v, want the lease the jump went to", r)
	}
}

// waitAny waits up to d for the screen to show one of texts and returns
// it ("" when none showed).
func (a *app) waitAny(d time.Duration, texts ...string) string {
	a.t.Helper()
	var got string
	teatest.WaitFor(a.t, a.tm.Output(), func(b []byte) bool {
		for _, s := range texts {
			if bytes.Contains(b, []byte(s)) {
				got = s
				return true
			}
		}
		return false
	}, teatest.WithDuration(d), teatest.WithCheckInterval(20*time.Millisecond))
	return got
}

// oneRead is keys that arrive in one read of the terminal (typed fast, a
// script, tmux send-keys): the root handles them one by one in one
// Update, before any command has answered.
func oneRead(keys string) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(keys)}
}

// TestKeyAfterJumpKeyWaitsForTheJump: o on an alarm asks the root for
// Browse, but the tab switches only when that request's message comes
// back; a key pressed before then went to Alarms (d asked to delete the
// alarm being left). The root now holds it and hands it to Browse, whose
// own jump (slow: every request takes 400 ms) holds it until the cursor
// is on the alarm's row: o there comes back to Alarms with it selected.
func TestKeyAfterJumpKeyWaitsForTheJump(t *testing.T) {
	const alarm = `["dwk_alarm_due", "Cart", 1767311999500, "acf595e529879b45adcc5da2d4402629"]`
	a, p := startBehindProxy(t)
	a.keys("3")
	a.waitFor("[3 Alarms]", "late 500ms")
	a.keys("right") // Cart's first alarm

	p.SetDelay(400 * time.Millisecond)
	a.tm.Send(oneRead("oo"))
	if a.waitAny(30*time.Second, "[3 Alarms]") == "" {
		t.Fatal("the second o did not come back to Alarms")
	}
	p.SetDelay(0)

	// Alarms is shown again, with the alarm selected: now d right after
	// o must not ask to delete it here.
	var asked bool
	a.tm.Send(oneRead("od"))
	teatest.WaitFor(t, a.tm.Output(), func(b []byte) bool {
		asked = asked || bytes.Contains(b, []byte("Delete this alarm?"))
		return bytes.Contains(b, []byte("Delete this key?")) || bytes.Contains(b, []byte("not loaded yet"))
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	m := a.final()
	if asked || m.tab != tabBrowse {
		t.Errorf("d pressed right after o asked to delete the alarm (%v) or left the TUI on %v", asked, m.tab)
	}
	if k, _ := m.tabs.alarms.Selected(); codec.Format(k) != alarm {
		t.Errorf("the second o (held for Browse's target) selected %v in Alarms, want %s", k, alarm)
	}
}

// TestKeyAfterJumpKeyWaitsForTheTargetsLoad: o on a lease key in Browse
// shows Leases, which loads its rows first (slowly here); B pressed right
// after o breaks the lease o went to, not what Browse or the loading
// table had under the cursor.
func TestKeyAfterJumpKeyWaitsForTheTargetsLoad(t *testing.T) {
	const lease = `["dwk_lease", "Cart", "0e580e53fa979546f8fe4c7ac68c99f9"]`
	a, p := startBehindProxy(t)
	a.command("goto " + lease)
	a.waitFor("holder")

	p.SetDelay(400 * time.Millisecond)
	a.tm.Send(oneRead("oB"))
	got := a.waitAny(30*time.Second, "Break this lease?", "select a lease to break it")
	p.SetDelay(0)
	m := a.final()
	if got != "Break this lease?" || m.tab != tabLeases {
		t.Fatalf("B after o: %q on %v", got, m.tab)
	}
	if v := m.View(); !strings.Contains(v, "0e580e53fa979546f8fe4c7ac68c99f9") {
		t.Errorf("the dialog does not name the lease:\n%s", v)
	}
}

// TestKeyAfterFailedJumpDropped: o on a row that is no coordination row
// asks for no tab; j pressed right after it was meant for the tab o would
// have shown, so it is dropped and the flash says so.
func TestKeyAfterFailedJumpDropped(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.tm.Send(oneRead("oj"))
	a.waitFor("o opens the tab of a coordination row")
	m := a.final()
	if !strings.HasSuffix(m.flash.msg.Text, "(1 key(s) pressed meanwhile ignored)") {
		t.Errorf("flash %q", m.flash.msg.Text)
	}
	if line := cursorLine(m.View()); !strings.Contains(line, `"accounts"`) {
		t.Errorf("j moved the cursor to %q", line)
	}
}

// TestKeyAfterJumpToNoTabDropped: o on a dwk_* key that no tab shows
// (dwk_meta) asks the root for one, which says there is none; the key
// pressed right after o is dropped with that flash.
func TestKeyAfterJumpToNoTabDropped(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.command(`goto ["dwk_meta", "mode"]`)
	a.waitFor(`"central"`)
	a.tm.Send(oneRead("ok"))
	a.waitFor("is not a lease, cron, alarm or queue row")
	m := a.final()
	if want := `["dwk_meta", "mode"] is not a lease, cron, alarm or queue row (1 key(s) pressed meanwhile ignored)`; m.flash.msg.Text != want {
		t.Errorf("flash %q, want %q", m.flash.msg.Text, want)
	}
	if line := cursorLine(m.View()); !strings.Contains(line, `"mode"`) {
		t.Errorf("k moved the cursor to %q", line)
	}
}

// TestQuitDuringJump: q right after o still quits (ctrl+c too).
func TestQuitDuringJump(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.keys("2")
	a.waitFor("LEASES", "0e580e53fa97954")
	a.tm.Send(oneRead("oq"))
	a.tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// cursorLine is the line of view with the cursor mark.
func cursorLine(view string) string {
	for _, l := range strings.Split(ansi.Strip(view), "\n") {
		if strings.Contains(l, "❯") {
			return l
		}
	}
	return ""
}
