package editsession

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// descendants are the processes below pid (children, their children, …)
// as /proc shows them now, deepest last. A compound $EDITOR ("vim; make")
// runs under a shell that waits on the editor rather than exec'ing it, so
// stopping the shell alone would leave the editor running (issue 25 point
// 5). Where there is no /proc (macOS, the BSDs) the answer is empty and
// only the process the session started is stopped.
func descendants(pid int) []int {
	parents := parentsOf()
	var out []int
	for frontier := []int{pid}; len(frontier) > 0; {
		var next []int
		for _, p := range frontier {
			next = append(next, parents[p]...)
		}
		out = append(out, next...)
		frontier = next
	}
	return out
}

// parentsOf maps each process to its children, from /proc/*/stat.
func parentsOf() map[int][]int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := make(map[int][]int)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentPid(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	return children
}

// running: pid exists (signal 0 tests without sending) and, where /proc
// says, is no zombie: an orphan that has ended waits there for a reaper
// that may be slow (PID 1 in a container).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// parentPid reads the fourth field of /proc/PID/stat; the second, the
// command name in parentheses, may itself hold spaces and parentheses,
// so the fields are counted after its last ')'.
func parentPid(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
