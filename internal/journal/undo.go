package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"kvdeck/codec"
	"kvdeck/store"
)

// ErrNoEntry: the ID names no entry of the journal, or more than one.
var ErrNoEntry = errors.New("no such journal entry")

// Settle reads the keys of every entry whose outcome is unknown and
// records what it finds (applied or not applied). An entry whose process
// is still running on this machine (its write may be on its way) is left
// alone. A write is found applied when every key it changes is exactly as
// it would have left it (a set: its value, and its expiry when that was
// absolute; a delete: no row), the set keys all under one stamp greater
// than every stamp the journal recorded before its intent; applied that
// way it cannot be undone (its before-images were never recorded). It is
// found not applied when no key shows it. Anything in between stays
// unknown. Each settlement is a new outcome line marked settled.
func (j *Journal) Settle(ctx context.Context, s *store.Store) error {
	entries, _, err := j.List()
	if err != nil {
		return err
	}
	var bound int64
	for _, e := range entries {
		if e.Outcome == store.OutcomeUnknown && !j.inFlight(e) {
			if err := j.settle(ctx, s, e, bound); err != nil {
				return fmt.Errorf("settle journal entry %s: %w", e.ID, err)
			}
		}
		if v, err := codec.ParseStamp(e.Stamp); err == nil {
			bound = max(bound, v)
		}
		for _, b := range e.Before {
			bound = max(bound, b.Ver)
		}
	}
	return nil
}

// want is how a write leaves one key.
type want struct {
	key    []byte
	absent bool
	value  []byte
	exp    *int64
	// checkExp: the expiry was absolute, so it can be compared.
	checkExp bool
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
				put(want{key: o.Key, absent: true})
			} else {
				put(want{key: o.Key, value: o.Put.Value, exp: o.Put.ExpiresAt, checkExp: true})
			}
		}
	case len(e.Mutations) > 0:
		for _, m := range e.Mutations {
			enc, err := codec.Encode(m.Key)
			if err != nil {
				return nil, false
			}
			if m.Type != store.MutationSet {
				put(want{key: enc, absent: true})
				continue
			}
			v, err := codec.NormalizeJSON(m.Value)
			if err != nil {
				return nil, false
			}
			put(want{key: enc, value: v, exp: m.ExpiresAt, checkExp: m.ExpireIn == nil})
		}
	default:
		for _, k := range e.Keys {
			put(want{key: k, absent: true})
		}
	}
	return out, true
}

// settle reads e's keys and records its outcome when the rows tell it.
func (j *Journal) settle(ctx context.Context, s *store.Store, e Entry, bound int64) error {
	if e.Setting != nil {
		return j.settleSetting(s, e)
	}
	ws, ok := wants(e)
	if !ok {
		return nil
	}
	keys := make([][]byte, len(ws))
	for i, w := range ws {
		keys[i] = w.key
	}
	rows, err := readRows(ctx, s, keys)
	if err != nil {
		return err
	}
	shown, stamp, sameStamp := 0, int64(0), true
	for i, w := range ws {
		row := rows[i]
		switch {
		case w.absent:
			if row == nil {
				shown++
			}
		case row != nil && row.Ver > bound && bytes.Equal(row.Value, w.value) &&
			(!w.checkExp || equalExp(row.ExpiresAt, w.exp)):
			if stamp != 0 && row.Ver != stamp {
				sameStamp = false
			}
			stamp = row.Ver
			shown++
		}
	}
	rec := record{T: recOutcome, ID: e.ID, At: nowMS(), Settled: true}
	switch {
	case len(ws) > 0 && shown == len(ws) && sameStamp:
		rec.Outcome, rec.BeforeUnknown = string(store.OutcomeApplied), true
		if stamp != 0 {
			rec.Stamp = codec.FormatStamp(stamp)
		}
	case shown == 0:
		rec.Outcome = string(store.OutcomeNotApplied)
	default:
		return nil
	}
	return j.writeRecord(rec)
}

