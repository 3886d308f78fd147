package journal

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kvdeck/store"
)

// A store-level setting (a file's journal mode: store.SetJournalMode,
// `kvdeck wal`) is journaled as a write of its own Kind ("journal-mode")
// that names no key: its intent carries the setting's name and its
// values before and after
// ("setting":{"name":"journal_mode","from":"rollback","to":"wal"}), its
// outcome nothing more than a write's. The inverse of an action sets its
// settings back (Plan.Settings, after its rows; the undo's own writes
// are journaled under the undo's action, so redo takes them back too),
// refused when a setting is no longer the value the action left (a
// Conflict naming the setting). Settle reads the setting: the entry's
// value is applied, the one before not applied.

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

// validate accepts no setting, or one kvdeck knows with known values: a
// setting this kvdeck does not know is never set back blindly.
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

// SettingStep is one setting an undo (or a redo) sets back.
type SettingStep struct {
	// Entry is the write whose setting it takes back.
	Entry string
	// Change is what the step makes: From is the value the entry left,
	// To the value it replaced.
	Change store.SettingChange
	// Now is the setting's value when the plan was last checked.
	Now string
}

// Conflict says why the step would be refused ("" when it would not):
// the setting is no longer the value the action left.
func (st SettingStep) Conflict() string {
	if st.Now == st.Change.From {
		return ""
	}
	return fmt.Sprintf("%s is %s now; the action left it %s", st.Change.Name, st.Now, st.Change.From)
}

// stepOf is the step that takes back e's setting.
func stepOf(e Entry) SettingStep {
	c := e.Setting
	return SettingStep{Entry: e.ID, Change: store.SettingChange{Name: c.Name, From: c.To, To: c.From}}
}

// settings counts the settings e changed (an applied setting's entry:
// one), for what an action changed.
func (e Entry) settings() int {
	if e.Setting != nil && e.Outcome == store.OutcomeApplied {
		return 1
	}
	return 0
}

// setsSetting: one of the action's writes changed a setting.
func (a Action) setsSetting() bool { return len(a.Settings()) > 0 }

// Settings are the settings the action's applied writes changed, in
// order: what a list shows of an action that names no key.
func (a Action) Settings() []store.SettingChange {
	var out []store.SettingChange
	for _, e := range a.Entries {
		if e.settings() > 0 {
			out = append(out, *e.Setting)
		}
	}
	return out
}

// settingNow reads a setting of s: the file's journal mode as the store
// knows it (read at open, or as its own switch left it).
func settingNow(s *store.Store, name string) (string, error) {
	if name != store.SettingJournalMode {
		return "", fmt.Errorf("%w: unknown setting %q", ErrNotUndoable, name)
	}
	if s.JournalMode() == "" {
		return "", fmt.Errorf("%w: %s is a server's database, which has no journal mode of kvdeck's to set", ErrNotUndoable, s.Info().Display)
	}
	return string(s.JournalMode()), nil
}

// checkSettings reads each step's setting now and lists those no longer
// at the value the action left as conflicts. It marks a copy of the
// steps: a Plan is a value whose caller may be showing it meanwhile.
func (p *Plan) checkSettings(s *store.Store) error {
	p.Settings = slices.Clone(p.Settings)
	for i := range p.Settings {
		st := &p.Settings[i]
		now, err := settingNow(s, st.Change.Name)
		if err != nil {
			return err
		}
		st.Now = now
		if st.Conflict() != "" {
			c := *st
			p.Conflicts = append(p.Conflicts, Conflict{Setting: &c})
		}
	}
	return nil
}

// setBack makes p's setting steps after its rows (out: what the rows'
// commits did), under the undo's action (ctx carries it): each set
// through the store, journaled, and tried once. A setting found at its
// target already (switched since the check) stops it as a conflict.
func (j *Journal) setBack(ctx context.Context, s *store.Store, p Plan, act *store.Action, out Result) (Result, error) {
	for _, st := range p.Settings {
		changed, err := s.SetJournalMode(ctx, store.JournalMode(st.Change.To))
		if err != nil {
			return out, err
		}
		if !changed {
			st.Now = st.Change.To
			out.Conflicts = append(out.Conflicts, Conflict{Setting: &st})
			return out, nil
		}
		out.Action = act.ID(j.newID)
		out.Set = append(out.Set, st.Change)
	}
	out.OK = true
	return out, nil
}

// settleSetting completes rec, the settlement of e (a setting's write
// whose outcome never came), as the setting reads now: the value it set
// is applied (and can be undone: the value before is in its intent), the
// one it replaced not applied.
func settleSetting(s *store.Store, e Entry, rec record) record {
	now, err := settingNow(s, e.Setting.Name)
	switch {
	case err != nil:
		rec.Why = err.Error()
	case now == e.Setting.To:
		rec.Outcome = string(store.OutcomeApplied)
		rec.Why = fmt.Sprintf("%s is %s, the value it sets", e.Setting.Name, now)
	case now == e.Setting.From:
		rec.Outcome = string(store.OutcomeNotApplied)
		rec.Why = fmt.Sprintf("%s is still %s, the value it replaces", e.Setting.Name, now)
	default:
		rec.Why = fmt.Sprintf("%s is %s, neither the value it replaces nor the one it sets", e.Setting.Name, now)
	}
	return rec
}

// settingNotes say, for a preview, what each setting step sets back and
// when it is refused.
func settingNotes(p Plan) []string {
	var notes []string
	for _, st := range p.Settings {
		notes = append(notes, fmt.Sprintf("sets %s back from %s to %s (write %s): tried once without waiting, refused with nothing changed while another process has the file open or a connection is using it",
			st.Change.Name, st.Change.From, st.Change.To, st.Entry))
	}
	return notes
}

// ChangedText counts what conflicts found changed, for a refusal: "3
// keys", "journal_mode", "2 keys and journal_mode".
func ChangedText(conflicts []Conflict) string {
	keys := 0
	var parts []string
	for _, c := range conflicts {
		if c.Setting != nil {
			parts = append(parts, c.Setting.Change.Name)
		} else {
			keys++
		}
	}
	if keys > 0 || len(parts) == 0 {
		n := fmt.Sprintf("%d keys", keys)
		if keys == 1 {
			n = "1 key"
		}
		parts = append([]string{n}, parts...)
	}
	return strings.Join(parts, " and ")
}
