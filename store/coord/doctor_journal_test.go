package coord_test

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// TestDoctorNamesRollbackJournal: doctor names a rollback-journal file
// (a warning: what it costs, what WAL changes, the command that
// switches), and no longer once it is switched to WAL; Inspect, which
// the TUI's tabs show, leaves it out.
func TestDoctorNamesRollbackJournal(t *testing.T) {
	ctx := storetest.Ctx(t)
	path, s := storetest.RollbackJournalStore(t, 20, store.Options{})
	fs, err := coord.Doctor(ctx, s, storetest.T0)
	must(t, err)
	if len(fs) != 1 || fs[0].Severity != coord.SeverityWarning || fs[0].Code != "store.rollback-journal" || fs[0].Key != nil ||
		fs[0].Message != s.JournalAdvice() || !strings.Contains(fs[0].Message, "kvdeck wal --db file:"+path) {
		t.Fatalf("findings %q", fs)
	}
	if coord.HasErrors(fs) {
		t.Error("the rollback journal is an error: doctor would fail a cron job for it")
	}
	r, err := coord.Inspect(ctx, s, storetest.T0)
	must(t, err)
	if len(r.Findings) != 0 {
		t.Errorf("Inspect reports %q", brief(r.Findings))
	}
	if _, err := s.SetJournalMode(ctx, store.JournalWAL); err != nil {
		t.Fatal(err)
	}
	fs, err = coord.Doctor(ctx, s, storetest.T0)
	must(t, err)
	if len(fs) != 0 {
		t.Errorf("findings after the switch to WAL: %q", brief(fs))
	}
}
