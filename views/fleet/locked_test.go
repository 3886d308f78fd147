package fleet

import (
	"strings"
	"testing"

	"kvdeck/views"
)

// TestLockedReadSaidOnce: a store whose read took SQLite's locks (its
// rollback-journal file could not be read without them) is said so on
// the flash line, once for the row however many reads do.
func TestLockedReadSaidOnce(t *testing.T) {
	m := goldenFleet(t)
	note := "file:/srv/legacy.db is a rollback-journal file, and kvdeck now reads it with SQLite's locks: ..."
	m, cmd := m.Update(read{name: "dev", locked: note})
	if cmd == nil {
		t.Fatal("no flash for a read made with locks")
	}
	if f, ok := cmd().(views.FlashMsg); !ok || f.Level != views.FlashError || !strings.HasPrefix(f.Text, "dev: "+note) {
		t.Errorf("flash %+v", f)
	}
	if _, cmd = m.Update(read{name: "dev", locked: note}); cmd != nil {
		t.Errorf("said again: %v", cmd())
	}
	if _, cmd = m.Update(read{name: "prod-us"}); cmd != nil {
		t.Errorf("a read without locks said %v", cmd())
	}
}
