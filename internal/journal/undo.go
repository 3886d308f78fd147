package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"kvdeck/codec"
	"kvdeck/store"
)

// ErrNoEntry: the ID names no action of the journal, or more than one.
var ErrNoEntry = errors.New("no such journal action")

// UndoChunk is how many keys one commit of an undo restores: about a
// sweep batch, so that each commit holds the database's write lock as
// briefly as the sweep does and a live service keeps committing between
// them. An action of up to UndoChunk changed keys is undone in one
// atomic commit.
const UndoChunk = 1000

// Plan is the inverse of an action, to preview before it is made.
type Plan struct {
	// Action is the user action undone or redone; Target the action whose
	// inverse is made (Action itself for an undo, its undo for a redo,
	// its redo for an undo after a redo).
	Action, Target Action
	Redo           bool
	// Ops is the checked inverse, one store.RestoreOp per key.
	Ops []store.RestoreOp
	// Now is each key's physical row now (nil: none), read for the preview.
	Now map[string]*store.RawRow
	// Conflicts are keys changed since the action: the undo would be
	// refused, whole.
	Conflicts []Conflict
	// Skipped are the keys of the action's writes whose effect cannot be
	// taken back (outcome unknown, before-images lost), with why; the
	// rest is undone.
	Skipped []Skipped
	// Settings are the store-level settings the inverse sets back
	// (setting.go), newest step first; they have no Ops.
	Settings []SettingStep
	// MinSeq is the highest stamp the journal saw in this database life:
	// the store's seq must not be below it (RestoreAt).
	MinSeq int64
	// Seq is the store's seq when the plan was read.
	Seq int64

	want map[string]want
	from map[string]string
	left map[string]leftRow
}

// Conflict is a key not as the action left it.
type Conflict struct {
	store.RestoreConflict
	// Other: the row has the stamp the action left but another value or
	// expiry (the stamp was issued again: another life of the database).
	Other bool
	// Setting, when set, is a setting step not as the action left it
	// (setting.go): the conflict names no key.
	Setting *SettingStep
}

// Skipped are keys the undo leaves as they are, and why.
type Skipped struct {
	Entry string
	Keys  [][]byte
	Why   string
}

// Verb is "undo" or "redo".
func (p Plan) Verb() string {
	if p.Redo {
		return "redo"
	}
	return "undo"
}

// PlanUndo builds the inverse of user action id ("" = the newest not yet
// undone: DefaultUndo), reading the keys' rows now for the preview.
// Entries of unknown outcome are settled first (Settle).
func (j *Journal) PlanUndo(ctx context.Context, s *store.Store, id string) (Plan, error) {
	return j.plan(ctx, s, id, false)
}

// PlanRedo builds the inverse of the undo of user action id ("" = the
// most recently undone: DefaultRedo).
func (j *Journal) PlanRedo(ctx context.Context, s *store.Store, id string) (Plan, error) {
	return j.plan(ctx, s, id, true)
}

func (j *Journal) plan(ctx context.Context, s *store.Store, id string, redo bool) (Plan, error) {
	entries, _, err := j.List()
	if err != nil {
		return Plan{}, err
	}
	if wrote, err := j.settleAll(ctx, s, entries); err != nil {
		return Plan{}, err
	} else if wrote {
		if entries, _, err = j.List(); err != nil {
			return Plan{}, err
		}
	}
	h := group(entries)
	var a Action
	switch {
	case id != "":
		a, err = h.Find(id)
	case redo:
		a, err = h.DefaultRedo()
	default:
		a, err = h.DefaultUndo()
	}
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Action: a, Redo: redo}
	if redo {
		err = h.Redoable(a)
	} else {
		err = h.Undoable(a)
	}
	if err != nil {
		return p, err
	}
	chain := h.Chain(a)
	p.Target = chain[len(chain)-1]
	p.MinSeq = h.LifeMax[h.NewestLife]
	if p.Seq, err = s.Seq(ctx); err != nil {
		return p, err
	}
	if p.Seq < p.MinSeq {
		return p, fmt.Errorf("%w: the store's seq is %d, below stamp %d, which this journal recorded for it: the database was recreated, or copied back from an older file, since these writes; undo does not restore rows into another life of the database", ErrNotUndoable, p.Seq, p.MinSeq)
	}
	h.inverse(&p)
	if len(p.Ops) == 0 && len(p.Settings) == 0 {
		return p, fmt.Errorf("%w: %s: nothing left to restore (%d part(s) cannot be: %s)", ErrNotUndoable, a.ID, len(p.Skipped), skippedWhy(p.Skipped))
	}
	return p, p.check(ctx, s)
}

