package journal

import (
	"context"
	"errors"
	"fmt"

	"kvdeck/store"
)

// A store-level setting (a file's journal mode: store.SetJournalMode,
// `kvdeck wal`) is journaled as an entry that names no key: its intent
// carries the setting's name and its values before and after
// ("setting":{"name":"journal_mode","from":"rollback","to":"wal"}), its
// outcome nothing more than a write's. Its undo sets the value back
// (through the same call, journaled again, so that undoing the undo
// redoes), refused when the setting is no longer the value the entry
// left. Settle reads the setting: the entry's value applied, the one
// before not applied.

// settingRec is an intent's setting.
type settingRec struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

func newSettingRec(c *store.SettingChange) *settingRec {
	if c == nil {
		return nil
	}
	return &settingRec{Name: c.Name, From: c.From, To: c.To}
}

// validate accepts no setting, or one kvdeck knows with known values.
func (r *settingRec) validate() error {
	if r == nil {
		return nil
	}
	if r.Name != store.SettingJournalMode {
		return fmt.Errorf("unknown setting %q", r.Name)
	}
	for _, v := range []string{r.From, r.To} {
		if m := store.JournalMode(v); m != store.JournalWAL && m != store.JournalRollback {
			return fmt.Errorf("setting %s: unknown value %q", r.Name, v)
		}
	}
	return nil
}

func (r *settingRec) change() *store.SettingChange {
	if r == nil {
		return nil
	}
	return &store.SettingChange{Name: r.Name, From: r.From, To: r.To}
}

// SettingPlan is the undo of a setting's entry.
type SettingPlan struct {
	// Change is what the undo makes: From is the value the entry left,
	// To the value it replaced.
	Change store.SettingChange
	// Now is the setting's value now.
	Now string
}

// Conflict says why the undo would be refused ("" when it would not):
// the setting is no longer the value the entry left.
func (p SettingPlan) Conflict() string {
	if p.Now == p.Change.From {
		return ""
	}
	return fmt.Sprintf("%s is %s now; the write left it %s", p.Change.Name, p.Now, p.Change.From)
}

// settingNow reads a setting of s.
func settingNow(s *store.Store, name string) (string, error) {
	if name != store.SettingJournalMode {
		return "", fmt.Errorf("%w: unknown setting %q", ErrNotUndoable, name)
	}
	if s.JournalMode() == "" {
		return "", fmt.Errorf("%w: %s is a server's database, which has no journal mode of kvdeck's to set", ErrNotUndoable, s.Info().Display)
	}
	return string(s.JournalMode()), nil
}

// planSetting completes p, the plan of a setting's entry.
func planSetting(s *store.Store, p Plan) (Plan, error) {
	c := p.Entry.Setting
	now, err := settingNow(s, c.Name)
	if err != nil {
		return p, err
	}
	p.Setting = &SettingPlan{Change: store.SettingChange{Name: c.Name, From: c.To, To: c.From}, Now: now}
	return p, nil
}

// undoSetting makes p's setting undo, journaled as an entry that undoes
// p.Entry: nothing changed when the setting is no longer what the entry
// left (the refusal is an error naming it).
func (j *Journal) undoSetting(ctx context.Context, s *store.Store, p Plan) (store.RestoreResult, error) {
	sp := p.Setting
	now, err := settingNow(s, sp.Change.Name)
	if err != nil {
		return store.RestoreResult{}, err
	}
	sp = &SettingPlan{Change: sp.Change, Now: now}
	if why := sp.Conflict(); why != "" {
		return store.RestoreResult{}, fmt.Errorf("%w: undo %s refused, nothing was changed: %s", ErrNotUndoable, p.Entry.ID, why)
	}
	ctx = context.WithValue(store.WithWriteOp(ctx, "undo "+p.Entry.ID), undoKey{}, p.Entry.ID)
	changed, err := s.SetJournalMode(ctx, store.JournalMode(sp.Change.To))
	switch {
	case err != nil:
		return store.RestoreResult{}, err
	case !changed:
		return store.RestoreResult{}, fmt.Errorf("%w: undo %s: %s was %s already: nothing was changed", ErrNotUndoable, p.Entry.ID, sp.Change.Name, sp.Change.To)
	}
	return store.RestoreResult{OK: true}, nil
}

// settleSetting records the outcome of a setting's entry that has none,
// as the setting reads now: the value the entry set (applied: its value
// before is in the intent, so it can be undone), the one it replaced
// (not applied), else nothing.
func (j *Journal) settleSetting(s *store.Store, e Entry) error {
	now, err := settingNow(s, e.Setting.Name)
	if errors.Is(err, ErrNotUndoable) {
		return nil
	}
	rec := record{T: recOutcome, ID: e.ID, At: nowMS(), Settled: true}
	switch now {
	case e.Setting.To:
		rec.Outcome = string(store.OutcomeApplied)
	case e.Setting.From:
		rec.Outcome = string(store.OutcomeNotApplied)
	default:
		return nil
	}
	return j.writeRecord(rec)
}
