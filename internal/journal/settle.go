package journal

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// Settle decides, by evidence, the outcome of every write whose outcome
// is unknown (its process died between its intent and its outcome, or
// lost the answer), and records it with what was found (Entry.Why). A
// write whose process is still running on this machine is left alone.
//
// The evidence, in the store's own terms (docs/design/settlement.md):
//   - not applied: a key it would change still holds a row stamped no
//     later than the newest stamp recorded before its intent (its check's
//     stamp counts too): the write, atomic, would have replaced or
//     removed it; or it sets a key and every stamp the store issued since
//     its intent (seq against that bound) is another write's;
//   - applied, but not undoable (its before-images were never recorded):
//     it has no checks and every key holds exactly what it writes, the
//     set ones under one stamp newer than that bound. A write with checks
//     is not settled applied by reading: a rival that passed the same
//     checks would leave the same rows;
//   - anything else is unknown, and says which key to look at: a key that
//     shows nothing of the write may have been changed since by another
//     writer (a queue's consumer deletes the message it sent).
func (j *Journal) Settle(ctx context.Context, s *store.Store) error {
	entries, _, err := j.List()
	if err != nil {
		return err
	}
	_, err = j.settleAll(ctx, s, entries)
	return err
}

// settleAll settles entries (List's) and reports whether it wrote a line.
func (j *Journal) settleAll(ctx context.Context, s *store.Store, entries []Entry) (bool, error) {
	var todo []int
	for i, e := range entries {
		if e.Outcome == store.OutcomeUnknown && !e.Settled && !j.inFlight(e) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return false, nil
	}
	seq, err := s.Seq(ctx)
	if err != nil {
		return false, fmt.Errorf("settle the journal: %w", err)
	}
	// The stamps other writes are known to have taken.
	taken := map[int64]string{}
	for _, e := range entries {
		if v, err := codec.ParseStamp(e.Stamp); err == nil && v > 0 && e.Outcome == store.OutcomeApplied {
			taken[v] = e.ID
		}
	}
	verdicts := make([]record, len(todo))
	for n, i := range todo {
		v, err := j.settle(ctx, s, entries[i], seq)
		if err != nil {
			return false, fmt.Errorf("settle journal entry %s: %w", entries[i].ID, err)
		}
		verdicts[n] = v
		if st, err := codec.ParseStamp(v.Stamp); err == nil && st > 0 {
			taken[st] = v.ID
		}
	}
	for n, i := range todo {
		v := verdicts[n]
		if v.Outcome == string(store.OutcomeUnknown) {
			if why, ok := stampsAccounted(entries[i], seq, taken); ok {
				v.Outcome, v.Why = string(store.OutcomeNotApplied), why
			}
		}
		if err := j.writeRecord(v, true); err != nil {
			return true, fmt.Errorf("settle journal entry %s: %w", v.ID, err)
		}
	}
	return true, nil
}

// maxAccounted bounds the stamps stampsAccounted looks through.
const maxAccounted = 10000

// stampsAccounted: a write with a set would have taken a stamp above its
// bound; when every stamp the store issued since (up to seq) is another
// write's, it took none.
func stampsAccounted(e Entry, seq int64, taken map[int64]string) (string, bool) {
	if !hasSet(e) || seq < e.bound || seq-e.bound > maxAccounted {
		return "", false
	}
	for v := e.bound + 1; v <= seq; v++ {
		if id, ok := taken[v]; !ok || id == e.ID {
			return "", false
		}
	}
	if seq == e.bound {
		return fmt.Sprintf("the store's seq is still %d, the newest stamp recorded before the write: nothing with a set was committed since, and this write sets", seq), true
	}
	return fmt.Sprintf("every stamp the store issued since the write began (%d to %d) is another journaled write's, and this write, which sets, would have taken one", e.bound+1, seq), true
}

// hasSet: the write puts a row (so its commit bumps seq).
func hasSet(e Entry) bool {
	for _, m := range e.Mutations {
		if m.Type == store.MutationSet {
			return true
		}
	}
	for _, o := range e.Restores {
		if o.Put != nil {
			return true
		}
	}
	return false
}

// want is how a write leaves one key.
type want struct {
	key    []byte
	absent bool
	value  []byte
	// hash stands for value when only its hash was journaled.
	hash string
	exp  *int64
	// checkExp: the expiry was absolute, so it can be compared.
	checkExp bool
	// known: the value is known (a restore referring to rows no longer
	// in the journal leaves it unknown).
	known bool
}

// holds reports whether row is what w leaves (its value and, when known,
// expiry; no row for a delete).
func (w want) holds(row *store.RawRow) bool {
	if w.absent {
		return row == nil
	}
	if row == nil || !w.known {
		return false
	}
	if w.hash != "" {
		if valueHash(row.Value) != w.hash {
			return false
		}
	} else if !bytes.Equal(row.Value, w.value) {
		return false
	}
	return !w.checkExp || equalExp(row.ExpiresAt, w.exp)
}

