package journal

import (
	"encoding/hex"
	"fmt"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// List reads every entry, oldest first, with notes for what was skipped.
func (j *Journal) List() ([]Entry, []Note, error) {
	lines, notes, err := j.readLines()
	if err != nil {
		return nil, nil, err
	}
	return join(lines), notes, nil
}

// join makes entries of lines: an intent opens an entry, its outcome
// completes it. The writing process's own applied or not-applied wins
// over a settlement (Settle may have read the keys while the write was
// still on its way); a settlement wins over the writer's "unknown". An
// outcome whose intent is gone (rotated away, torn) is dropped.
func join(lines []line) []Entry {
	var order []string
	byID := map[string]*Entry{}
	told := map[string]bool{} // the writer's own outcome was read
	for _, l := range lines {
		r := l.rec
		switch r.T {
		case recIntent:
			if byID[r.ID] != nil {
				continue
			}
			byID[r.ID] = intentEntry(r)
			order = append(order, r.ID)
		case recOutcome:
			e := byID[r.ID]
			unknown := store.Outcome(r.Outcome) == store.OutcomeUnknown
			if e == nil || (r.Settled && told[r.ID]) || (!r.Settled && unknown && e.Settled) {
				continue
			}
			if !r.Settled && !unknown {
				told[r.ID] = true
			}
			e.ended = true
			e.Outcome = store.Outcome(r.Outcome)
			e.Stamp = r.Stamp
			e.BeforeUnknown = r.BeforeUnknown
			e.Settled = r.Settled
			e.Err = r.Err
			e.Before = e.Before[:0]
			for _, b := range r.Before {
				row, _ := b.row() // validated by parseLine
				e.Before = append(e.Before, row)
			}
		}
	}
	out := make([]Entry, 0, len(order))
	index := map[string]int{}
	for _, id := range order {
		e := byID[id]
		e.After = afterOf(*e)
		index[id] = len(out)
		out = append(out, *e)
	}
	for _, e := range out {
		if e.Undoes != "" && e.Outcome == store.OutcomeApplied {
			if i, ok := index[e.Undoes]; ok {
				out[i].UndoneBy = e.ID
			}
		}
	}
	return out
}

// intentEntry is the entry an intent line opens: outcome unknown until
// its outcome line is read.
func intentEntry(r record) *Entry {
	e := &Entry{ID: r.ID, Time: time.UnixMilli(r.At), Op: r.Op, Kind: r.Kind, Outcome: store.OutcomeUnknown,
		Undoes: r.Undoes, PID: r.PID, Host: r.Host, Setting: r.Setting.change()}
	for _, k := range r.Keys {
		raw, _ := hex.DecodeString(k) // validated by parseLine
		e.Keys = append(e.Keys, raw)
	}
	for _, c := range r.Checks {
		k, _ := decodeKey(c.K)
		e.Checks = append(e.Checks, store.Check{Key: k, Versionstamp: c.Stamp})
	}
	for _, m := range r.Muts {
		mu, _ := m.mutation()
		e.Mutations = append(e.Mutations, mu)
	}
	for _, o := range r.Restores {
		op, _ := o.op()
		e.Restores = append(e.Restores, op)
	}
	return e
}

// afterOf is, for an applied entry whose before-images are known, the
// ver each key it changed was left at: the write's stamp for a key it
// set, 0 for a key whose row it removed. A key it deleted that had no row
// is not changed. nil when it cannot be known (not applied, before-images
// unknown, a set without a readable stamp).
func afterOf(e Entry) map[string]int64 {
	if e.Outcome != store.OutcomeApplied || e.BeforeUnknown {
		return nil
	}
	had := map[string]bool{}
	for _, b := range e.Before {
		had[string(b.Key)] = true
	}
	stamp := func() (int64, bool) {
		v, err := codec.ParseStamp(e.Stamp)
		return v, err == nil && v > 0
	}
	after := map[string]int64{}
	switch {
	case len(e.Restores) > 0:
		for _, o := range e.Restores {
			k := string(o.Key)
			if o.Put != nil {
				v, ok := stamp()
				if !ok {
					return nil
				}
				after[k] = v
			} else {
				delete(after, k)
				if had[k] {
					after[k] = 0
				}
			}
		}
	case len(e.Mutations) > 0:
		for _, m := range e.Mutations {
			enc, err := codec.Encode(m.Key)
			if err != nil {
				return nil
			}
			k := string(enc)
			if m.Type == store.MutationSet {
				v, ok := stamp()
				if !ok {
					return nil
				}
				after[k] = v
			} else {
				delete(after, k)
				if had[k] {
					after[k] = 0
				}
			}
		}
	default:
		// A sweep batch, DeleteRaw: Before holds the rows it deleted.
		for k := range had {
			after[k] = 0
		}
	}
	return after
}

// Undoable says why e cannot be undone, or nil; entries (List) resolve the
// entry that undid it.
func Undoable(e Entry, entries []Entry) error {
	switch {
	case e.Outcome == store.OutcomeNotApplied:
		return fmt.Errorf("%w: entry %s (%s) was not applied: there is nothing to undo", ErrNotUndoable, e.ID, e.Op)
	case e.Outcome != store.OutcomeApplied:
		return fmt.Errorf("%w: entry %s (%s) has an unknown outcome: reading its keys could not tell whether it was applied", ErrNotUndoable, e.ID, e.Op)
	case e.BeforeUnknown:
		return fmt.Errorf("%w: entry %s (%s) was applied, but the rows it replaced are unknown (its answer was lost, or it was settled by reading its keys): it cannot be undone", ErrNotUndoable, e.ID, e.Op)
	case e.After == nil:
		return fmt.Errorf("%w: entry %s (%s) was applied without a readable versionstamp: the rows it left cannot be checked", ErrNotUndoable, e.ID, e.Op)
	case len(e.After) == 0 && e.Setting == nil:
		return fmt.Errorf("%w: entry %s (%s) changed no row: there is nothing to restore", ErrNotUndoable, e.ID, e.Op)
	case e.UndoneBy != "":
		last := e.UndoneBy
		for seen := 0; seen < len(entries); seen++ {
			next := ""
			for _, x := range entries {
				if x.ID == last {
					next = x.UndoneBy
				}
			}
			if next == "" {
				break
			}
			last = next
		}
		if last == e.UndoneBy {
			return fmt.Errorf("%w: entry %s (%s) is already undone by %s; undo %s to redo it", ErrNotUndoable, e.ID, e.Op, e.UndoneBy, e.UndoneBy)
		}
		return fmt.Errorf("%w: entry %s (%s) was undone by %s, and that by later undos up to %s; undo %s instead", ErrNotUndoable, e.ID, e.Op, e.UndoneBy, last, last)
	}
	return nil
}

// KeyText is an encoded key as people read it: the key text when it
// decodes, else 0x and its hex.
func KeyText(raw []byte) string {
	if k, err := codec.Decode(raw); err == nil {
		return codec.Format(k)
	}
	return "0x" + hex.EncodeToString(raw)
}