// skippedWhy is the first reason of skipped.
func skippedWhy(sk []Skipped) string {
	if len(sk) == 0 {
		return ""
	}
	return sk[0].Why
}

// inverse fills p.Ops: each key p.Target changed back as it was before
// its first write of the key (or deleted, when it created it), guarded by
// the ver its last write of the key left (expectVer), and by that row's
// value and expiry (want). Keys of writes whose effect is in doubt are
// skipped, and so are steps of a kind that is no row write (a Kind this
// kvdeck does not know): their inverse belongs in this function.
func (h History) inverse(p *Plan) {
	t := p.Target
	doubt := skipDoubtful(p)
	idx := map[string]*keyed{}
	of := func(e *Entry) *keyed {
		if x := idx[e.ID]; x != nil {
			return x
		}
		x := index(*e)
		idx[e.ID] = x
		return x
	}
	first, last, keys := firstAndLast(t, doubt)
	later := h.laterWrites(t, last)
	p.want, p.from, p.left = map[string]want{}, map[string]string{}, map[string]leftRow{}
	for _, k := range keys {
		f, z := first[string(k)], last[string(k)]
		op := store.RestoreOp{Key: k, ExpectVer: expectVer(later[string(k)], of, z, k)}
		if b := of(f).row(f, k); b != nil {
			row := *b
			op.Put = &row
			p.from[string(k)] = f.ID
		}
		p.Ops = append(p.Ops, op)
		zx := of(z)
		if w, ok := zx.wants[string(k)]; ok {
			p.want[string(k)] = w
		} else {
			p.want[string(k)] = want{key: k}
		}
		if i, ok := zx.restores[string(k)]; ok && z.from[i] != "" && z.Restores[i].Put != nil {
			p.left[string(k)] = leftRow{id: z.from[i], row: *z.Restores[i].Put}
		}
	}
}

// skipDoubtful notes in p.Skipped the steps of p.Target it cannot take
// back (a write whose effect is in doubt, a step that is no row write)
// and in p.Settings the settings it changed (last first), and returns
// the keys of the doubtful steps.
func skipDoubtful(p *Plan) map[string]bool {
	doubt := map[string]bool{}
	for _, e := range p.Target.Entries {
		switch {
		case doubtful(e):
			for _, k := range e.Keys {
				doubt[string(k)] = true
			}
			p.Skipped = append(p.Skipped, Skipped{Entry: e.ID, Keys: e.Keys, Why: doubtWhy(Action{Entries: []Entry{e}})})
		case e.Outcome == store.OutcomeApplied && e.Setting != nil:
			p.Settings = append([]SettingStep{stepOf(e)}, p.Settings...)
		case e.Outcome == store.OutcomeApplied && !rowKind(e.Kind):
			p.Skipped = append(p.Skipped, Skipped{Entry: e.ID, Keys: e.Keys, Why: fmt.Sprintf("a %q step, which this kvdeck cannot take back", e.Kind)})
		}
	}
	return doubt
}

// firstAndLast are, by key not in doubt, the first and the last applied
// row write of t that wrote it, and those keys in the order t first
// wrote them.
func firstAndLast(t Action, doubt map[string]bool) (first, last map[string]*Entry, keys [][]byte) {
	first, last = map[string]*Entry{}, map[string]*Entry{}
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Outcome != store.OutcomeApplied || doubtful(*e) || !rowKind(e.Kind) {
			continue
		}
		for _, k := range undoKeys(*e) {
			if doubt[string(k)] {
				continue
			}
			if first[string(k)] == nil {
				first[string(k)] = e
				keys = append(keys, k)
			}
			last[string(k)] = e
		}
	}
	return first, last, keys
}

// laterWrites are, by key, the writes after the key's last write in t
// (last) that changed it again (expectVer follows them).
func (h History) laterWrites(t Action, last map[string]*Entry) map[string][]*Entry {
	pos := make(map[string]int, len(h.Entries))
	for i, e := range h.Entries {
		pos[e.ID] = i
	}
	later := map[string][]*Entry{}
	if len(t.Entries) == 0 {
		return later
	}
	for i := pos[t.Entries[0].ID] + 1; i < len(h.Entries); i++ {
		x := &h.Entries[i]
		if x.Act == t.ID {
			continue
		}
		for k := range x.After {
			if z := last[k]; z != nil && pos[z.ID] < i {
				later[k] = append(later[k], x)
			}
		}
	}
	return later
}

// rowKind reports whether an engine call (store.PendingWrite.Kind)
// writes rows.
func rowKind(kind string) bool {
	switch kind {
	case "commit", "delete", "delete-raw", "set-many", "sweep", "restore":
		return true
	}
	return false
}