// wants is how e would leave each key it writes, in key order of its
// mutations; false when it cannot be told.
func wants(e Entry) ([]want, bool) {
	var out []want
	at := map[string]int{}
	put := func(w want) {
		if i, ok := at[string(w.key)]; ok {
			out[i] = w
			return
		}
		at[string(w.key)] = len(out)
		out = append(out, w)
	}
	switch {
	case len(e.Restores) > 0:
		for _, o := range e.Restores {
			if o.Put == nil {
				put(want{key: o.Key, absent: true, known: true})
			} else {
				put(want{key: o.Key, value: o.Put.Value, exp: o.Put.ExpiresAt, checkExp: true, known: !e.unresolved})
			}
		}
	case len(e.Mutations) > 0:
		for i, m := range e.Mutations {
			enc, err := codec.Encode(m.Key)
			if err != nil {
				return nil, false
			}
			if m.Type != store.MutationSet {
				put(want{key: enc, absent: true, known: true})
				continue
			}
			w := want{key: enc, exp: m.ExpiresAt, checkExp: m.ExpireIn == nil, known: true}
			if i < len(e.hashes) && e.hashes[i] != "" {
				w.hash = e.hashes[i]
			} else if w.value, err = codec.NormalizeJSON(m.Value); err != nil {
				return nil, false
			}
			put(w)
		}
	default:
		for _, k := range e.Keys {
			put(want{key: k, absent: true, known: true})
		}
	}
	return out, true
}

// settle reads e's keys and returns the outcome line they tell (seq is
// the store's now).
func (j *Journal) settle(ctx context.Context, s *store.Store, e Entry, seq int64) (record, error) {
	rec := record{T: recOutcome, ID: e.ID, At: j.nowMS(), Settled: true, Outcome: string(store.OutcomeUnknown)}
	if e.Setting != nil {
		return settleSetting(s, e, rec), nil
	}
	ws, ok := wants(e)
	if !ok || len(ws) == 0 {
		rec.Why = "what it writes cannot be read back from the journal"
		return rec, nil
	}
	if seq < e.bound {
		rec.Why = fmt.Sprintf("the store's seq %d is below stamp %d, recorded before this write: the database was recreated or copied back from an older file since, and its rows cannot tell", seq, e.bound)
		return rec, nil
	}
	keys := make([][]byte, len(ws))
	for i, w := range ws {
		keys[i] = w.key
	}
	rows, err := s.ReadRows(ctx, keys)
	if err != nil {
		return rec, err
	}
	checked, read := checkedStamps(e), imagedStamps(e)
	shown, stamp, sameStamp := 0, int64(0), true
	var other []byte // a key that shows neither the write nor a proof
	for i, w := range ws {
		row := rows[i]
		older := row != nil && ((e.bound > 0 && row.Ver <= e.bound) || (checked[string(w.key)] != 0 && row.Ver == checked[string(w.key)]) ||
			(read[string(w.key)] != 0 && row.Ver == read[string(w.key)]))
		switch {
		case w.holds(row) && (w.absent || row.Ver > e.bound):
			if !w.absent {
				if stamp != 0 && row.Ver != stamp {
					sameStamp = false
				}
				stamp = row.Ver
			}
			shown++
		case older:
			rec.Outcome = string(store.OutcomeNotApplied)
			rec.Why = fmt.Sprintf("%s still holds its row of stamp %s, from before the write, which would have replaced or removed it", usertext.Sanitize(KeyText(w.key)), codec.FormatStamp(row.Ver))
			return rec, nil
		default:
			if other == nil {
				other = w.key
			}
		}
	}
	shownAll := shown == len(ws)
	return settledBy(rec, e, shownAll, shownAll && sameStamp, stamp, other), nil
}

// settledBy says what the keys told when none proved the write not
// applied: applied when every key shows it under one stamp and it had no
// checks (shownAll, one), else unknown with what the user can check;
// other is a key that shows nothing of it.
func settledBy(rec record, e Entry, shownAll, one bool, stamp int64, other []byte) record {
	switch {
	case one && len(e.Checks) == 0:
		// An imaged intent's images are on the disk, and its commit ran
		// only if its keys still had them: a commit that set rows (a new
		// stamp on them all) replaced exactly them. Without a set, rows
		// gone say less: a delete that skips a row it no longer finds as
		// read (a sweep's) leaves it to another deleter.
		rec.Outcome, rec.BeforeUnknown = string(store.OutcomeApplied), !e.imaged || stamp == 0
		if stamp != 0 {
			rec.Stamp = codec.FormatStamp(stamp)
		}
		rec.Why = "every key holds exactly what it writes, under one stamp newer than any recorded before it"
	case shownAll:
		rec.Why = "every key holds what it would leave, but it had checks, and a rival write that passed the same checks would leave the same rows: look at its keys before making it again"
	default:
		rec.Why = fmt.Sprintf("no key proves whether it was applied: %s shows nothing of it, and another writer may have changed it since (a queue's consumer deletes the message it took); check whether what it wrote arrived before making it again", usertext.Sanitize(KeyText(other)))
	}
	return rec
}

// checkedStamps are the stamps e's checks held its keys to, by raw key.
func checkedStamps(e Entry) map[string]int64 {
	checked := map[string]int64{}
	for _, c := range e.Checks {
		if v, err := codec.ParseStamp(c.Versionstamp); err == nil && v > 0 {
			if k, err := codec.Encode(c.Key); err == nil {
				checked[string(k)] = v
			}
		}
	}
	return checked
}

// imagedStamps are the stamps of the rows e's intent recorded as its
// before-images, by raw key: its commit ran only if each key still had
// its row, and would have replaced or removed it.
func imagedStamps(e Entry) map[string]int64 {
	read := map[string]int64{}
	for _, b := range e.pre {
		if k, err := hex.DecodeString(b.K); err == nil && b.Ver > 0 {
			read[string(k)] = b.Ver
		}
	}
	return read
}

func equalExp(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
