package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// VersionCmd prints build information.
type VersionCmd struct{}

// versionJSON is the result line of version.
type versionJSON struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
}

// Run prints the module version, the VCS revision when the binary was built
// with it, and the Go version.
func (c *VersionCmd) Run(app *App) error {
	v := versionJSON{Version: "(unknown)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Version, v.GoVersion = bi.Main.Version, bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	lines := []string{"kvdeck " + v.Version, "go " + v.GoVersion}
	if v.Revision != "" {
		rev := "commit " + v.Revision
		if v.Time != "" {
			rev += " " + v.Time
		}
		if v.Modified {
			rev += " (modified)"
		}
		lines = append(lines, rev)
	}
	app.Out.Result(v, strings.Join(lines, "\n"))
	return nil
}

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

// Run creates the store, or confirms that there is one already.
func (c *InitCmd) Run(app *App) error {
	if err := app.Writable("init"); err != nil {
		return err
	}
	url, _ := app.Globals.ResolveDB(app.Env)
	opts := app.StoreOptions()
	opts.Create, opts.Force = true, c.Force
	s, err := app.open(app.Context(), url, opts)
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
