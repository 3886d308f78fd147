package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"kvdeck/internal/storeconfig"
	"kvdeck/store"
)

// StoresCmd manages the saved stores of the config file.
type StoresCmd struct {
	List     StoresListCmd     `cmd:"" default:"1" help:"List the saved stores (the default)."`
	Show     StoresShowCmd     `cmd:"" help:"Show one saved store: URL, group, read-only, where its token comes from (never the token)."`
	Add      StoresAddCmd      `cmd:"" help:"Save a store under a name (read-only unless --writable)."`
	Remove   StoresRemoveCmd   `cmd:"" help:"Remove a saved store from the config file."`
	Discover StoresDiscoverCmd `cmd:"" help:"List a platform's databases and save the chosen ones as stores (Turso)."`
}

// storeJSON is a saved store as list and show print it: never the token.
type storeJSON struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	Group     string `json:"group,omitempty"`
	ReadOnly  bool   `json:"readOnly"`
	Token     string `json:"token"`
	Default   bool   `json:"default,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Replica   string `json:"replica,omitempty"`
	Admin     string `json:"admin,omitempty"`
}

func storeRow(cfg *storeconfig.Config, s storeconfig.Store) storeJSON {
	return storeJSON{Name: s.Name, URL: s.URL, Group: s.Group, ReadOnly: s.IsReadOnly(), Token: s.TokenSource(), Default: cfg.Default == s.Name,
		Namespace: s.NamespaceName(), Replica: s.ReplicaURL, Admin: s.AdminURL}
}

// loadConfig reads the config file of the command's environment.
func loadConfig(app *App) (*storeconfig.Config, error) {
	path, err := storeconfig.Path(app.Env)
	if err != nil {
		return nil, err
	}
	cfg, err := storeconfig.Load(path)
	return app.withMint(cfg), err
}

// StoresListCmd lists the saved stores.
type StoresListCmd struct {
	Group string `name:"group" short:"g" placeholder:"GROUP" predictor:"group" help:"Only the stores of this group."`
}

// Run prints one line per store (name, group, mode, URL, token source).
func (c *StoresListCmd) Run(app *App) error {
	cfg, err := loadConfig(app)
	if err != nil {
		return err
	}
	var text strings.Builder
	tw := tabwriter.NewWriter(&text, 0, 0, 2, ' ', 0)
	n := 0
	for _, name := range cfg.Names() {
		s := cfg.Stores[name]
		if c.Group != "" && s.Group != c.Group {
			continue
		}
		n++
		r := storeRow(cfg, s)
		if app.Out.JSON() {
			app.Out.Object(r)
			continue
		}
		mark := ""
		if r.Default {
			mark = " (default)"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\ttoken: %s\n", r.Name, mark, orDash(r.Group), modeText(r.ReadOnly), r.URL, r.Token)
	}
	if app.Out.JSON() {
		return nil
	}
	if n == 0 {
		if c.Group != "" {
			app.Out.Textf("no saved store in group %s (%s)", c.Group, cfg.Path)
		} else {
			app.Out.Textf("no saved stores (%s); kvdeck stores add NAME URL saves one", cfg.Path)
		}
		return nil
	}
	_ = tw.Flush()
	app.Out.Textf("%s", strings.TrimSuffix(text.String(), "\n"))
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func modeText(readOnly bool) string {
	if readOnly {
		return "read-only"
	}
	return "writable"
}

// StoresShowCmd shows one saved store.
type StoresShowCmd struct {
	Name string `arg:"" predictor:"store" help:"The store's name."`
}

// Run prints the store's fields; a literal token in a file others can
// read is reported here too, so it is found before a command needs it.
func (c *StoresShowCmd) Run(app *App) error {
	cfg, err := loadConfig(app)
	if err != nil {
		return err
	}
	s, err := cfg.Get(c.Name)
	if err != nil {
		return err
	}
	r := storeRow(cfg, s)
	if app.Out.JSON() {
		app.Out.Object(r)
		return nil
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "name\t%s\nurl\t%s\ngroup\t%s\nmode\t%s (--write opens it to write)\ntoken\t%s\nconfig\t%s\n",
		r.Name, r.URL, orDash(r.Group), modeText(r.ReadOnly), r.Token, cfg.Path)
	tenancyLines(tw, s)
	if s.TokenSource() == "literal" && cfg.Mode&0o077 != 0 {
		fmt.Fprintf(tw, "warning\tthe token will be refused: %s is mode %04o (chmod 600 it)\n", filepath.Base(cfg.Path), cfg.Mode)
	}
	if r.Default {
		fmt.Fprintf(tw, "default\tyes: used when no --db, --store, KVDECK_DB or KVDECK_STORE is given\n")
	}
	_ = tw.Flush()
	app.Out.Textf("%s", strings.TrimSuffix(b.String(), "\n"))
	return nil
}

// StoresAddCmd saves a store.
type StoresAddCmd struct {
	Name         string `arg:"" help:"The store's name: letters, digits, - and _."`
	URL          string `arg:"" name:"url" help:"The database, as --db takes it (a relative file path is saved absolute)."`
	Group        string `name:"group" short:"g" placeholder:"GROUP" predictor:"group" help:"The store's group (an environment, a region, a tenant)."`
	Writable     bool   `name:"writable" help:"Open it to write by default (otherwise it opens read-only unless --write is given)."`
	TokenEnv     string `name:"token-env" placeholder:"VAR" xor:"token" help:"Read the token from this environment variable."`
	TokenCommand string `name:"token-command" placeholder:"SHELL" xor:"token" help:"Run this shell text and use its output as the token (a password manager)."`
	TokenFile    string `name:"token-file" placeholder:"PATH" xor:"token" help:"Read the token from this file (it must be 0600)."`
	TokenStdin   bool   `name:"token-stdin" xor:"token" help:"Read a token from stdin and save it literally in the config (written 0600)."`
	Replace      bool   `name:"replace" help:"Save over a store of the same name."`
	storeTenancy
}

// Run saves the store and says where.
func (c *StoresAddCmd) Run(app *App) error {
	cfg, err := loadConfig(app)
	if err != nil {
		return err
	}
	if err := storeconfig.CheckName(c.Name); err != nil {
		return err
	}
	url := c.URL
	t, err := store.ParseTarget(url)
	if err != nil {
		return err
	}
	if t.Transport == store.TransportFile && !filepath.IsAbs(t.Path) {
		abs, err := filepath.Abs(t.Path)
		if err != nil {
			return err
		}
		url = "file:" + abs
	}
	ro := !c.Writable
	s := storeconfig.Store{Name: c.Name, URL: url, Group: c.Group, ReadOnly: &ro,
		TokenEnv: c.TokenEnv, TokenCommand: c.TokenCommand, TokenFile: c.TokenFile}
	if err := c.storeTenancy.apply(&s); err != nil {
		return err
	}
	if c.TokenStdin {
		b, err := io.ReadAll(io.LimitReader(app.Stdin, 64<<10))
		if err != nil {
			return fmt.Errorf("--token-stdin: %w", err)
		}
		if s.Token = strings.TrimSpace(string(b)); s.Token == "" {
			return fmt.Errorf("--token-stdin: stdin held no token")
		}
	}
	if err := cfg.Add(s, c.Replace); err != nil {
		return err
	}
	if err := c.storeTenancy.create(app, s); err != nil {
		return fmt.Errorf("saved store %s in %s, but %w", s.Name, cfg.Path, err)
	}
	app.Out.Result(storeRow(cfg, s), fmt.Sprintf("saved store %s (%s, token: %s) in %s", s.Name, modeText(ro), s.TokenSource(), cfg.Path))
	return nil
}

// StoresRemoveCmd removes a saved store.
type StoresRemoveCmd struct {
	Name string `arg:"" predictor:"store" help:"The store's name."`
}

// Run removes the store from the file.
func (c *StoresRemoveCmd) Run(app *App) error {
	cfg, err := loadConfig(app)
	if err != nil {
		return err
	}
	if err := cfg.Remove(c.Name); err != nil {
		return err
	}
	app.Out.Result(map[string]string{"removed": c.Name}, fmt.Sprintf("removed store %s from %s", c.Name, cfg.Path))
	return nil
}
