package cli

import (
	"kvdeck/codec"
)

// DeleteCmd deletes a key.
type DeleteCmd struct {
	Key string `arg:"" name:"key" help:"Key text or tagged JSON."`
}

// deleteJSON is the result line of delete.
type deleteJSON struct {
	OK  bool      `json:"ok"`
	Key codec.Key `json:"key"`
}

// Writes names the write for the read-only refusal (writer).
func (c *DeleteCmd) Writes() string { return "delete" }

// Run deletes the row (a plain DELETE, like the reference: no stamp, and
// deleting an absent key succeeds).
func (c *DeleteCmd) Run(app *App) error {
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate, OneCall: true})
	if err != nil {
		return err
	}
	if err := s.Delete(app.Context(), key); err != nil {
		return err
	}
	app.Out.Result(deleteJSON{OK: true, Key: key}, "deleted "+codec.Format(key))
	return nil
}