// keyed is one entry's rows by key.
type keyed struct {
	before   map[string]int // index into Before
	restores map[string]int // index into Restores
	wants    map[string]want
}

// index builds e's keyed index.
func index(e Entry) *keyed {
	x := &keyed{before: make(map[string]int, len(e.Before)), restores: make(map[string]int, len(e.Restores)), wants: map[string]want{}}
	for i, b := range e.Before {
		x.before[string(b.Key)] = i
	}
	for i, o := range e.Restores {
		x.restores[string(o.Key)] = i
	}
	if ws, ok := wants(e); ok {
		for _, w := range ws {
			x.wants[string(w.key)] = w
		}
	}
	return x
}

// row is e's before-image of k (nil: it had none).
func (x *keyed) row(e *Entry, k []byte) *store.RawRow {
	if i, ok := x.before[string(k)]; ok {
		return &e.Before[i]
	}
	return nil
}

// check reads the plan's keys now and lists those not as the action left
// them: another stamp (or a row where it left none, none where it left
// one), or the same stamp with another value or expiry; and its settings
// no longer at the value the action left (checkSettings).
func (p *Plan) check(ctx context.Context, s *store.Store) error {
	keys := make([][]byte, len(p.Ops))
	for i, op := range p.Ops {
		keys[i] = op.Key
	}
	rows, err := s.ReadRows(ctx, keys)
	if err != nil {
		return err
	}
	p.Now, p.Conflicts = map[string]*store.RawRow{}, nil
	for i, op := range p.Ops {
		row := rows[i]
		p.Now[string(op.Key)] = row
		ver := int64(0)
		if row != nil {
			ver = row.Ver
		}
		c := Conflict{RestoreConflict: store.RestoreConflict{Key: op.Key, ExpectVer: op.ExpectVer, Found: row}}
		switch w := p.want[string(op.Key)]; {
		case ver != op.ExpectVer:
			p.Conflicts = append(p.Conflicts, c)
		case row != nil && w.known && !w.holds(row):
			c.Other = true
			p.Conflicts = append(p.Conflicts, c)
		}
	}
	return p.checkSettings(s)
}

// undoKeys are the keys entry e changed: those it names, in its order,
// then any other key it has an after-image of, sorted.
func undoKeys(e Entry) [][]byte {
	var keys [][]byte
	seen := map[string]bool{}
	for _, k := range e.Keys {
		if _, ok := e.After[string(k)]; ok && !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	var extra []string
	for k := range e.After {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		keys = append(keys, []byte(k))
	}
	return keys
}

// expectVer is the ver key k must be at for the undo of e, its last
// write of k: the ver e left, or, when later journaled writes changed k
// (later: those, in order) and an undo among them put back exactly the
// row e left, the ver that undo left. So after undo takes back a later
// action, an earlier one that touched the same key (a lease taken, then
// released) can still be undone: its row is back, under a new stamp. The
// chain is followed only while each write found k at the ver the one
// before left; anything else is left to the conflict check.
func expectVer(later []*Entry, of func(*Entry) *keyed, e *Entry, k []byte) int64 {
	cur := e.After[string(k)]
	var left *store.RawRow // the row e left, as the next write found it
	first := true
	for _, x := range later {
		v, ok := x.After[string(k)]
		if !ok || x.Outcome != store.OutcomeApplied {
			continue
		}
		xi := of(x)
		found := xi.row(x, k)
		if (found == nil && cur != 0) || (found != nil && found.Ver != cur) {
			return e.After[string(k)]
		}
		if first {
			left, first = found, false
		}
		cur = v
		if i, ok := xi.restores[string(k)]; ok && sameRow(x.Restores[i].Put, left) {
			return cur
		}
	}
	return e.After[string(k)]
}

// sameRow: both absent, or the same value and expiry.
func sameRow(a, b *store.RawRow) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return bytes.Equal(a.Value, b.Value) && equalExp(a.ExpiresAt, b.ExpiresAt)
}

// Result is what an undo did.
type Result struct {
	// OK: every key was restored.
	OK bool
	// Action is the undo's own action ID (what `kvdeck undo`/`redo` of it
	// names); "" when nothing was written.
	Action string
	// Restored counts the keys restored, Commits the commits made.
	Restored, Commits int
	// Stamps are the first and last stamp the commits issued.
	First, Last string
	// Conflicts: the keys found changed (before anything was written when
	// Restored is 0; else by the commit that stopped the undo part-way).
	Conflicts []Conflict
	// SeqBelow: refused because the store's seq went below the plan's
	// MinSeq (another life of the database).
	SeqBelow int64
	// Set are the settings set back (Plan.Settings), in order.
	Set []store.SettingChange
}

