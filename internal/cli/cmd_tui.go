package cli

import (
	"fmt"
	"time"
)

// TUICmd opens the terminal explorer.
type TUICmd struct {
	Refresh time.Duration `name:"refresh" placeholder:"DURATION" default:"1s" help:"Live refresh interval."`
}

// Run opens the store and hands it to the TUI.
func (c *TUICmd) Run(app *App) error {
	if c.Refresh <= 0 {
		return fmt.Errorf("--refresh %s: must be positive", c.Refresh)
	}
	s, err := app.Open()
	if err != nil {
		return err
	}
	return app.RunTUI(s, c.Refresh)
}
