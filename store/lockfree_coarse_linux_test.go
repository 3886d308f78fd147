//go:build linux

package store_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"kvdeck/internal/testskip"
)

// TestLockFreeSpillOnRamfs: TestLockFreeSpillRolledBackWithinARead on a
// file system whose file times move once a clock tick (ramfs: 4 ms
// here), the file's time left as the writes leave it. The spill within
// a read is made again until one lands, with its playback, within the
// tick of the commit before it (the file's time unchanged over the read,
// as in the runs where stats counted rows never committed): no try that
// saw the spilled rows may be kept. It runs without -race (scripts/test
// quick): with it, no spill fits in a tick.
func TestLockFreeSpillOnRamfs(t *testing.T) {
	if raceOn {
		testskip.Skip(t, "under -race SQLite runs ~10x slower and a spill with its playback outlasts ramfs's 4 ms tick (TestLockFreeSpillRolledBackWithinARead sets the file's time back instead)")
	}
	path := filepath.Join(ramfs(t), "kv.db")
	ctx, w, s := spillStore(t, path)
	for attempt := 1; attempt <= 100; attempt++ {
		r := spillWithinRead(t, ctx, s, w, path, spillRows, false)
		if r.tries == 1 && r.expired != 0 {
			t.Fatalf("attempt %d: kept a read that counted %d expired rows, none committed (the file's time moved: %v)", attempt, r.expired, r.timeMoved)
		}
		if r.expired != 0 {
			t.Fatalf("attempt %d: kept a read (try %d) that counted %d expired rows, none committed", attempt, r.tries, r.expired)
		}
		if !r.timeMoved && r.phantoms > 0 {
			t.Logf("attempt %d: the spill and its playback within one tick of the file's time; the try that saw %d spilled rows was discarded", attempt, r.phantoms)
			return
		}
	}
	testskip.Skip(t, "the file's time moved over every spill within a read: ramfs times are not coarse here")
}

// ramfs mounts a ramfs (file times move once a clock tick) in a temporary
// folder for the test, skipping it where the test may not mount (not
// root, or no such file system).
func ramfs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ramfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("ramfs", dir, "ramfs", 0, "mode=700"); err != nil {
		testskip.Skip(t, "cannot mount a ramfs here (needs root): "+err.Error())
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}
