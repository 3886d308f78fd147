//go:build linux

package store

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalFileSystem: the file systems where the kernel sees every
// write are watched; network and FUSE ones, and any kvdeck does not know,
// are not (another machine's writes would reach the file unseen).
func TestLocalFileSystem(t *testing.T) {
	for magic, want := range map[uint32]bool{
		0xEF53: true, 0x58465342: true, 0x01021994: true, 0x858458F6: true, 0x794C7630: true,
		0x6969: false, 0xFF534D42: false, 0x65735546: false, 0x01021997: false, 0x12345678: false,
	} {
		if name, got := localFileSystem(magic); got != want {
			t.Errorf("0x%x (%s): local %v, want %v", magic, name, got, want)
		}
	}
	if name, _ := localFileSystem(0x12345678); !strings.Contains(name, "0x12345678") {
		t.Errorf("an unknown file system is named %q", name)
	}
	w, why := newFileWatch(filepath.Join(t.TempDir(), "missing.db"))
	if w != nil || !strings.Contains(why, "no such file") {
		t.Errorf("a watch of a missing file: %v, %q", w, why)
	}
}
