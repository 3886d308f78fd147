package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"kvdeck/internal/storetest"
	"kvdeck/internal/usertext"
)

// Escape sequences an attacker who can write to the store would plant: OSC
// 52 sets the operator's clipboard, OSC 0 the window title, CSI clears the
// screen, C1 CSI does the same on terminals that obey 8-bit controls, a
// right-to-left override reorders what follows, U+2028 breaks lines for
// some readers.
const (
	osc52  = "\x1b]52;c;cm0gLXJmIH4=\x07"
	title  = "\x1b]0;pwned\x1b\\"
	csi    = "\x1b[2J\x1b[H"
	c1CSI  = "\u009b31m"
	bidi   = "\u202etxt.exe"
	lineSp = "\u2028"
)

// requireTerminalSafe fails when out holds a byte or rune that could act on
// a terminal (ESC, BEL, C1, bidi controls, ...); line feeds and tabs are
// the only controls text output may hold.
func requireTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: output is not UTF-8: %q", what, out)
	}
	for _, r := range out {
		if r != '\n' && usertext.Unsafe(r) {
			t.Errorf("%s: raw %U reaches the terminal: %q", what, r, out)
			return
		}
	}
}

// TestTextOutputIsTerminalSafe stores escape sequences in values, keys,
// lease holders, alarm classes and ids, queue names and bodies, and checks
// that no command prints them raw, in text or JSON output, on stdout or
// stderr (before the fix lease list, alarm list, queue
// list, doctor, alarm set and queue send printed them raw).
func TestTextOutputIsTerminalSafe(t *testing.T) {
	c := &cli{t: t, url: storetest.File().URL(t), now: storetest.T0}
	nasty := osc52 + title + csi + c1CSI + bidi + lineSp
	jsonNasty := `"` + strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`, "\\", `\\`).Replace(nasty) + `"`

	var runs []struct {
		name string
		r    result
	}
	run := func(args ...string) result {
		t.Helper()
		r := c.run(args...)
		runs = append(runs, struct {
			name string
			r    result
		}{strings.Join(args, " "), r})
		return r
	}
	mustRun := func(args ...string) {
		t.Helper()
		if r := run(args...); r.code != 0 {
			t.Fatalf("kvdeck %q: exit %d\nstdout: %q\nstderr: %q", args, r.code, r.stdout, r.stderr)
		}
	}

	// a lease without expiry (doctor names its class and id) whose holder
	// and class carry the sequences
	leaseKey := `["dwk_lease", ` + jsonNasty + `, "c1"]`
	mustRun("set", leaseKey, `{"holder":`+jsonNasty+`}`)
	// an entry whose value carries them
	mustRun("set", `["v"]`, `{"s":`+jsonNasty+`}`)
	// alarms and a queue whose names carry them
	mustRun("alarm", "set", nasty, "id"+nasty, "+1m")
	mustRun("alarm", "set", "Cart", "a"+nasty, "+1m")
	mustRun("queue", "send", "q"+nasty, jsonNasty)
	mustRun("queue", "send", "jobs", `{"b":`+jsonNasty+`}`)

	for _, mode := range []string{"text", "json"} {
		for _, args := range [][]string{
			{"lease", "list"}, {"alarm", "list"}, {"queue", "list"}, {"doctor"},
			{"alarm", "set", "X" + nasty, nasty, "+2m"}, {"queue", "send", "s" + nasty, jsonNasty},
			{"alarm", "get", nasty, "id" + nasty}, {"alarm", "get", nasty, "none" + nasty},
			{"get", `["v"]`}, {"list"}, {"dump"}, {"stats"},
		} {
			run(append(args, "-o", mode)...)
		}
	}
	// errors echo what was typed
	run("get", `["unterminated`+nasty)
	run("alarm", "set", "C", "i", "tomorrow"+nasty)
	run("queue", "send", "q", "{not json"+nasty)
	run("--bogus-flag" + nasty)

	shown := false
	for _, x := range runs {
		requireTerminalSafe(t, "kvdeck "+x.name+" (stdout)", x.r.stdout)
		requireTerminalSafe(t, "kvdeck "+x.name+" (stderr)", x.r.stderr)
		shown = shown || strings.Contains(x.r.stdout, `\u001b]52;c;`)
	}
	if !shown {
		t.Error("no text output shows the escaped sequence (\\u001b]52;c;...)")
	}
}

// TestStoredLineFeedsStayInTheirLine: a stored name or holder with a line
// feed does not forge another line of a listing.
func TestStoredLineFeedsStayInTheirLine(t *testing.T) {
	c := &cli{t: t, url: storetest.File().URL(t), now: storetest.T0}
	c.must("set", `["dwk_lease", "Cart", "c1"]`, `{"holder":"h\nfake  held  holder=x"}`, "--expire-in", "10s")
	c.must("alarm", "set", "Cart", "a\nCart  b  scheduled", "+1m")
	c.must("queue", "send", "jobs\nfake  ready=9", "1")
	for _, args := range [][]string{{"lease", "list"}, {"alarm", "list"}, {"queue", "list"}, {"queue", "list", "jobs\nfake  ready=9"}} {
		if out := c.must(args...); len(lines(out)) != 1 {
			t.Errorf("kvdeck %q printed %d lines for one record: %q", args, len(lines(out)), out)
		}
	}
}
