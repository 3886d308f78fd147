package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"kvdeck/codec"
	"kvdeck/store"
)

// maxAtomicInput bounds the atomic document read into memory.
const maxAtomicInput = 64 << 20

// AtomicCmd commits a composition.
type AtomicCmd struct {
	File string `arg:"" name:"file" help:"The atomic JSON document, or - for stdin."`
}

// failedJSON is the result line of a commit whose checks failed.
type failedJSON struct {
	OK           bool             `json:"ok"`
	FailedChecks []failedCheckRow `json:"failedChecks"`
}

// failedCheckRow is one failed check of an atomic commit; expected and
// actual are null for "absent".
type failedCheckRow struct {
	Index    int       `json:"index"`
	Key      codec.Key `json:"key"`
	Expected *string   `json:"expected"`
	Actual   *string   `json:"actual"`
}

// Run parses the whole document first (nothing is written when any part
// of it is malformed), commits it, and prints {"ok":true,"versionstamp"}
// or {"ok":false,"failedChecks"} with exit 1.
func (c *AtomicCmd) Run(app *App) error {
	if err := app.Writable("atomic commit"); err != nil {
		return err
	}
	in, err := OpenInput(c.File, app.Stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	raw, err := io.ReadAll(io.LimitReader(in, maxAtomicInput+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", c.File, err)
	}
	if len(raw) > maxAtomicInput {
		return fmt.Errorf("%s: larger than %d MiB; an atomic commit this big would hold the write lock too long", c.File, maxAtomicInput>>20)
	}
	checks, muts, err := ParseAtomic(raw)
	if err != nil {
		return err
	}
	s, err := app.Open()
	if err != nil {
		return err
	}
	res, err := s.Commit(app.Context(), checks, muts)
	if err != nil {
		return err
	}
	if res.OK {
		text := "ok " + res.Versionstamp
		if res.Versionstamp == "" {
			text = "ok (no set, no versionstamp)"
		}
		app.Out.Result(commitJSON{OK: true, Versionstamp: stampOrNull(res.Versionstamp)}, text)
		return nil
	}
	rows := make([]failedCheckRow, 0, len(res.Failed))
	text := "failed: the checks hold again on re-read (a concurrent writer changed the keys meanwhile)"
	for i, f := range res.Failed {
		rows = append(rows, failedCheckRow{Index: f.Index, Key: f.Key, Expected: stampOrNull(f.Expected), Actual: stampOrNull(f.Actual)})
		if i == 0 {
			text = "failed"
		}
		text += fmt.Sprintf("\ncheck %d %s: expected %s, actual %s", f.Index, codec.Format(f.Key), stampText(f.Expected), stampText(f.Actual))
	}
	app.Out.Result(failedJSON{OK: false, FailedChecks: rows}, text)
	return NotDone("")
}

// stampText shows a check's stamp in text output: "absent" for none.
func stampText(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// ParseAtomic reads an atomic document:
//
//	{"checks":[{"key","versionstamp"}],
//	 "mutations":[{"type":"set","key","value","expireIn"?},{"type":"delete","key"}]}
//
// A key is key text in a JSON string or a tagged JSON array; versionstamp
// must be given (null: the key must be absent); expireIn is milliseconds
// or a Go duration string. Unknown fields are refused and every error
// names the path of the problem. It never writes anything.
func ParseAtomic(raw []byte) ([]store.Check, []store.Mutation, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var doc json.RawMessage
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("input: %w", describeJSONError(err))
	}
	if off := dec.InputOffset(); len(bytes.Trim(raw[off:], " \t\r\n")) > 0 {
		return nil, nil, fmt.Errorf("input: unexpected text after the JSON document at byte %d", off)
	}
	root, err := decodeObject(doc, "", "checks", "mutations")
	if err != nil {
		return nil, nil, err
	}
	rawChecks, err := root.array("checks")
	if err != nil {
		return nil, nil, err
	}
	rawMuts, err := root.array("mutations")
	if err != nil {
		return nil, nil, err
	}
	checks := make([]store.Check, 0, len(rawChecks))
	for i, rc := range rawChecks {
		o, err := decodeObject(rc, fmt.Sprintf("checks[%d]", i), "key", "versionstamp")
		if err != nil {
			return nil, nil, err
		}
		var c store.Check
		if c.Key, err = o.key("key"); err != nil {
			return nil, nil, err
		}
		if c.Versionstamp, err = o.stamp("versionstamp"); err != nil {
			return nil, nil, err
		}
		checks = append(checks, c)
	}
	muts := make([]store.Mutation, 0, len(rawMuts))
	for i, rm := range rawMuts {
		m, err := parseMutation(rm, fmt.Sprintf("mutations[%d]", i))
		if err != nil {
			return nil, nil, err
		}
		muts = append(muts, m)
	}
	return checks, muts, nil
}

// parseMutation reads one set or delete.
func parseMutation(raw json.RawMessage, path string) (store.Mutation, error) {
	o, err := decodeObject(raw, path, "type", "key", "value", "expireIn")
	if err != nil {
		return store.Mutation{}, err
	}
	if !o.has("type") {
		return store.Mutation{}, fmt.Errorf("%s: missing (\"set\" or \"delete\")", o.field("type"))
	}
	typ, err := o.str("type")
	if err != nil {
		return store.Mutation{}, err
	}
	m := store.Mutation{Type: store.MutationType(typ)}
	if m.Key, err = o.key("key"); err != nil {
		return m, err
	}
	switch m.Type {
	case store.MutationSet:
		if m.Value, err = o.value("value"); err != nil {
			return m, err
		}
		if m.ExpireIn, err = o.duration("expireIn"); err != nil {
			return m, err
		}
	case store.MutationDelete:
		for _, f := range []string{"value", "expireIn"} {
			if o.has(f) {
				return m, fmt.Errorf("%s: a delete takes no %s", o.field(f), f)
			}
		}
	default:
		return m, fmt.Errorf("%s: want \"set\" or \"delete\", found %s", o.field("type"), shown(strconv.Quote(typ)))
	}
	return m, nil
}
