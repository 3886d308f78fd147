package cli

// InitCmd creates a store: the only command that adds kvdeck's tables to a
// database that has other tables (with --force).
type InitCmd struct {
	Force bool `name:"force" help:"Add the store's tables even when the database has other tables."`
}

// initJSON is the result line of init.
type initJSON struct {
	DB      string `json:"db"`
	Created bool   `json:"created"`
}

// Writes names the write for the read-only refusal (writer).
func (c *InitCmd) Writes() string { return "init" }

// Run creates the store, or confirms that there is one already.
func (c *InitCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate, Force: c.Force})
	if err != nil {
		return err
	}
	r := initJSON{DB: s.Info().Display, Created: s.Created()}
	text := r.DB + " is already a kvdeck store"
	if r.Created {
		text = "initialised a kvdeck store at " + r.DB
	}
	app.Out.Result(r, text)
	return nil
}
