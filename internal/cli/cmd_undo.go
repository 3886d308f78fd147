package cli

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// UndoCmd undoes a journaled write, or lists the journal.
type UndoCmd struct {
	ID   string `arg:"" optional:"" name:"id" help:"The entry to undo: an ID from --list or a unique prefix of one. Default: the newest applied write not yet undone (an undo included, so undo twice redoes)."`
	List bool   `name:"list" help:"List the store's journal, oldest first: id, time, command, keys, outcome."`
	Yes  bool   `name:"yes" help:"Undo without asking (scripts). Without it undo shows the preview and asks on a terminal, and refuses when stdin is not one."`
}

// Writes names the write for the read-only refusal (writer); --list
// only reads.
func (c *UndoCmd) Writes() string {
	if c.List {
		return ""
	}
	return "undo"
}

// Run lists the journal or undoes one entry.
func (c *UndoCmd) Run(app *App) error {
	if c.List {
		if c.ID != "" || c.Yes {
			return errors.New("undo --list takes no ID and no --yes")
		}
		return c.list(app)
	}
	if app.JournalOff() {
		return errors.New("undo works through the write journal, which --no-journal (or KVDECK_JOURNAL=off) turns off: the undo itself could not be recorded, nor undone")
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	j := journal.Of(s)
	if j == nil {
		return errors.New("the write journal of this store could not be opened")
	}
	p, err := j.PlanUndo(app.Context(), s, c.ID)
	switch {
	case errors.Is(err, journal.ErrNoEntry):
		return err
	case errors.Is(err, journal.ErrNotUndoable):
		return NotDone("%v", err)
	case err != nil:
		return err
	}
	c.preview(app, p)
	if len(p.Conflicts) > 0 {
		return refused(p.Entry.ID, p.Conflicts)
	}
	if !c.Yes {
		if err := confirm(app, p); err != nil {
			return err
		}
	}
	res, err := j.Undo(app.Context(), s, p)
	if err != nil {
		return err
	}
	if !res.OK {
		return refused(p.Entry.ID, res.Conflicts)
	}
	out := undoJSON{OK: true, Undid: p.Entry.ID, Versionstamp: stampOrNull(res.Versionstamp), Keys: len(p.Ops), Entry: undoEntry(j, p.Entry.ID)}
	text := fmt.Sprintf("undid %s: %s restored", p.Entry.ID, plural(int64(len(p.Ops)), "key"))
	if res.Versionstamp != "" {
		text += " (new versionstamp " + res.Versionstamp + ")"
	}
	if out.Entry != "" {
		text += "; this undo is entry " + out.Entry + ": kvdeck undo " + out.Entry + " redoes it"
	}
	app.Out.Result(out, text)
	return nil
}

// undoEntry is the journal entry of the undo of id just made (the
// newest that undoes it); "" when the journal cannot say.
func undoEntry(j *journal.Journal, id string) string {
	entries, _, err := j.List()
	if err != nil {
		return ""
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Undoes == id {
			return entries[i].ID
		}
	}
	return ""
}

// undoJSON is the result line of an undo.
type undoJSON struct {
	OK           bool    `json:"ok"`
	Undid        string  `json:"undid"`
	Entry        string  `json:"entry,omitempty"`
	Versionstamp *string `json:"versionstamp"`
	Keys         int     `json:"keys"`
}

// refused is the exit-1 error of an undo that found keys changed since
// the write: each named with its stamp and value now; nothing written.
func refused(id string, conflicts []store.RestoreConflict) error {
	msgs := make([]string, len(conflicts))
	for i, c := range conflicts {
		msgs[i] = journal.ConflictText(c)
	}
	return NotDone("undo %s refused, nothing was written: %s changed since the write: %s", id, plural(int64(len(conflicts)), "key"), strings.Join(msgs, "; "))
}

// confirm asks on a terminal; elsewhere it refuses (exit 2) so that a
// script never undoes without --yes.
func confirm(app *App, p journal.Plan) error {
	if !app.terminal(app.Stdin) {
		return fmt.Errorf("undo asks before it writes, and stdin is not a terminal: pass --yes to undo %s", p.Entry.ID)
	}
	return askYes(app, fmt.Sprintf("Undo %s?", p.Entry.ID), "not undone")
}

// askYes asks question on stderr (after the output so far) and reads the
// answer from stdin: y or yes goes on, anything else is NotDone(no).
func askYes(app *App, question, no string) error {
	if err := app.Out.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(app.Stderr, "%s [y/N] ", question)
	answer, err := bufio.NewReader(app.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return NotDone("%s", no)
}

// stdinTerminal reports whether r is a terminal (a character device;
// /dev/null is one too, and its empty answer is a no).
func stdinTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// planJSON is the preview of an undo in JSON.
type planJSON struct {
	Undo      string        `json:"undo"`
	Command   string        `json:"command"`
	Time      int64         `json:"time"`
	Keys      []planKeyJSON `json:"keys"`
	Conflicts int           `json:"conflicts"`
}

type planKeyJSON struct {
	Key       *codec.Key `json:"key"`
	Hex       string     `json:"hex"`
	Now       *rowJSON   `json:"now"`
	WillBe    *rowJSON   `json:"willBe"`
	ExpectVer string     `json:"expect"`
	Conflict  bool       `json:"conflict"`
}

type rowJSON struct {
	Value        json.RawMessage `json:"value"`
	Versionstamp *string         `json:"versionstamp,omitempty"`
	ExpiresAt    *int64          `json:"expiresAt"`
}

// preview prints each key of the plan: what is there now, and what the
// undo will leave.
func (c *UndoCmd) preview(app *App, p journal.Plan) {
	conflict := map[string]bool{}
	for _, k := range p.Conflicts {
		conflict[string(k.Key)] = true
	}
	if app.Out.JSON() {
		out := planJSON{Undo: p.Entry.ID, Command: p.Entry.Op, Time: p.Entry.Time.UnixMilli(), Conflicts: len(p.Conflicts)}
		for _, op := range p.Ops {
			k := planKeyJSON{Hex: hex.EncodeToString(op.Key), Now: undoRowOf(p.Now[string(op.Key)], true), WillBe: undoRowOf(op.Put, false),
				ExpectVer: expectText(op.ExpectVer), Conflict: conflict[string(op.Key)]}
			if dk, err := codec.Decode(op.Key); err == nil {
				k.Key = &dk
			}
			out.Keys = append(out.Keys, k)
		}
		app.Out.Object(out)
		return
	}
	app.Out.Textf("undo %s  %s  %s  (%s):", p.Entry.ID, timeText(p.Entry.Time.UnixMilli()), entryOp(p.Entry), plural(int64(len(p.Ops)), "key"))
	for _, op := range p.Ops {
		mark := " "
		if conflict[string(op.Key)] {
			mark = "!"
		}
		app.Out.Textf("%s %s  %s  →  %s", mark, usertext.Sanitize(journal.KeyText(op.Key)), undoRowText(p.Now[string(op.Key)], true), undoRowText(op.Put, false))
	}
	for _, op := range p.Ops {
		if op.Put != nil {
			app.Out.Textf("restored rows get a new versionstamp")
			break
		}
	}
}

// expectText is the stamp a key must be at for the undo ("absent": 0).
func expectText(ver int64) string {
	if ver == 0 {
		return "absent"
	}
	return codec.FormatStamp(ver)
}

func undoRowOf(r *store.RawRow, withStamp bool) *rowJSON {
	if r == nil {
		return nil
	}
	v, _ := jsonValue(r.Value)
	out := &rowJSON{Value: v, ExpiresAt: r.ExpiresAt}
	if withStamp {
		out.Versionstamp = stampOrNull(codec.FormatStamp(r.Ver))
	}
	return out
}

// undoRowText is a row in the preview: value (cut at 120 bytes), stamp (now
// only) and expiry; "absent" when there is none.
func undoRowText(r *store.RawRow, withStamp bool) string {
	if r == nil {
		return "absent"
	}
	var b strings.Builder
	if v, ok := jsonValue(r.Value); ok {
		b.WriteString(journal.ValueText(v, 120))
	} else {
		b.WriteString("raw:" + strconv.Quote(journal.ValueText(r.Value, 120)))
	}
	if withStamp {
		b.WriteString(" v=" + codec.FormatStamp(r.Ver))
	}
	if r.ExpiresAt != nil {
		b.WriteString(" expires=" + timeText(*r.ExpiresAt))
	}
	return b.String()
}

// entryOp is the command that made an entry, or its engine call when no
// command was named.
func entryOp(e journal.Entry) string {
	if e.Op != "" {
		return e.Op
	}
	return "(" + e.Kind + ")"
}