func equalExp(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// readRows reads the physical rows (expired ones included) at keys, nil
// where there is none: the live ones in one statement per 500 keys
// (store.GetRawMany), then each key not found live on its own (an
// expired row, or none).
func readRows(ctx context.Context, s *store.Store, keys [][]byte) ([]*store.RawRow, error) {
	out := make([]*store.RawRow, len(keys))
	for lo := 0; lo < len(keys); lo += 500 {
		hi := min(lo+500, len(keys))
		live, err := s.GetRawMany(ctx, keys[lo:hi])
		if err != nil {
			return nil, err
		}
		for i, e := range live {
			if e != nil {
				out[lo+i] = &store.RawRow{Key: e.Raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt}
			}
		}
	}
	for i, k := range keys {
		if out[i] != nil {
			continue
		}
		e, found, err := s.GetRaw(ctx, k)
		if err != nil {
			return nil, err
		}
		if found {
			out[i] = &store.RawRow{Key: e.Raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt}
		}
	}
	return out, nil
}

// Plan is the inverse of an entry, to preview before it is made.
type Plan struct {
	Entry Entry
	// Ops is the checked inverse, one store.RestoreOp per key.
	Ops []store.RestoreOp
	// Now is each key's physical row now (nil: none), read for the preview.
	Now map[string]*store.RawRow
	// Conflicts are keys changed since the entry's write: the undo would
	// be refused.
	Conflicts []store.RestoreConflict
	// Setting is the undo of a setting's entry (setting.go), which has no
	// Ops; nil otherwise.
	Setting *SettingPlan
}

// PlanUndo builds the inverse of entry id ("" = the last applied entry
// not yet undone), reading the keys' rows now for the preview.
//
// id may be any unique prefix of an ID. The default is the newest entry
// that was applied, changed a row, and has not been undone by a later
// applied undo. An undo is itself such an entry, so repeating the default
// undoes the undo (a redo), and again: it toggles the last change, as z
// does in an editor that keeps its undo history as changes. To go
// further back, name an older entry. Entries of unknown outcome are
// settled first (Settle).
func (j *Journal) PlanUndo(ctx context.Context, s *store.Store, id string) (Plan, error) {
	if err := j.Settle(ctx, s); err != nil {
		return Plan{}, err
	}
	entries, _, err := j.List()
	if err != nil {
		return Plan{}, err
	}
	e, err := pick(entries, id)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Entry: e}
	if err := Undoable(e, entries); err != nil {
		return p, err
	}
	if e.Setting != nil {
		return planSetting(s, p)
	}
	keys := undoKeys(e)
	p.Ops = restoreOps(entries, e, keys)
	rows, err := readRows(ctx, s, keys)
	if err != nil {
		return p, err
	}
	p.Now = map[string]*store.RawRow{}
	for i, op := range p.Ops {
		p.Now[string(op.Key)] = rows[i]
		ver := int64(0)
		if rows[i] != nil {
			ver = rows[i].Ver
		}
		if ver != op.ExpectVer {
			p.Conflicts = append(p.Conflicts, store.RestoreConflict{Key: op.Key, ExpectVer: op.ExpectVer, Found: rows[i]})
		}
	}
	return p, nil
}

// undoKeys are the keys entry e changed: those it names, in its order,
// then any other key it has an after-image of, sorted.
func undoKeys(e Entry) [][]byte {
	var keys [][]byte
	for _, k := range e.Keys {
		if _, ok := e.After[string(k)]; ok && !containsKey(keys, k) {
			keys = append(keys, k)
		}
	}
	var extra []string
	for k := range e.After {
		if !containsKey(keys, []byte(k)) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		keys = append(keys, []byte(k))
	}
	return keys
}

// restoreOps puts each of keys back as it was before e (or deletes it,
// when e created it), each guarded by the version it must have now
// (expectVer: what e left, as later journaled writes carried it on).
func restoreOps(entries []Entry, e Entry, keys [][]byte) []store.RestoreOp {
	before := map[string]store.RawRow{}
	for _, b := range e.Before {
		before[string(b.Key)] = b
	}
	at := 0
	for i, x := range entries {
		if x.ID == e.ID {
			at = i
		}
	}
	var ops []store.RestoreOp
	for _, k := range keys {
		op := store.RestoreOp{Key: k, ExpectVer: expectVer(entries[at+1:], e, k)}
		if b, ok := before[string(k)]; ok {
			row := b
			op.Put = &row
		}
		ops = append(ops, op)
	}
	return ops
}

// expectVer is the ver key k must be at for e's undo: the ver e left,
// or, when later journaled writes changed k and an undo among them put
// back exactly the row e left, the ver that undo left. So after z undoes
// a later write, an earlier one that touched the same key (a lease taken,
// then released) can still be undone: its row is back, under a new
// stamp. The chain is followed only while each write found k at the ver
// the one before left; anything else is left to the conflict check.
func expectVer(later []Entry, e Entry, k []byte) int64 {
	cur := e.After[string(k)]
	var left *store.RawRow // the row e left, as the next write found it
	first := true
	for _, x := range later {
		v, ok := x.After[string(k)]
		if !ok || x.Outcome != store.OutcomeApplied {
			continue
		}
		found := rowIn(x.Before, k)
		if (found == nil && cur != 0) || (found != nil && found.Ver != cur) {
			return e.After[string(k)]
		}
		if first {
			left, first = found, false
		}
		cur = v
		if len(x.Restores) > 0 && sameRow(restorePut(x.Restores, k), left) {
			return cur
		}
	}
	return e.After[string(k)]
}

