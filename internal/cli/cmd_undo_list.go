package cli

import (
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// journalActionJSON is one action of undo --list -o json.
type journalActionJSON struct {
	ID      string `json:"id"`
	Time    int64  `json:"time"`
	Command string `json:"command"`
	// Writes counts its journaled writes; Keys are the first listKeys of
	// the keys they name, KeyCount all of them.
	Writes        int                `json:"writes"`
	Keys          []journalKeyJSON   `json:"keys"`
	KeyCount      int                `json:"keyCount"`
	Outcome       string             `json:"outcome"`
	Versionstamp  *string            `json:"versionstamp"`
	Settled       bool               `json:"settled"`
	BeforeUnknown bool               `json:"beforeUnknown"`
	Undoes        string             `json:"undoes,omitempty"`
	UndoneBy      string             `json:"undoneBy,omitempty"`
	Life          int                `json:"life"`
	Undoable      bool               `json:"undoable"`
	Redoable      bool               `json:"redoable"`
	Why           string             `json:"why,omitempty"`
	Entries       []journalEntryJSON `json:"entries"`
	// Settings are the store-level settings it changed (kvdeck wal).
	Settings []settingJSON `json:"settings,omitempty"`
}

// settingJSON is a store-level setting an action changed.
type settingJSON struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// journalEntryJSON is one write of an action.
type journalEntryJSON struct {
	ID            string  `json:"id"`
	Kind          string  `json:"kind"`
	Keys          int     `json:"keys"`
	Outcome       string  `json:"outcome"`
	Versionstamp  *string `json:"versionstamp"`
	Settled       bool    `json:"settled"`
	Why           string  `json:"why,omitempty"`
	BeforeUnknown bool    `json:"beforeUnknown"`
}

// journalKeyJSON is a key of an action: tagged JSON when it decodes, and
// its hex always.
type journalKeyJSON struct {
	Key *codec.Key `json:"key"`
	Hex string     `json:"hex"`
}

// keysWidth is the width of undo --list's KEYS column.
const keysWidth = 50

// listKeys is how many keys of an action the JSON list names.
const listKeys = 20

// list prints the journal of the store, one line per action, oldest
// first, after settling the writes whose outcome is unknown. A read-only
// session or a journal turned off reads the file without settling
// (settling writes to it).
func (c *UndoCmd) list(app *App) error {
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	j := journal.Of(s)
	settle := j != nil
	if j == nil {
		url, _ := app.Globals.ResolveDB(app.Env)
		if j, err = app.JournalFor(url); err != nil {
			return err
		}
	}
	if settle {
		if err := j.Settle(app.Context(), s); err != nil {
			return err
		}
	}
	h, notes, err := j.History()
	if err != nil {
		return err
	}
	for _, n := range notes {
		app.Warnf("journal line skipped: %s", n)
	}
	unknown := 0
	if len(h.Actions) > 0 && !app.Out.JSON() {
		app.Out.Textf("%s", undoListLine("ID", "TIME", "COMMAND", "KEYS", "OUTCOME"))
	}
	for _, a := range h.Actions {
		out := actionJSON(h, a)
		if out.Outcome == "unknown" || out.Outcome == "partly unknown" {
			unknown++
		}
		what := keysText(a.FirstKeys, a.KeyCount, keysWidth)
		if ss := a.Settings(); len(ss) > 0 && a.KeyCount == 0 {
			what = fmt.Sprintf("%s %s → %s", ss[0].Name, ss[0].From, ss[0].To)
		}
		app.Out.Result(out, undoListLine(a.ID, timeText(a.Time.UnixMilli()), usertext.Sanitize(actionOp(a)),
			usertext.Sanitize(what), usertext.Sanitize(outcomeText(h, a))))
	}
	if len(h.Actions) == 0 && !app.Out.JSON() {
		app.Out.Textf("no journal entries for %s (%s)", s.Info().Display, j.Path())
	}
	if unknown > 0 && !settle {
		app.Warnf("%s of unknown outcome not settled: settling writes to the journal, which a read-only session or --no-journal does not", plural(int64(unknown), "action"))
	}
	return nil
}

// undoListLine is a line of undo --list: its columns padded to their
// widths in cells (a key's "…" is one cell of three bytes).
func undoListLine(id, at, op, keys, outcome string) string {
	pad := func(s string, w int) string { return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0)) }
	return pad(id, 8) + "  " + pad(at, 24) + "  " + pad(op, 14) + "  " + pad(keys, keysWidth) + "  " + outcome
}

