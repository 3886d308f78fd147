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

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-isatty"

	"kvdeck/codec"
	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// UndoCmd undoes a journaled action, or lists the journal.
type UndoCmd struct {
	ID   string `arg:"" optional:"" name:"id" help:"The action to undo: an ID from --list or a unique prefix of one. Default: the newest action not undone yet; repeating steps further back."`
	List bool   `name:"list" help:"List the store's journal, oldest first: one line per action (a command, a key): id, time, command, keys, outcome."`
	Yes  bool   `name:"yes" help:"Undo without asking (scripts). Without it undo shows the preview and asks on a terminal, and refuses when stdin is not one."`
}

// RedoCmd makes an undone action again: the inverse of its undo.
type RedoCmd struct {
	ID  string `arg:"" optional:"" name:"id" help:"The undone action to redo: an ID from undo --list or a unique prefix of one. Default: the action undone last."`
	Yes bool   `name:"yes" help:"Redo without asking (scripts); without it redo asks on a terminal, and refuses when stdin is not one."`
}

// Writes names the write for the read-only refusal (writer); --list
// only reads.
func (c *UndoCmd) Writes() string {
	if c.List {
		return ""
	}
	return "undo"
}

// Writes names the write for the read-only refusal (writer).
func (c *RedoCmd) Writes() string { return "redo" }

// Run lists the journal or undoes one action.
func (c *UndoCmd) Run(app *App) error {
	if c.List {
		if c.ID != "" || c.Yes {
			return errors.New("undo --list takes no ID and no --yes")
		}
		return c.list(app)
	}
	return undoOrRedo(app, c.ID, c.Yes, false)
}

// Run redoes one action.
func (c *RedoCmd) Run(app *App) error { return undoOrRedo(app, c.ID, c.Yes, true) }

