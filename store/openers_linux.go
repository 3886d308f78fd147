//go:build linux

package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// SeesOpeners reports whether kvdeck can tell which other processes have
// a file open (otherOpeners): on Linux, through /proc.
func SeesOpeners() bool { return true }

// otherOpeners lists the processes of this machine, this one excepted,
// that have the file at path open, as /proc shows them: a descriptor
// whose link names a file of the same name is stat'ed and compared with
// the file (nothing is opened). A process whose descriptors kvdeck may
// not list (another user's) is listed, as unseen, when it runs as the
// file's owner: it may well be the service. Other users' processes are
// not seen (run kvdeck as root to see them).
func otherOpeners(path string) ([]opener, error) {
	target, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	owner := ownerOf(target)
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self, uid, base := os.Getpid(), uint32(os.Getuid()), filepath.Base(path)
	var out []opener
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		dir := filepath.Join("/proc", p.Name())
		fds, err := os.ReadDir(filepath.Join(dir, "fd"))
		if errors.Is(err, fs.ErrPermission) && owner != uid {
			if st, err := os.Stat(dir); err == nil && ownerOf(st) == owner {
				out = append(out, opener{pid: pid, command: commandOf(dir), unseen: true})
			}
			continue
		}
		if err != nil {
			continue // gone meanwhile, or not ours to see
		}
		for _, fd := range fds {
			link := filepath.Join(dir, "fd", fd.Name())
			if dest, err := os.Readlink(link); err != nil || filepath.Base(strings.TrimSuffix(dest, " (deleted)")) != base {
				continue
			}
			if fi, err := os.Stat(link); err == nil && os.SameFile(fi, target) {
				out = append(out, opener{pid: pid, command: commandOf(dir)})
				break
			}
		}
	}
	return out, nil
}

// ownerOf is the user id that owns a file.
func ownerOf(fi os.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid
	}
	return ^uint32(0)
}

// commandOf is a process's command name (/proc/PID/comm), "" when gone.
func commandOf(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