// actionJSON is an action as undo --list -o json prints it.
func actionJSON(h journal.History, a journal.Action) journalActionJSON {
	first, _ := a.Stamps()
	out := journalActionJSON{ID: a.ID, Time: a.Time.UnixMilli(), Command: a.Op, Writes: len(a.Entries), KeyCount: a.KeyCount,
		Outcome: a.Outcome(), Versionstamp: stampOrNull(first), Undoes: a.Undoes, UndoneBy: a.UndoneBy, Life: a.Life}
	if a.Undoes == "" {
		why := h.Undoable(a)
		out.Undoable = why == nil
		out.Redoable = h.Redoable(a) == nil
		if why != nil && !out.Redoable {
			out.Why = why.Error()
		}
	}
	for _, k := range a.FirstKeys[:min(len(a.FirstKeys), listKeys)] {
		jk := journalKeyJSON{Hex: hex.EncodeToString(k)}
		if dk, err := codec.Decode(k); err == nil {
			jk.Key = &dk
		}
		out.Keys = append(out.Keys, jk)
	}
	for _, c := range a.Settings() {
		out.Settings = append(out.Settings, settingJSON{Name: c.Name, From: c.From, To: c.To})
	}
	for _, e := range a.Entries {
		out.Settled = out.Settled || e.Settled
		out.BeforeUnknown = out.BeforeUnknown || e.BeforeUnknown
		out.Entries = append(out.Entries, journalEntryJSON{ID: e.ID, Kind: e.Kind, Keys: len(e.Keys), Outcome: string(e.Outcome),
			Versionstamp: stampOrNull(e.Stamp), Settled: e.Settled, Why: e.Why, BeforeUnknown: e.BeforeUnknown})
	}
	return out
}

// keysText is an action's keys (the first ones, of n) in about width
// cells: the first key (keyWithin) and how many more.
func keysText(keys [][]byte, n, width int) string {
	if len(keys) == 0 {
		return "-"
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" +%d more", n-1)
	}
	room := width - len(more)
	k, err := codec.Decode(keys[0])
	if err != nil {
		first := []rune(journal.KeyText(keys[0]))
		if len(first) > room && room > 5 {
			half := (room - 1) / 2
			first = append(append(first[:half:half], '…'), first[len(first)-(room-1-half):]...)
		}
		return string(first) + more
	}
	return keyWithin(k, room) + more
}

// keyWithin is a key's text in about width cells, shortened where it
// tells least: its later parts before its earlier ones (the first part
// says what the key is, a queue or a lease, the next its name), the last
// part keeping its end (ids that share a prefix differ there), a part in
// between both its ends; a part of 8 characters or fewer is never cut.
// When that is not enough, the text is cut at its end.
func keyWithin(k codec.Key, width int) string {
	const never, least = 8, 4 // a part of 8 characters stays whole; a cut one keeps 4 and "…"
	parts := make([]string, len(k))
	full := 2 + 2*max(len(k)-1, 0)
	for i, p := range k {
		parts[i] = usertext.Sanitize(p.String())
		full += utf8.RuneCountInString(parts[i])
	}
	need := full - width
	for i := len(parts) - 1; i >= 1 && need > 0; i-- {
		open, body, closing := quoted(parts[i])
		if utf8.RuneCountInString(parts[i]) <= never {
			continue
		}
		keep := max(least, len(body)-1-need)
		if keep >= len(body)-1 {
			continue
		}
		head := keep / 2
		if i == len(parts)-1 {
			head = 0
		}
		need -= len(body) - 1 - keep
		parts[i] = open + string(body[:head]) + "…" + string(body[len(body)-(keep-head):]) + closing
	}
	text := "[" + strings.Join(parts, ", ") + "]"
	if r := []rune(text); len(r) > width && width > 1 {
		return string(r[:width-1]) + "…"
	}
	return text
}

// quoted splits a key part's text into its opening quote (`"`, `b"` or
// none), its characters and its closing quote.
func quoted(text string) (open string, body []rune, closing string) {
	for _, o := range []string{`b"`, `"`} {
		if len(text) > len(o) && strings.HasPrefix(text, o) && strings.HasSuffix(text, `"`) {
			return o, []rune(text[len(o) : len(text)-1]), `"`
		}
	}
	return "", []rune(text), ""
}

// outcomeText is an action's outcome with what happened to it since.
func outcomeText(h journal.History, a journal.Action) string {
	parts := []string{a.Outcome()}
	settled, beforeUnknown, changed := false, false, a.Changed()
	var why string
	for _, e := range a.Entries {
		settled = settled || e.Settled
		if e.BeforeUnknown {
			beforeUnknown = true
		}
		if e.Settled && e.Outcome == store.OutcomeUnknown && why == "" {
			why = e.Why
		}
	}
	switch {
	case beforeUnknown:
		parts[0] += " (rows it replaced unknown: not undoable)"
	case a.Outcome() == "applied" && changed == 0 && len(a.Settings()) == 0:
		parts[0] += " (changed no row)"
	}
	if settled {
		parts[0] += " (settled by reading)"
	}
	if len(a.Entries) > 1 {
		parts = append(parts, fmt.Sprintf("%d writes", len(a.Entries)))
	}
	if a.Undoes != "" {
		verb := "undoes "
		if t, ok := h.Action(a.Undoes); ok && t.Undoes != "" {
			verb = "redoes "
			a.Undoes = h.Root(t).ID
		}
		parts = append(parts, verb+a.Undoes)
	}
	if a.UndoneBy != "" {
		verb := "undone by "
		if a.Undoes != "" {
			verb = "taken back by "
		}
		parts = append(parts, verb+a.UndoneBy)
	}
	if a.Life < h.NewestLife {
		parts = append(parts, fmt.Sprintf("an earlier life of the database (%d)", a.Life+1))
	}
	if why != "" {
		parts = append(parts, why)
	}
	return strings.Join(parts, ", ")
}
