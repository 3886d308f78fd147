package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"kvdeck/store"
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
// appends meanwhile. It streams: the first pass keeps only each line's
// head (whose write and action it is, how it ended), not the rows it
// carries, and the second copies the kept lines from the file as they
// are; a 120 MB journal of a 1M-row load cost the next write 15-42 s and
// 1.1 GB when it was read whole.
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
	var heads []headLine
	err = j.eachLine(func(file string, no int, text []byte, _ bool) error {
		if h, cut, ok := headNumbered(text); ok {
			heads = append(heads, headLine{file: file, no: no, cut: cut, size: int64(len(text) - cut), h: h})
		}
		return nil
	})
	if err != nil {
		return err
	}
	keep, dropped := j.retain(heads)
	if len(dropped) == 0 {
		return nil
	}
	if err := j.rewrite(heads, keep); err != nil {
		return fmt.Errorf("compacting the journal: %w", err)
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

// rewrite writes the kept lines of heads, read again from the files in
// the same order, to a new file that replaces the journal.
func (j *Journal) rewrite(heads []headLine, keep []bool) error {
	tmp := j.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	next := 0
	werr := j.eachLine(func(file string, no int, text []byte, _ bool) error {
		if next >= len(heads) || heads[next].file != file || heads[next].no != no {
			return nil // a line the first pass skipped
		}
		l := heads[next]
		next++
		if !keep[next-1] {
			return nil
		}
		if int64(len(text)-l.cut) != l.size {
			return fmt.Errorf("%s:%d changed during compaction", file, no)
		}
		w.Write(text[l.cut:])
		return w.WriteByte('\n')
	})
	if werr == nil {
		werr = w.Flush()
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
	}
	return werr
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

// head is what compaction reads of a line: whose write and action it is
// and how the write ended, not the rows it carries.
type head struct {
	T             string `json:"t"`
	ID            string `json:"id"`
	At            int64  `json:"at"`
	Act           string `json:"act"`
	Host          string `json:"host"`
	PID           int    `json:"pid"`
	Op            string `json:"op"`
	Undoes        string `json:"undoes"`
	Outcome       string `json:"outcome"`
	BeforeUnknown bool   `json:"beforeUnknown"`
	Settled       bool   `json:"settled"`
}

// headLine is a line's head and where it stands: file, line number, the
// offset of the good line in its text (after a torn one) and its size.
type headLine struct {
	file    string
	no, cut int
	size    int64
	h       head
}

// parseHead reads a line's head: its checksum must match and its kind,
// id and outcome be known (parseLine's checks of the rows it carries are
// not made: compaction keeps or drops the line whole). The rows are
// passed over without being decoded (headFields), which is most of what
// compaction reads.
func parseHead(text []byte) (head, error) {
	body, err := lineBody(text)
	if err != nil {
		return head{}, err
	}
	var h head
	if !headFields(body, &h) {
		h = head{}
		if err := json.Unmarshal(body, &h); err != nil {
			return head{}, fmt.Errorf("%w: %w", errLine, err)
		}
	}
	r := record{T: h.T, ID: h.ID, Outcome: h.Outcome}
	if err := r.validate(); err != nil {
		return head{}, fmt.Errorf("%w: %w", errLine, err)
	}
	return h, nil
}

// headFields reads h from a record's text: the head's fields decoded
// one by one, every other member's value passed over by its brackets
// and quotes. false when the text is not a plain object of plain names,
// or a head field does not decode: json.Unmarshal then reads it whole.
func headFields(body []byte, h *head) bool {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return skipSpace(body, i+1) == len(body)
	}
	for {
		if i >= len(body) || body[i] != '"' {
			return false
		}
		end := bytes.IndexByte(body[i+1:], '"')
		if end < 0 {
			return false
		}
		name := body[i+1 : i+1+end]
		for _, c := range name {
			if c == '\\' || c >= 0x80 {
				return false // escapes and folding: encoding/json's call
			}
		}
		i = skipSpace(body, i+2+end)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		i = skipSpace(body, i+1)
		vend, ok := skipJSON(body, i)
		if !ok {
			return false
		}
		if field := h.field(string(name)); field != nil {
			if err := json.Unmarshal(body[i:vend], field); err != nil {
				return false
			}
		}
		i = skipSpace(body, vend)
		if i >= len(body) {
			return false
		}
		switch body[i] {
		case ',':
			i = skipSpace(body, i+1)
		case '}':
			return skipSpace(body, i+1) == len(body)
		default:
			return false
		}
	}
}

// field is the head field a member name decodes into (matched as
// encoding/json matches them, case folded), nil for any other.
func (h *head) field(name string) any {
	for _, f := range []struct {
		name string
		p    any
	}{{"t", &h.T}, {"id", &h.ID}, {"at", &h.At}, {"act", &h.Act}, {"host", &h.Host}, {"pid", &h.PID}, {"op", &h.Op},
		{"undoes", &h.Undoes}, {"outcome", &h.Outcome}, {"beforeUnknown", &h.BeforeUnknown}, {"settled", &h.Settled}} {
		if strings.EqualFold(f.name, name) {
			return f.p
		}
	}
	return nil
}

// skipSpace is the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipJSON is the end of the value starting at b[i], found by its
// quotes and brackets only (what it holds is not checked).
func skipJSON(b []byte, i int) (int, bool) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return i, false
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, true
			}
			depth--
			i++
		case ',':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
		if depth == 0 && i > 0 && (b[i-1] == '"' || b[i-1] == '}' || b[i-1] == ']') {
			return i, true
		}
	}
	return i, depth == 0
}

