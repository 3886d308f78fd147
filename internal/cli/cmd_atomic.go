package cli

import (
	"fmt"
	"io"

	"kvdeck/codec"
	"kvdeck/internal/atomicjson"
	"kvdeck/internal/usertext"
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

// Writes names the write for the read-only refusal (writer).
func (c *AtomicCmd) Writes() string { return "atomic commit" }

// Run parses the whole document first (nothing is written when any part
// of it is malformed), commits it, and prints {"ok":true,"versionstamp"}
// or {"ok":false,"failedChecks"} with exit 1.
func (c *AtomicCmd) Run(app *App) error {
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
	checks, muts, err := atomicjson.Parse(raw)
	if err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate, OneCall: true})
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
		text += fmt.Sprintf("\ncheck %d %s: expected %s, actual %s", f.Index, codec.Format(f.Key), usertext.StampText(f.Expected), usertext.StampText(f.Actual))
	}
	app.Out.Result(failedJSON{OK: false, FailedChecks: rows}, text)
	return NotDone("")
}
