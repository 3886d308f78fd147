package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// TestStatusBarCommitRate: the version reads the refresh makes anyway
// feed the status bar's commits-per-second chart, on the wall time the
// reads arrived (a fixed clock here); the chart shows once two reads
// could be compared, and gives way on a narrow screen when the database
// name would lose its room.
func TestStatusBarCommitRate(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	// In WAL mode: a rollback-journal file's mark (TestRollbackJournalMark)
	// would take the rate's room on these screens.
	if _, err := s.SetJournalMode(storetest.Ctx(t), store.JournalWAL); err != nil {
		t.Fatal(err)
	}
	m := newModel(s, Config{Clock: clock, Refresh: time.Hour}, themes.NewStyles(themes.Mono()), func(string) error { return nil })
	wall := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	m.wall = func() time.Time { return wall }
	m.setSize(120, 40)

	read := func(seq int64, after time.Duration) {
		wall = wall.Add(after)
		next, _ := m.Update(versionRead{session: m.session, version: store.Version{Seq: seq, Rows: 60}})
		m = next.(model)
	}
	read(63, 0)
	read(63, time.Second)
	if bar := ansi.Strip(m.statusBar()); strings.Contains(bar, "commits/s") {
		t.Fatalf("a quiet store drew a rate: %q", bar)
	}
	seq := int64(63)
	for i, d := range []int64{0, 2, 5, 1, 0, 0, 8, 3} {
		seq += d
		after := time.Second
		if i == 3 {
			after = 2 * time.Second // a skipped tick: the rate is per second, not per read
		}
		read(seq, after)
	}
	wide := ansi.Strip(m.statusBar())
	if !strings.Contains(wide, "3.0 commits/s") {
		t.Errorf("the newest rate is 3 a second: %q", wide)
	}
	m.setSize(80, 24)
	narrow := ansi.Strip(m.statusBar())
	m.setSize(60, 24)
	tight := ansi.Strip(m.statusBar())
	if strings.Contains(tight, "/s") {
		t.Errorf("at 60 columns the rate should give way to the database name: %q", tight)
	}
	// The database is a temporary file: the goldens start after its name.
	after := func(bar string) string { _, rest, _ := strings.Cut(bar, "│"); return rest }
	golden.RequireEqual(t, after(wide)+"\n"+after(narrow)+"\n"+after(tight)+"\n")
}