// headNumbered is parseNumbered's reading for heads: the line, or the
// good line after a torn one on the same line (cut is where it starts).
func headNumbered(text []byte) (h head, cut int, ok bool) {
	if h, err := parseHead(text); err == nil {
		return h, 0, true
	}
	if i := bytes.LastIndex(text, []byte(linePrefix)); i > 0 {
		if h, err := parseHead(text[i:]); err == nil {
			return h, i, true
		}
	}
	return head{}, 0, false
}

// liteEntry is a write as its heads tell it (join's rules for which
// outcome counts).
type liteEntry struct {
	h                    head
	outcome              store.Outcome
	told, settled, ended bool
	beforeUnknown        bool
}

// liteAction is a user action, undo or redo as the heads tell it.
type liteAction struct {
	id, op           string
	at               int64
	entries          []*liteEntry
	undoes, undoneBy string
}

// joinHeads makes writes of heads as join makes entries of lines: the
// first intent of an id opens it, and an outcome counts by join's rules.
func joinHeads(lines []headLine) (map[string]*liteEntry, []*liteEntry) {
	byID := map[string]*liteEntry{}
	var order []*liteEntry
	for _, l := range lines {
		h := l.h
		e := byID[h.ID]
		switch h.T {
		case recIntent:
			if e != nil {
				continue
			}
			if h.Act == "" {
				h.Act = h.ID
			}
			e = &liteEntry{h: h, outcome: store.OutcomeUnknown}
			byID[h.ID] = e
			order = append(order, e)
		case recOutcome:
			unknown := store.Outcome(h.Outcome) == store.OutcomeUnknown
			if e == nil || (h.Settled && (e.told || e.settled)) || (!h.Settled && unknown && e.settled) {
				continue
			}
			e.told = e.told || (!h.Settled && !unknown)
			e.ended, e.outcome, e.settled, e.beforeUnknown = true, store.Outcome(h.Outcome), h.Settled, h.BeforeUnknown
		}
	}
	return byID, order
}

// groupHeads makes actions of writes as group does: what each takes
// back, and which applied action took each back.
func groupHeads(byID map[string]*liteEntry, order []*liteEntry) (map[string]*liteAction, []*liteAction) {
	acts := map[string]*liteAction{}
	var actOrder []*liteAction
	for _, e := range order {
		a := acts[e.h.Act]
		if a == nil {
			a = &liteAction{id: e.h.Act, op: e.h.Op, at: e.h.At}
			acts[a.id] = a
			actOrder = append(actOrder, a)
		}
		a.entries = append(a.entries, e)
	}
	for _, a := range actOrder {
		for _, e := range a.entries {
			if e.h.Undoes == "" {
				continue
			}
			t := e.h.Undoes
			if acts[t] == nil {
				t = ""
				if te := byID[e.h.Undoes]; te != nil {
					t = te.h.Act
				}
			}
			if t != "" && t != a.id {
				a.undoes = t
			}
			break
		}
	}
	for _, a := range actOrder {
		if t := acts[a.undoes]; t != nil && a.applied() {
			t.undoneBy = a.id
		}
	}
	return acts, actOrder
}