// undoOrRedo plans, previews, asks and makes an undo (or a redo).
func undoOrRedo(app *App, id string, yes, redo bool) error {
	verb := "undo"
	if redo {
		verb = "redo"
	}
	if app.JournalOff() {
		return fmt.Errorf("%s works through the write journal, which --no-journal (or KVDECK_JOURNAL=off) turns off: it could not be recorded, nor taken back", verb)
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	j := journal.Of(s)
	if j == nil {
		return errors.New("the write journal of this store could not be opened")
	}
	var p journal.Plan
	if redo {
		p, err = j.PlanRedo(app.Context(), s, id)
	} else {
		p, err = j.PlanUndo(app.Context(), s, id)
	}
	switch {
	case errors.Is(err, journal.ErrNoEntry):
		return err
	case errors.Is(err, journal.ErrNotUndoable):
		return NotDone("%v", err)
	case err != nil:
		return err
	}
	previewPlan(app, p)
	if len(p.Conflicts) > 0 {
		return refused(p, p.Conflicts)
	}
	if !yes {
		if err := confirm(app, p); err != nil {
			return err
		}
	}
	res, err := j.Undo(app.Context(), s, p)
	if err != nil {
		if res.Restored > 0 {
			return fmt.Errorf("%s %s stopped after %s of %d (action %s; kvdeck undo --list shows it): %w", verb, p.Action.ID, plural(int64(res.Restored), "key"), len(p.Ops), res.Action, err)
		}
		return err
	}
	switch {
	case res.SeqBelow > 0:
		return NotDone("%s %s refused, nothing was written: the store's seq went down to %d, below stamp %d this journal recorded: the database was recreated, or copied back from an older file", verb, p.Action.ID, res.SeqBelow, p.MinSeq)
	case !res.OK && res.Restored == 0:
		return refused(p, res.Conflicts)
	case !res.OK:
		return NotDone("%s %s stopped part-way: %s of %d restored in %d commit(s) (action %s), then a key changed between the check and its commit: %s; the others are as the action left them (kvdeck undo --list shows both)",
			verb, p.Action.ID, plural(int64(res.Restored), "key"), len(p.Ops), res.Commits, res.Action, conflictsText(res.Conflicts))
	}
	undone(app, p, res, redo)
	return nil
}

// undone prints the result of an undo (or a redo) that restored every
// key of p.
func undone(app *App, p journal.Plan, res journal.Result, redo bool) {
	out := undoJSON{OK: true, Action: res.Action, Versionstamp: stampOrNull(res.First), Keys: res.Restored, Commits: res.Commits}
	for _, c := range res.Set {
		out.Settings = append(out.Settings, settingJSON{Name: c.Name, From: c.From, To: c.To})
	}
	if redo {
		out.Redid = p.Action.ID
	} else {
		out.Undid = p.Action.ID
	}
	past := map[bool]string{false: "undid", true: "redid"}[redo]
	var did []string
	if len(p.Ops) > 0 {
		did = append(did, journal.DoneText(p, res.Restored))
	}
	for _, c := range res.Set {
		did = append(did, fmt.Sprintf("%s %s again", c.Name, c.To))
	}
	text := fmt.Sprintf("%s %s (%s): %s", past, p.Action.ID, usertext.Sanitize(p.Action.Op), strings.Join(did, ", "))
	if res.Commits > 1 {
		text += fmt.Sprintf(" in %d commits", res.Commits)
	}
	if res.First != "" {
		text += " (new versionstamp " + res.First
		if res.Last != res.First {
			text += " to " + res.Last
		}
		text += ")"
	}
	if redo {
		text += "; kvdeck undo " + p.Action.ID + " undoes it again"
	} else {
		text += "; kvdeck redo " + p.Action.ID + " redoes it"
	}
	app.Out.Result(out, text)
}

// undoJSON is the result line of an undo or a redo.
type undoJSON struct {
	OK           bool    `json:"ok"`
	Undid        string  `json:"undid,omitempty"`
	Redid        string  `json:"redid,omitempty"`
	Action       string  `json:"action,omitempty"`
	Versionstamp *string `json:"versionstamp"`
	Keys         int     `json:"keys"`
	Commits      int     `json:"commits"`
	// Settings are the store-level settings set back (kvdeck wal's).
	Settings []settingJSON `json:"settings,omitempty"`
}

// refusedShown is how many changed keys a refusal names.
const refusedShown = 20

// refused is the exit-1 error of an undo that found keys changed since
// the action: each named with its stamp and value now; nothing written.
func refused(p journal.Plan, conflicts []journal.Conflict) error {
	return NotDone("%s %s refused, nothing was written: %s changed since the action: %s", p.Verb(), p.Action.ID, journal.ChangedText(conflicts), conflictsText(conflicts))
}

// conflictsText names up to refusedShown conflicts, and how many more.
func conflictsText(conflicts []journal.Conflict) string {
	var msgs []string
	for i, c := range conflicts {
		if i == refusedShown {
			msgs = append(msgs, fmt.Sprintf("and %d more (-o json lists them)", len(conflicts)-i))
			break
		}
		msgs = append(msgs, usertext.Sanitize(c.Text()))
	}
	return strings.Join(msgs, "; ")
}

// confirm asks on a terminal; elsewhere (a pipe, a file, /dev/null) it
// refuses (exit 2) so that a script never undoes without --yes.
func confirm(app *App, p journal.Plan) error {
	if !app.terminal(app.Stdin) {
		return fmt.Errorf("%s asks before it writes, and stdin is not a terminal: pass --yes to %s %s", p.Verb(), p.Verb(), p.Action.ID)
	}
	if p.Redo {
		return askYes(app, fmt.Sprintf("Redo %s?", p.Action.ID), "not redone")
	}
	return askYes(app, fmt.Sprintf("Undo %s?", p.Action.ID), "not undone")
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

// stdinTerminal reports whether r is a terminal (a tty: /dev/null is a
// character device but no terminal).
func stdinTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// planJSON is the preview of an undo in JSON.
type planJSON struct {
	Undo      string        `json:"undo,omitempty"`
	Redo      string        `json:"redo,omitempty"`
	Command   string        `json:"command"`
	Time      int64         `json:"time"`
	Keys      []planKeyJSON `json:"keys"`
	MoreKeys  int           `json:"moreKeys"`
	Conflicts int           `json:"conflicts"`
	Skipped   []skippedJSON `json:"skipped,omitempty"`
	Notes     []string      `json:"notes,omitempty"`
}

type skippedJSON struct {
	Entry string `json:"entry"`
	Keys  int    `json:"keys"`
	Why   string `json:"why"`
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

// previewShown is how many keys the text preview lists (conflicting keys
// first); previewJSON how many the JSON one does.
const (
	previewShown = 20
	previewJSON  = 1000
)

// previewPlan prints keys of the plan, those that refuse it first: what
// is there now, and what the undo will leave; then what it cannot take
// back, and what it changes besides the rows (new stamps, leases).
func previewPlan(app *App, p journal.Plan) {
	conflict := map[string]bool{}
	for _, k := range p.Conflicts {
		conflict[string(k.Key)] = true
	}
	ops := make([]store.RestoreOp, 0, len(p.Ops))
	for _, op := range p.Ops {
		if conflict[string(op.Key)] {
			ops = append(ops, op)
		}
	}
	for _, op := range p.Ops {
		if !conflict[string(op.Key)] {
			ops = append(ops, op)
		}
	}
	if app.Out.JSON() {
		app.Out.Object(planObject(p, ops, conflict))
		return
	}
	previewText(app, p, ops, conflict)
}

// planObject is the JSON preview of p: its first previewJSON ops (in
// the preview's order), conflict marking the keys that refuse it.
func planObject(p journal.Plan, ops []store.RestoreOp, conflict map[string]bool) planJSON {
	out := planJSON{Command: p.Action.Op, Time: p.Action.Time.UnixMilli(), Conflicts: len(p.Conflicts), Notes: journal.PlanNotes(p)}
	if p.Redo {
		out.Redo = p.Action.ID
	} else {
		out.Undo = p.Action.ID
	}
	for i, op := range ops {
		if i == previewJSON {
			out.MoreKeys = len(ops) - i
			break
		}
		k := planKeyJSON{Hex: hex.EncodeToString(op.Key), Now: undoRowOf(p.Now[string(op.Key)], true), WillBe: undoRowOf(op.Put, false),
			ExpectVer: expectText(op.ExpectVer), Conflict: conflict[string(op.Key)]}
		if dk, err := codec.Decode(op.Key); err == nil {
			k.Key = &dk
		}
		out.Keys = append(out.Keys, k)
	}
	for _, sk := range p.Skipped {
		out.Skipped = append(out.Skipped, skippedJSON{Entry: sk.Entry, Keys: len(sk.Keys), Why: sk.Why})
	}
	return out
}

// previewText prints the text preview of p: a heading, its first
// previewShown ops (in the preview's order, a conflict marked !), what it
// cannot take back and its notes, wrapped to a terminal's width.
func previewText(app *App, p journal.Plan, ops []store.RestoreOp, conflict map[string]bool) {
	what := plural(int64(len(p.Ops)), "key")
	for _, st := range p.Settings {
		what += ", " + st.Change.Name + " " + st.Now + " → " + st.Change.To
	}
	app.Out.Textf("%s %s  %s  %s  (%s):", p.Verb(), p.Action.ID, timeText(p.Action.Time.UnixMilli()), usertext.Sanitize(p.Action.Op), what)
	for i, op := range ops {
		if i == previewShown {
			app.Out.Textf("  … and %d more keys (-o json lists up to %d)", len(ops)-i, previewJSON)
			break
		}
		mark := " "
		if conflict[string(op.Key)] {
			mark = "!"
		}
		line := fmt.Sprintf("%s %s  %s  →  %s", mark, usertext.Sanitize(journal.KeyText(op.Key)), undoRowText(p.Now[string(op.Key)], true), undoRowText(op.Put, false))
		if width, _, tty := app.Out.Terminal(); tty {
			line = strings.Join(hanging(line, width, "    "), "\n")
		}
		app.Out.Textf("%s", line)
	}
	for _, sk := range p.Skipped {
		app.Out.Textf("not taken back: %s of write %s: %s", plural(int64(len(sk.Keys)), "key"), sk.Entry, usertext.Sanitize(sk.Why))
	}
	for _, n := range journal.PlanNotes(p) {
		n = usertext.Sanitize(n)
		if width, _, tty := app.Out.Terminal(); tty {
			n = strings.Join(hanging(n, width, ""), "\n")
		}
		app.Out.Textf("%s", n)
	}
}

// hanging wraps a line of the preview at width cells (a terminal's)
// between words, its later lines indented under its first: a terminal's
// own wrap would put a key's at the left edge, where the next key's line
// starts.
func hanging(line string, width int, indent string) []string {
	if width < 2*len(indent)+8 {
		return []string{line}
	}
	var out []string
	for room := width; ansi.StringWidth(line) > room; room = width - len(indent) {
		first, _, _ := strings.Cut(ansi.Wrap(line, room, ""), "\n")
		first = strings.TrimRight(first, " ")
		rest, ok := strings.CutPrefix(line, first)
		if !ok || first == "" {
			break // not a cut of line's text: left to the terminal
		}
		out = append(out, first)
		line = indent + strings.TrimLeft(rest, " ")
	}
	return append(out, line)
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

// actionOp is the command that made an action, or its engine call when
// no command was named.
func actionOp(a journal.Action) string {
	if a.Op != "" {
		return a.Op
	}
	if len(a.Entries) > 0 {
		return "(" + a.Entries[0].Kind + ")"
	}
	return "-"
}
