//go:build linux

package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"syscall"
)

// fileWatch is an inotify watch on the database file (IN_MODIFY): the
// kernel queues an event for every write to the file and every change of
// its size, whichever process of this machine made it, before that write's
// system call returns. A lock-free read notes the events read so far
// before it starts (begin) and keeps its answer only when none was read
// since (still), by itself or by a read beside it on another connection:
// every read of the queue counts what it found, so one read's drain
// never swallows an event another needed (lockfree.go). Nothing is
// opened on the database file itself.
type fileWatch struct {
	mu     sync.Mutex
	fd, wd int
	path   string
	// events counts the reads of the queue that found events.
	events uint64
	// stale: the kernel dropped the watch (the file's inode went away or
	// its file system was unmounted); begin watches the path again.
	stale bool
	buf   [4096]byte // events of a file's watch carry no name: 16 bytes each
}

// newFileWatch watches the database file at path; where it cannot see
// every write, it returns nil and says why, in words for the user.
func newFileWatch(path string) (*fileWatch, string) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return nil, fmt.Sprintf("kvdeck cannot tell which file system holds it (%v)", err)
	}
	if name, ok := localFileSystem(uint32(st.Type)); !ok {
		return nil, fmt.Sprintf("its file system (%s) may not report writes made on another machine", name)
	}
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, "inotify is not available to kvdeck: " + inotifyLimit(err, "max_user_instances")
	}
	w := &fileWatch{fd: fd, path: path}
	if err := w.add(); err != nil {
		syscall.Close(fd)
		return nil, "inotify cannot watch the file: " + inotifyLimit(err, "max_user_watches")
	}
	return w, ""
}

// inotifyLimit names the limit behind an inotify error, when one is.
func inotifyLimit(err error, limit string) string {
	if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENOSPC) {
		return fmt.Sprintf("%v (the limit is the sysctl fs.inotify.%s)", err, limit)
	}
	return err.Error()
}

// add watches the path (again).
func (w *fileWatch) add() error {
	wd, err := syscall.InotifyAddWatch(w.fd, w.path, syscall.IN_MODIFY)
	if err != nil {
		return err
	}
	w.wd, w.stale = wd, false
	return nil
}

// begin empties the queue before a read and returns the count of events
// read so far, for still. ok is false when the file is not watched (it
// went away and its path could not be watched again): no read may then
// be kept.
func (w *fileWatch) begin() (at uint64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.pending() {
	}
	if w.stale {
		_ = w.add()
	}
	return w.events, !w.stale
}

// still reports whether no event came since begin returned at, whoever
// read it from the queue.
func (w *fileWatch) still(at uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending()
	return w.events == at && !w.stale
}

// pending reads the queued events, noting a dropped watch (or a queue
// that cannot be read) as stale; it reports whether there were any, and
// counts them in events.
func (w *fileWatch) pending() bool {
	for {
		n, err := syscall.Read(w.fd, w.buf[:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return false
		case err != nil || n <= 0:
			// Counted as an event: a read beside this one may watch the
			// path again before this one's still.
			w.stale = true
			w.events++
			return false
		}
		for b := w.buf[:n]; len(b) >= syscall.SizeofInotifyEvent; {
			if binary.NativeEndian.Uint32(b[4:])&syscall.IN_IGNORED != 0 {
				w.stale = true
			}
			b = b[min(len(b), syscall.SizeofInotifyEvent+int(binary.NativeEndian.Uint32(b[12:]))):]
		}
		w.events++
		return true
	}
}

// close ends the watch (once; a read after it finds the watch stale).
func (w *fileWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		syscall.Close(w.fd)
		w.fd = -1
	}
}

// localFileSystem names the file system of magic number magic (statfs's
// f_type), and reports whether it is a local one, where the kernel that
// queues inotify's events sees every write (an allowlist: on a network
// or FUSE file system another machine's writes reach the file unseen).
func localFileSystem(magic uint32) (name string, local bool) {
	switch magic {
	case 0xEF53:
		return "ext4", true
	case 0x58465342:
		return "xfs", true
	case 0x9123683E:
		return "btrfs", true
	case 0x01021994:
		return "tmpfs", true
	case 0x858458F6:
		return "ramfs", true
	case 0xF2F52010:
		return "f2fs", true
	case 0x2FC12FC1:
		return "zfs", true
	case 0xCA451A4E:
		return "bcachefs", true
	case 0x794C7630:
		return "overlayfs", true
	case 0x3153464A:
		return "jfs", true
	case 0x52654973:
		return "reiserfs", true
	case 0x4D44:
		return "vfat", true
	case 0x2011BAB0:
		return "exfat", true
	case 0x7366746E:
		return "ntfs3", true
	case 0x482B:
		return "hfsplus", true
	case 0x6969:
		return "nfs", false
	case 0xFF534D42, 0xFE534D42, 0x517B:
		return "smb", false
	case 0x65735546:
		return "fuse", false
	case 0x01021997:
		return "9p", false
	case 0x00C36400:
		return "ceph", false
	case 0x01161970:
		return "gfs2", false
	case 0x7461636F:
		return "ocfs2", false
	case 0x6B414653, 0x5346414F:
		return "afs", false
	}
	return fmt.Sprintf("type 0x%x, not one kvdeck knows to be local", magic), false
}