// retain (with j.mu held) picks the lines to keep: whole histories,
// newest first, while they fit half the cap (the newest, and any with a
// write in flight, always); and the dropped user actions, with whether
// each was undoable as far as the heads tell: a user action not undone
// whose last link applied a write with known before-images (an action
// that changed nothing, or was made in an earlier life of the database,
// is counted undoable here).
func (j *Journal) retain(lines []headLine) (keep []bool, dropped []droppedAction) {
	byID, order := joinHeads(lines)
	acts, actOrder := groupHeads(byID, order)
	hists, lineRoot := historiesOf(lines, byID, acts)
	for _, e := range order {
		if j.inFlightLocked(Entry{ID: e.h.ID, Host: e.h.Host, PID: e.h.PID, ended: e.ended}) {
			hists[rootOf(acts, e.h.Act)].keep = true
		}
	}
	j.keepNewest(hists)
	keep = make([]bool, len(lines))
	for i := range lines {
		if x := hists[lineRoot[i]]; lineRoot[i] != "" && x.keep {
			keep[i] = true
		}
	}
	for _, a := range actOrder {
		if a.undoes != "" || hists[a.id] == nil || hists[a.id].keep {
			continue
		}
		dropped = append(dropped, droppedAction{Action: Action{ID: a.id, Op: a.op, Time: time.UnixMilli(a.at)}, undoable: a.undoable(acts)})
	}
	return keep, dropped
}

// history is one user action with its undos and redos: the bytes of its
// lines, where its newest line stands, and whether it is kept.
type history struct {
	bytes  int64
	newest int
	keep   bool
}

// rootOf names the user action at the root of id's chain of undos ("" for
// an action the heads do not hold); the walk is bounded by the number of
// actions, so a cycle in a damaged journal ends.
func rootOf(acts map[string]*liteAction, id string) string {
	a := acts[id]
	for n := 0; a != nil && a.undoes != "" && n < len(acts); n++ {
		t := acts[a.undoes]
		if t == nil {
			break
		}
		a = t
	}
	if a == nil {
		return ""
	}
	return a.id
}

// historiesOf sums each history's lines and names the root of every line
// ("" for an outcome whose intent is gone).
func historiesOf(lines []headLine, byID map[string]*liteEntry, acts map[string]*liteAction) (map[string]*history, []string) {
	hists := map[string]*history{}
	lineRoot := make([]string, len(lines))
	for i, l := range lines {
		e := byID[l.h.ID]
		if e == nil {
			continue
		}
		r := rootOf(acts, e.h.Act)
		lineRoot[i] = r
		x := hists[r]
		if x == nil {
			x = &history{}
			hists[r] = x
		}
		x.bytes += l.size + 1
		x.newest = i
	}
	return hists, lineRoot
}

// keepNewest keeps histories newest first while they fit half the cap;
// the newest is kept however large, and one already kept (in flight)
// stays.
func (j *Journal) keepNewest(hists map[string]*history) {
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
}

// applied: one of the action's writes applied.
func (a *liteAction) applied() bool {
	for _, e := range a.entries {
		if e.outcome == store.OutcomeApplied {
			return true
		}
	}
	return false
}

// undoable: the user action a is not undone, and the last link of its
// chain (itself, or its redo) applied a write whose before-images are
// known.
func (a *liteAction) undoable(acts map[string]*liteAction) bool {
	l, n := a, 1
	for ; l.undoneBy != "" && n <= len(acts); n++ {
		next := acts[l.undoneBy]
		if next == nil {
			break
		}
		l = next
	}
	if n%2 == 0 {
		return false
	}
	for _, e := range l.entries {
		if e.outcome == store.OutcomeApplied && !e.beforeUnknown {
			return true
		}
	}
	return false
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
