package cli

import (
	"encoding/hex"
	"fmt"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// journalEntryJSON is one entry of undo --list -o json.
type journalEntryJSON struct {
	ID            string           `json:"id"`
	Time          int64            `json:"time"`
	Command       string           `json:"command"`
	Kind          string           `json:"kind"`
	Keys          []journalKeyJSON `json:"keys"`
	Outcome       string           `json:"outcome"`
	Versionstamp  *string          `json:"versionstamp"`
	Settled       bool             `json:"settled"`
	BeforeUnknown bool             `json:"beforeUnknown"`
	Undoes        string           `json:"undoes,omitempty"`
	UndoneBy      string           `json:"undoneBy,omitempty"`
	Undoable      bool             `json:"undoable"`
	Why           string           `json:"why,omitempty"`
}

// journalKeyJSON is a key of an entry: tagged JSON when it decodes, and
// its hex always.
type journalKeyJSON struct {
	Key *codec.Key `json:"key"`
	Hex string     `json:"hex"`
}

// list prints the journal of the store, oldest first, after settling the
// entries whose outcome is unknown. A read-only session or a journal
// turned off reads the file without settling (settling writes to it).
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
	entries, notes, err := j.List()
	if err != nil {
		return err
	}
	for _, n := range notes {
		app.Warnf("journal line skipped: %s", n)
	}
	unknown := 0
	for _, e := range entries {
		why := journal.Undoable(e, entries)
		if e.Outcome == store.OutcomeUnknown {
			unknown++
		}
		out := journalEntryJSON{ID: e.ID, Time: e.Time.UnixMilli(), Command: e.Op, Kind: e.Kind, Outcome: string(e.Outcome),
			Versionstamp: stampOrNull(e.Stamp), Settled: e.Settled, BeforeUnknown: e.BeforeUnknown, Undoes: e.Undoes,
			UndoneBy: e.UndoneBy, Undoable: why == nil}
		if why != nil {
			out.Why = why.Error()
		}
		for _, k := range e.Keys {
			jk := journalKeyJSON{Hex: hex.EncodeToString(k)}
			if dk, err := codec.Decode(k); err == nil {
				jk.Key = &dk
			}
			out.Keys = append(out.Keys, jk)
		}
		app.Out.Result(out, fmt.Sprintf("%-8s  %s  %-14s  %-40s  %s", e.ID, timeText(e.Time.UnixMilli()),
			usertext.Sanitize(entryOp(e)), usertext.Sanitize(keysText(e.Keys, 40)), outcomeText(e)))
	}
	if len(entries) == 0 && !app.Out.JSON() {
		app.Out.Textf("no journal entries for %s (%s)", s.Info().Display, j.Path())
	}
	if unknown > 0 && !settle {
		app.Warnf("%s of unknown outcome not settled: settling writes to the journal, which a read-only session or --no-journal does not", plural(int64(unknown), "entry"))
	}
	return nil
}

// keysText is an entry's keys shortened to about width cells: the first
// key (cut in its middle) and how many more.
func keysText(keys [][]byte, width int) string {
	if len(keys) == 0 {
		return "-"
	}
	first := journal.KeyText(keys[0])
	more := ""
	if len(keys) > 1 {
		more = fmt.Sprintf(" +%d more", len(keys)-1)
	}
	room := width - len(more)
	if r := []rune(first); len(r) > room && room > 5 {
		half := (room - 1) / 2
		first = string(r[:half]) + "…" + string(r[len(r)-(room-1-half):])
	}
	return first + more
}

// outcomeText is an entry's outcome with what happened to it since.
func outcomeText(e journal.Entry) string {
	var parts []string
	switch {
	case e.Outcome == store.OutcomeApplied && e.BeforeUnknown:
		parts = append(parts, "applied (rows it replaced unknown: not undoable)")
	case e.Outcome == store.OutcomeApplied && e.After != nil && len(e.After) == 0:
		parts = append(parts, "applied (changed no row)")
	case e.Outcome == store.OutcomeNotApplied:
		parts = append(parts, "not applied")
	default:
		parts = append(parts, string(e.Outcome))
	}
	if e.Settled {
		parts[0] += " (settled by reading)"
	}
	if e.Undoes != "" {
		parts = append(parts, "undoes "+e.Undoes)
	}
	if e.UndoneBy != "" {
		parts = append(parts, "undone by "+e.UndoneBy)
	}
	return strings.Join(parts, ", ")
}
