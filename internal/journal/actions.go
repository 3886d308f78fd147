package journal

import (
	"fmt"
	"strings"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// Action is what one command or one key did (store.Action): its writes,
// oldest first. It is what `kvdeck undo` and `z` take back, whole.
type Action struct {
	// ID is what `kvdeck undo ID` takes.
	ID   string
	Op   string
	Time time.Time
	// Entries are its writes, in the order they were journaled.
	Entries []Entry
	// Undoes is the action this one takes back: it is an undo (of a user
	// action) or a redo (an undo of an undo); "" for a user action.
	Undoes string
	// UndoneBy is the applied action that took this one back, "" if none.
	UndoneBy string
	// Life is the database life of its writes (Entry.Life).
	Life int
	// KeyCount counts the distinct keys its writes name; FirstKeys are the
	// first FirstKeysKept of them (a list draws these without going
	// through every key of a 350k-row load).
	KeyCount  int
	FirstKeys [][]byte
}

// FirstKeysKept is how many keys Action.FirstKeys holds.
const FirstKeysKept = 20

// History is a store's journal read as actions.
type History struct {
	Entries []Entry
	// Actions are oldest first (by their first write).
	Actions []Action
	// NewestLife is the life of the newest writes; LifeMax the highest
	// stamp the journal saw in each life.
	NewestLife int
	LifeMax    map[int]int64
	at         map[string]int // action ID -> index in Actions
}

// History reads the journal as actions, with notes for what was skipped.
func (j *Journal) History() (History, []Note, error) {
	entries, notes, err := j.List()
	if err != nil {
		return History{}, nil, err
	}
	return group(entries), notes, nil
}

// group makes actions of entries. An older kvdeck's undo names the entry
// it undid, which is then an action of its own.
func group(entries []Entry) History {
	h := History{Entries: entries, at: map[string]int{}, LifeMax: map[int]int64{}}
	actOf := map[string]string{} // entry ID -> action ID
	for _, e := range entries {
		actOf[e.ID] = e.Act
		i, ok := h.at[e.Act]
		if !ok {
			i = len(h.Actions)
			h.at[e.Act] = i
			h.Actions = append(h.Actions, Action{ID: e.Act, Op: e.Op, Time: e.Time, Life: e.Life})
		}
		a := &h.Actions[i]
		a.Entries = append(a.Entries, e)
		a.Life = max(a.Life, e.Life)
		h.NewestLife = max(h.NewestLife, e.Life)
		m := h.LifeMax[e.Life]
		if v, err := codec.ParseStamp(e.Stamp); err == nil && e.Outcome == store.OutcomeApplied {
			m = max(m, v)
		}
		var top int64
		for _, b := range e.Before {
			top = max(top, b.Ver)
		}
		h.LifeMax[e.Life] = max(m, e.lifeBound(top))
	}
	for i := range h.Actions {
		a := &h.Actions[i]
		keys := a.Keys()
		a.KeyCount, a.FirstKeys = len(keys), keys[:min(len(keys), FirstKeysKept)]
		for _, e := range a.Entries {
			if e.Undoes == "" {
				continue
			}
			t := e.Undoes
			if _, ok := h.at[t]; !ok {
				t = actOf[t]
			}
			if t != "" && t != a.ID {
				a.Undoes = t
			}
			break
		}
	}
	for i, a := range h.Actions {
		if a.Undoes != "" && a.applied() {
			h.Actions[h.at[a.Undoes]].UndoneBy = h.Actions[i].ID
		}
	}
	return h
}

// Action is the action id names exactly, and whether there is one.
func (h History) Action(id string) (Action, bool) {
	i, ok := h.at[id]
	if !ok {
		return Action{}, false
	}
	return h.Actions[i], true
}

// Root is the user action a's undos and redos go back to (a itself for
// a user action).
func (h History) Root(a Action) Action {
	for n := 0; a.Undoes != "" && n < len(h.Actions); n++ {
		t, ok := h.Action(a.Undoes)
		if !ok {
			break
		}
		a = t
	}
	return a
}

// Chain is a user action and the undos and redos that took it back and
// forth since, oldest first: odd lengths are live, even are undone.
func (h History) Chain(a Action) []Action {
	chain := []Action{a}
	for n := 0; a.UndoneBy != "" && n < len(h.Actions); n++ {
		next, ok := h.Action(a.UndoneBy)
		if !ok {
			break
		}
		chain = append(chain, next)
		a = next
	}
	return chain
}

// Undone reports whether user action a is undone now (its last undo was
// not redone).
func (h History) Undone(a Action) bool { return len(h.Chain(a))%2 == 0 }

// applied: at least one of the action's writes was applied.
func (a Action) applied() bool {
	for _, e := range a.Entries {
		if e.Outcome == store.OutcomeApplied {
			return true
		}
	}
	return false
}

// Keys are the distinct keys the action's writes name, in order.
func (a Action) Keys() [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, e := range a.Entries {
		for _, k := range e.Keys {
			if !seen[string(k)] {
				seen[string(k)] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// Changed counts the keys the action's applied writes changed (known
// before-images only).
func (a Action) Changed() int {
	seen := map[string]bool{}
	for _, e := range a.Entries {
		for k := range e.After {
			seen[k] = true
		}
	}
	return len(seen)
}

// Outcome sums up the outcomes of the action's writes: "applied",
// "not applied", "unknown", or "partly applied" (some applied, some not:
// a sweep stopped, a bulk run whose rows changed since marked), "partly
// unknown" (some outcomes unknown).
func (a Action) Outcome() string {
	n := map[store.Outcome]int{}
	for _, e := range a.Entries {
		n[e.Outcome]++
	}
	switch {
	case n[store.OutcomeUnknown] == len(a.Entries):
		return "unknown"
	case n[store.OutcomeUnknown] > 0:
		return "partly unknown"
	case n[store.OutcomeApplied] == len(a.Entries):
		return "applied"
	case n[store.OutcomeApplied] == 0:
		return "not applied"
	}
	return "partly applied"
}

// Stamps is the first and last stamp the action's writes issued ("" when
// none).
func (a Action) Stamps() (first, last string) {
	for _, e := range a.Entries {
		if e.Stamp == "" || e.Outcome != store.OutcomeApplied {
			continue
		}
		if first == "" {
			first = e.Stamp
		}
		last = e.Stamp
	}
	return first, last
}

// doubtful are the writes of a whose effect undo cannot take back: their
// outcome is unknown, or they applied without known before-images, or
// refer to rows no longer in the journal.
func doubtful(e Entry) bool {
	return e.Outcome == store.OutcomeUnknown || (e.Outcome == store.OutcomeApplied && (e.BeforeUnknown || e.unresolved || e.After == nil))
}

// Undoable says why user action a cannot be undone now, or nil.
func (h History) Undoable(a Action) error {
	if a.Undoes != "" {
		root := h.Root(a)
		return fmt.Errorf("%w: %s is an undo or a redo of %s: kvdeck undo %s or kvdeck redo %s takes %s back and forth", ErrNotUndoable, a.ID, root.ID, root.ID, root.ID, root.ID)
	}
	chain := h.Chain(a)
	if len(chain)%2 == 0 {
		return fmt.Errorf("%w: %s (%s) is already undone by %s; kvdeck redo %s redoes it", ErrNotUndoable, a.ID, a.Op, chain[len(chain)-1].ID, a.ID)
	}
	return h.invertible(chain[len(chain)-1], a)
}

// Redoable says why user action a cannot be redone now, or nil.
func (h History) Redoable(a Action) error {
	if a.Undoes != "" {
		root := h.Root(a)
		return fmt.Errorf("%w: %s is an undo or a redo of %s: kvdeck redo %s redoes that", ErrNotUndoable, a.ID, root.ID, root.ID)
	}
	chain := h.Chain(a)
	if len(chain)%2 == 1 {
		return fmt.Errorf("%w: %s (%s) is not undone: there is nothing to redo", ErrNotUndoable, a.ID, a.Op)
	}
	return h.invertible(chain[len(chain)-1], a)
}

// invertible says why the inverse of l (the last link of root's chain)
// cannot be made, or nil.
func (h History) invertible(l, root Action) error {
	name := fmt.Sprintf("%s (%s)", root.ID, root.Op)
	if l.ID != root.ID {
		name += " through " + l.ID
	}
	if l.Life < h.NewestLife {
		return fmt.Errorf("%w: %s was made in an earlier life of the database: later writes got stamps that were not above the ones before them (it was recreated, or copied back from an older file), so its rows are not these rows", ErrNotUndoable, name)
	}
	known, doubt, changed := 0, 0, 0
	for _, e := range l.Entries {
		switch {
		case doubtful(e):
			doubt++
		case e.Outcome == store.OutcomeApplied:
			known++
			changed += len(e.After) + e.settings()
		}
	}
	switch {
	case known == 0 && doubt == 0:
		return fmt.Errorf("%w: %s was not applied: there is nothing to undo", ErrNotUndoable, name)
	case known == 0:
		return fmt.Errorf("%w: %s cannot be undone: %s", ErrNotUndoable, name, doubtWhy(l))
	case changed == 0:
		return fmt.Errorf("%w: %s changed no row: there is nothing to restore", ErrNotUndoable, name)
	}
	return nil
}

// doubtWhy says why an action's doubtful writes cannot be taken back.
func doubtWhy(a Action) string {
	for _, e := range a.Entries {
		switch {
		case e.Outcome == store.OutcomeUnknown:
			return fmt.Sprintf("the outcome of its write %s is unknown (%s)", e.ID, unknownWhy(e))
		case e.unresolved:
			return fmt.Sprintf("its write %s refers to rows no longer in the journal", e.ID)
		case e.BeforeUnknown:
			return fmt.Sprintf("its write %s was applied, but the rows it replaced are unknown (its answer was lost, or it was settled by reading its keys)", e.ID)
		case doubtful(e):
			return fmt.Sprintf("its write %s was applied without a readable versionstamp: the rows it left cannot be checked", e.ID)
		}
	}
	return ""
}

// unknownWhy is the settlement's reason for an unknown entry, or why it
// is not settled.
func unknownWhy(e Entry) string {
	if e.Why != "" {
		return e.Why
	}
	return "not settled yet"
}

// Find is the action id names: exactly, or by a unique prefix; an
// older kvdeck's entry ID is its own action.
func (h History) Find(id string) (Action, error) {
	if a, ok := h.Action(id); ok {
		return a, nil
	}
	var found []Action
	for _, a := range h.Actions {
		if strings.HasPrefix(a.ID, id) {
			found = append(found, a)
		}
	}
	if len(found) == 0 {
		for _, a := range h.Actions {
			for _, e := range a.Entries {
				if e.ID == id {
					return a, nil
				}
			}
		}
	}
	switch len(found) {
	case 0:
		return Action{}, fmt.Errorf("%w: %q is not the ID of an action of this store's journal (kvdeck undo --list shows them)", ErrNoEntry, id)
	case 1:
		return found[0], nil
	}
	return Action{}, fmt.Errorf("%w: %q starts %d action IDs; give more of it", ErrNoEntry, id, len(found))
}

// DefaultUndo is what `kvdeck undo` without an ID takes back: the newest
// user action that is not undone and changed a row (or whose effect is
// in doubt, so that the refusal says why rather than an older action
// being undone instead). Repeating it steps further back.
func (h History) DefaultUndo() (Action, error) {
	for i := len(h.Actions) - 1; i >= 0; i-- {
		a := h.Actions[i]
		if a.Undoes != "" || !a.applied() && !a.inDoubt() || h.Undone(a) {
			continue
		}
		if a.Changed() > 0 || a.inDoubt() || a.setsSetting() {
			return a, nil
		}
	}
	return Action{}, fmt.Errorf("%w: the journal holds no applied action that is not undone yet", ErrNotUndoable)
}

// DefaultRedo is what `kvdeck redo` without an ID redoes: the user action
// whose undo was the newest applied one and is not redone yet.
func (h History) DefaultRedo() (Action, error) {
	for i := len(h.Actions) - 1; i >= 0; i-- {
		a := h.Actions[i]
		if a.Undoes == "" || !a.applied() || a.UndoneBy != "" {
			continue
		}
		root := h.Root(a)
		if chain := h.Chain(root); len(chain)%2 == 0 && chain[len(chain)-1].ID == a.ID {
			return root, nil
		}
	}
	return Action{}, fmt.Errorf("%w: no undone action to redo", ErrNotUndoable)
}

// inDoubt: one of the action's writes has an unknown effect.
func (a Action) inDoubt() bool {
	for _, e := range a.Entries {
		if doubtful(e) {
			return true
		}
	}
	return false
}