// Undo makes p's inverse. It reads every key again first and writes
// nothing when one is not as the action left it (Result.Conflicts).
// Then it restores the keys in commits of UndoChunk keys, each an atomic
// store.RestoreAt checked on every key and on the store's seq, all of
// them one action of the journal (the undo, which redo takes back). A
// commit refused part-way (a key changed between the check and its
// commit) stops the undo there: the keys of the commits before it stay
// restored, and the Result says how many. s must be journaled by j
// (Of(s) == j), so that the undo is itself an action and can be taken
// back.
func (j *Journal) Undo(ctx context.Context, s *store.Store, p Plan) (Result, error) {
	if Of(s) != j {
		return Result{}, fmt.Errorf("%s %s: the store's writes are not recorded in this journal (%s), so it could not be taken back", p.Verb(), p.Action.ID, j.path)
	}
	if len(p.Ops) == 0 && len(p.Settings) == 0 {
		return Result{}, fmt.Errorf("%w: %s: the plan restores nothing", ErrNotUndoable, p.Action.ID)
	}
	if err := p.check(ctx, s); err != nil {
		return Result{}, err
	}
	if len(p.Conflicts) > 0 {
		return Result{Conflicts: p.Conflicts}, nil
	}
	act := store.NewAction(p.Verb() + " " + p.Action.ID)
	ctx = store.WithAction(ctx, act)
	ctx = context.WithValue(ctx, undoKey{}, &undoing{target: p.Target.ID, from: p.from, left: p.left})
	var out Result
	for lo := 0; lo < len(p.Ops); lo += UndoChunk {
		// The rows the check read are the restore's before-images (its
		// verdict holds every key to the same stamps): the store need
		// not read them again.
		chunk := slices.Clone(p.Ops[lo:min(lo+UndoChunk, len(p.Ops))])
		for i := range chunk {
			chunk[i].Found = p.Now[string(chunk[i].Key)]
		}
		res, err := s.RestoreAt(ctx, p.MinSeq, chunk)
		if out.Restored > 0 || res.OK {
			out.Action = act.ID(j.newID)
		}
		if err != nil {
			return out, err
		}
		if !res.OK {
			for _, c := range res.Conflicts {
				out.Conflicts = append(out.Conflicts, Conflict{RestoreConflict: c})
			}
			out.SeqBelow = res.SeqBelow
			return out, nil
		}
		out.Restored += len(chunk)
		out.Commits++
		if res.Versionstamp != "" {
			if out.First == "" {
				out.First = res.Versionstamp
			}
			out.Last = res.Versionstamp
		}
	}
	if len(p.Settings) > 0 {
		return j.setBack(ctx, s, p, act, out)
	}
	out.OK = true
	return out, nil
}

// ConflictText says, for a refused store.Restore, what stands at a key
// now: "KEY is at stamp S (value V); the write left E" or "KEY has no row
// ...". Values longer than 200 bytes are cut.
func ConflictText(c store.RestoreConflict) string {
	return conflictText(c, "the write")
}

// Text says, for a refused undo, what stands at the key now, and when it
// is the stamp the action left with another value, that another life of
// the database issued it again.
func (c Conflict) Text() string {
	if c.Setting != nil {
		return c.Setting.Conflict()
	}
	if c.Other && c.Found != nil {
		return fmt.Sprintf("%s is at stamp %s, the one the action left, but holds another value or expiry (value %s): the stamp was issued again, by another life of the database (recreated, or copied back from an older file)", KeyText(c.Key), codec.FormatStamp(c.Found.Ver), ValueText(c.Found.Value, 200))
	}
	return conflictText(c.RestoreConflict, "the action")
}

func conflictText(c store.RestoreConflict, who string) string {
	left := "no row"
	if c.ExpectVer != 0 {
		left = "stamp " + codec.FormatStamp(c.ExpectVer)
	}
	if c.Found == nil {
		return fmt.Sprintf("%s has no row now; %s left %s", KeyText(c.Key), who, left)
	}
	return fmt.Sprintf("%s is at stamp %s now (value %s); %s left %s", KeyText(c.Key), codec.FormatStamp(c.Found.Ver), ValueText(c.Found.Value, 200), who, left)
}

// ValueText is a stored value for a message, cut at n bytes.
func ValueText(v []byte, n int) string {
	if len(v) <= n {
		return string(v)
	}
	return string(v[:n]) + fmt.Sprintf("… (%d bytes)", len(v))
}