func rowIn(rows []store.RawRow, k []byte) *store.RawRow {
	for i := range rows {
		if bytes.Equal(rows[i].Key, k) {
			return &rows[i]
		}
	}
	return nil
}

func restorePut(ops []store.RestoreOp, k []byte) *store.RawRow {
	for _, o := range ops {
		if bytes.Equal(o.Key, k) {
			return o.Put
		}
	}
	return nil
}

// sameRow: both absent, or the same value and expiry.
func sameRow(a, b *store.RawRow) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return bytes.Equal(a.Value, b.Value) && equalExp(a.ExpiresAt, b.ExpiresAt)
}

func containsKey(keys [][]byte, k []byte) bool {
	for _, x := range keys {
		if bytes.Equal(x, k) {
			return true
		}
	}
	return false
}

// pick finds the entry id names (exactly or by a unique prefix), or the
// default target when id is "".
func pick(entries []Entry, id string) (Entry, error) {
	if id == "" {
		for i := len(entries) - 1; i >= 0; i-- {
			e := entries[i]
			if e.Outcome == store.OutcomeApplied && e.UndoneBy == "" && (e.BeforeUnknown || len(e.After) > 0 || e.Setting != nil) {
				return e, nil
			}
		}
		return Entry{}, fmt.Errorf("%w: the journal holds no applied write that is not undone yet", ErrNotUndoable)
	}
	var found []Entry
	for _, e := range entries {
		if e.ID == id {
			return e, nil
		}
		if strings.HasPrefix(e.ID, id) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return Entry{}, fmt.Errorf("%w: %q is not the ID of an entry of this store's journal (kvdeck undo --list shows them)", ErrNoEntry, id)
	case 1:
		return found[0], nil
	}
	return Entry{}, fmt.Errorf("%w: %q starts %d entry IDs; give more of it", ErrNoEntry, id, len(found))
}

// Undo makes p's inverse as one store.Restore (journaled as an entry that
// undoes p.Entry). The Restore checks every key again: when one changed
// since the plan was read, nothing is written and the result says which
// (RestoreResult.Conflicts). s must be journaled by j (Of(s) == j), so
// that the undo is itself an entry and can be undone. A setting's entry
// is set back instead (setting.go).
func (j *Journal) Undo(ctx context.Context, s *store.Store, p Plan) (store.RestoreResult, error) {
	if Of(s) != j {
		return store.RestoreResult{}, fmt.Errorf("undo %s: the store's writes are not recorded in this journal (%s), so the undo could not be undone", p.Entry.ID, j.path)
	}
	if p.Setting != nil {
		return j.undoSetting(ctx, s, p)
	}
	if len(p.Ops) == 0 {
		return store.RestoreResult{}, fmt.Errorf("%w: entry %s: the plan restores nothing", ErrNotUndoable, p.Entry.ID)
	}
	ctx = store.WithWriteOp(ctx, "undo "+p.Entry.ID)
	ctx = context.WithValue(ctx, undoKey{}, p.Entry.ID)
	return s.Restore(ctx, p.Ops)
}

// ConflictText says, for a refusal, what stands at a key now: "KEY is at
// stamp S (value V), not at the stamp E the write left" or "KEY has no
// row ...". Values longer than 200 bytes are cut.
func ConflictText(c store.RestoreConflict) string {
	left := "no row"
	if c.ExpectVer != 0 {
		left = "stamp " + codec.FormatStamp(c.ExpectVer)
	}
	if c.Found == nil {
		return fmt.Sprintf("%s has no row now; the write left %s", KeyText(c.Key), left)
	}
	return fmt.Sprintf("%s is at stamp %s now (value %s); the write left %s", KeyText(c.Key), codec.FormatStamp(c.Found.Ver), ValueText(c.Found.Value, 200), left)
}

// ValueText is a stored value for a message, cut at n bytes.
func ValueText(v []byte, n int) string {
	if len(v) <= n {
		return string(v)
	}
	return string(v[:n]) + fmt.Sprintf("… (%d bytes)", len(v))
}
