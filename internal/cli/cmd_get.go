package cli

// GetCmd prints the live entry at a key.
type GetCmd struct {
	Key string `arg:"" name:"key" help:"Key text (e.g. '[\"users\", \"alice\"]') or tagged JSON."`
}

// Run prints the entry, or the null entry and exit 1 when the key is
// absent or expired.
func (c *GetCmd) Run(app *App) error {
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{OneCall: true})
	if err != nil {
		return err
	}
	e, found, err := s.Get(app.Context(), key)
	if err != nil {
		return err
	}
	if !found {
		app.Out.Absent(key)
		return NotDone("")
	}
	app.Out.Entry(e, app.Now(), false)
	return nil
}
