package tui

import (
	"context"
	"os"
	"strings"
	"testing"

	"kvdeck/internal/atomicjson"
	"kvdeck/internal/storetest"
)

// TestComposeFromBrowseFlow: c in Browse switches to Compose with a check
// on the shown stamp and a set of the value; ctrl+s finds that the set
// writes what is stored and commits nothing (no stamp moves: a commit
// that changes something is views/compose's test). Then the Sweep and
// Race tabs come up on the same store.
func TestComposeFromBrowseFlow(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.command(`goto ["accounts", "acme"]`)
	a.waitFor("00000000000000000038")
	a.keys("c")
	a.waitFor("[5 Compose]", "COMPOSE · 2 operation(s)", "expects 00000000000000000038")
	a.keys("ctrl+s")
	a.waitFor("nothing changed, nothing written")
	a.keys("7")
	a.waitFor("[7 Sweep]", "all prefixes", "PREVIEW")
	a.keys("6")
	a.waitFor("[6 Race]", "client A", "client B")
	a.keys("enter")
	a.waitFor("A read n=0 at absent")
	m := a.final()
	if m.tab != tabRace {
		t.Fatalf("ended on tab %v", m.tab)
	}
	e, found, err := a.s.Get(context.Background(), storetest.Key(t, `["accounts", "acme"]`))
	if err != nil || !found || e.Versionstamp() != "00000000000000000038" {
		t.Fatalf("acme after a commit that changed nothing: %+v %v %v (want it at its stamp 38)", e, found, err)
	}
}

// TestQuitWithStagedOpsAsks: q with operations staged in Compose asks
// first (they were dropped without a word); n stays.
func TestQuitWithStagedOpsAsks(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.command(`goto ["accounts", "acme"]`)
	a.waitFor("00000000000000000038")
	a.keys("c")
	a.waitFor("COMPOSE · 2 operation(s)")
	a.keys("q")
	a.waitFor("Quit and give up what is not saved?", "2 staged operation(s)")
	a.keys("n")
	a.keys("2")
	a.waitFor("[2 Leases]")
	m := a.final()
	if m.tab != tabLeases {
		t.Fatalf("q quit without asking (tab %v)", m.tab)
	}
	// Quit anyway (a signal): the composition is kept as the atomic JSON
	// document kvdeck atomic commits, and the last line says so.
	dir, getenv := stateDir(t)
	lines := m.exitReport(getenv, os.Getpid())
	if len(lines) != 1 || !strings.HasSuffix(lines[0], "' writes it") || !strings.Contains(lines[0], " atomic '") {
		t.Fatalf("exit report: %q", lines)
	}
	b, err := os.ReadFile(keptPath(t, lines[0], dir))
	if err != nil {
		t.Fatal(err)
	}
	if checks, muts, err := atomicjson.Parse(b); err != nil || len(checks) != 1 || len(muts) != 1 {
		t.Fatalf("the kept composition: %d check(s), %d mutation(s), %v:\n%s", len(checks), len(muts), err, b)
	}
}
