package journal

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// What the journal keeps. A store's journal is one file; when it has
// grown past maxBytes (DefaultMaxBytes), the first write of the next
// action compacts it: the oldest action histories (a user action with
// its undos and redos, which refer to each other's rows) are dropped,
// whole, until what is left fits half the cap. The newest history is
// always kept whole, however large, and so is any with a write still in
// flight; nothing is dropped by count or age. Dropping a history that
// could still be undone is said on the command whose write dropped it
// (Notices).

// compactIfFull compacts the journal when it is past the cap. The caller
// holds j.mu; the rewrite holds NAME.lock exclusively, so no process
// appends meanwhile.
func (j *Journal) compactIfFull() error {
	if j.size() < j.maxBytes {
		return nil
	}
	unlock, err := lockFile(j.path+".lock", true)
	if err != nil {
		return err
	}
	defer unlock()
	if j.size() < j.maxBytes {
		return nil // another process compacted it meanwhile
	}
	lines, _, err := j.readLines()
	if err != nil {
		return err
	}
	keep, dropped := j.retain(lines)
	if len(dropped) == 0 {
		return nil
	}
	tmp := j.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	var werr error
	for _, l := range keep {
		if _, werr = f.Write(append(l.raw, '\n')); werr != nil {
			break
		}
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, j.path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("compacting the journal: %w", werr)
	}
	j.unsynced = false // the kept lines were synced into the new file
	if err := os.Remove(j.path + ".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if note := dropNotice(j.path, j.maxBytes, dropped); note != "" {
		j.notices = append(j.notices, note)
	}
	return syncDir(j.dir)
}

// size is the bytes of the journal's files.
func (j *Journal) size() int64 {
	var n int64
	for _, p := range []string{j.path, j.path + ".1"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// retain (with j.mu held) picks the lines to keep: whole histories, newest first, while
// they fit half the cap (the newest, and any with a write in flight,
// always); the dropped user actions, with whether each was undoable.
func (j *Journal) retain(lines []line) (keep []line, dropped []droppedAction) {
	h := group(join(lines))
	rootOf := map[string]string{} // action ID -> its history's root
	for _, a := range h.Actions {
		rootOf[a.ID] = h.Root(a).ID
	}
	actOf := map[string]string{} // entry ID -> action ID
	for _, e := range h.Entries {
		actOf[e.ID] = e.Act
	}
	// Each history's bytes, and where its newest line stands.
	type hist struct {
		bytes  int64
		newest int
		keep   bool
	}
	hists := map[string]*hist{}
	for i, l := range lines {
		r := rootOf[actOf[l.rec.ID]]
		if r == "" {
			continue // an outcome whose intent is gone
		}
		x := hists[r]
		if x == nil {
			x = &hist{}
			hists[r] = x
		}
		x.bytes += int64(len(l.raw)) + 1
		x.newest = i
	}
	for _, e := range h.Entries {
		if j.inFlightLocked(e) {
			hists[rootOf[e.Act]].keep = true
		}
	}
	roots := make([]string, 0, len(hists))
	for r := range hists {
		roots = append(roots, r)
	}
	sort.Slice(roots, func(a, b int) bool { return hists[roots[a]].newest > hists[roots[b]].newest })
	var total int64
	for i, r := range roots {
		x := hists[r]
		if i == 0 || x.keep || total+x.bytes <= j.maxBytes/2 {
			x.keep = true
			total += x.bytes
		}
	}
	for _, l := range lines {
		if x := hists[rootOf[actOf[l.rec.ID]]]; x != nil && x.keep {
			keep = append(keep, l)
		}
	}
	for _, a := range h.Actions {
		if a.Undoes != "" || hists[a.ID] == nil || hists[a.ID].keep {
			continue
		}
		dropped = append(dropped, droppedAction{Action: a, undoable: h.Undoable(a) == nil})
	}
	return keep, dropped
}

// droppedAction is a user action compaction dropped.
type droppedAction struct {
	Action
	undoable bool
}

// dropNotice says what compaction dropped: how many actions, from when
// to when, and the newest that could still have been undone; "" when
// none of them could.
func dropNotice(path string, maxBytes int64, dropped []droppedAction) string {
	var last *droppedAction
	n := 0
	for i := range dropped {
		if dropped[i].undoable {
			n++
			last = &dropped[i]
		}
	}
	if last == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the write journal %s grew past %s and dropped its %d oldest action(s)", path, sizeText(maxBytes), len(dropped))
	fmt.Fprintf(&b, ", %d of them still undoable, the newest %s (%s, %s): they can no longer be undone",
		n, last.ID, last.Op, last.Time.UTC().Format("2006-01-02T15:04:05Z"))
	return b.String()
}

// sizeText is a size in MiB, KiB or bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2g KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
