package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"kvdeck/internal/storeconfig"
	"kvdeck/internal/usertext"
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
	fmt.Fprintln(tw, "NAME\tGROUP\tMODE\tURL\tTOKEN")
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
		fmt.Fprintf(tw, "%s\n", sanitizeCells([]string{r.Name + mark, orDash(r.Group), modeText(r.ReadOnly), r.URL, r.Token}))
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
	mode := "writable (--read-only opens it read-only)"
	if r.ReadOnly {
		mode = "read-only (--write opens it to write)"
	}
	fmt.Fprintf(tw, "name\t%s\nurl\t%s\ngroup\t%s\nmode\t%s\ntoken\t%s\nconfig\t%s\n",
		r.Name, r.URL, orDash(r.Group), mode, r.Token, cfg.Path)
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
	Force        bool   `name:"force" help:"Save a database file that is missing or is not a kvdeck store without asking (a server is not asked)."`
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
	if _, saved := cfg.Stores[s.Name]; !saved || c.Replace { // else Add says --replace
		if err := c.checkFile(app, s); err != nil {
			return err
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

// checkFile looks at the database file of s before it is saved (a server
// is not asked: it may need a token, and it may be down for now): a file
// that is missing or is not a kvdeck store is said, and saved only when
// asked, by --force or a yes on the terminal. Its schema is read
// read-only, once.
func (c *StoresAddCmd) checkFile(app *App, s storeconfig.Store) error {
	t, err := store.ParseTarget(s.URL)
	if err != nil || t.Transport != store.TransportFile {
		return nil
	}
	problem := ""
	if _, err := os.Stat(t.Path); errors.Is(err, fs.ErrNotExist) {
		write := ""
		if s.IsReadOnly() {
			write = " --write"
		}
		problem = fmt.Sprintf("no database at %s yet (`kvdeck --store %s%s init` creates one)", t.Path, shellQuote(s.Name), write)
	} else {
		st, err := app.Open(app.Context(), Opening{URL: s.URL, Access: ReadOnly, Own: true})
		switch {
		case err == nil:
			return st.Close()
		case !errors.Is(err, store.ErrNotStore):
			app.Warnf("saving %s unchecked: %v", s.Name, err) // locked, unreadable: it may be a store
			return nil
		}
		problem = err.Error()
	}
	switch {
	case c.Force:
		app.Warnf("%s; saved all the same (--force)", problem)
		return nil
	case c.TokenStdin || !app.terminal(app.Stdin): // stdin held the token
		return fmt.Errorf("%s; saved nothing: --force saves store %s all the same", problem, s.Name)
	}
	fmt.Fprintf(app.Stderr, "kvdeck: %s\n", usertext.Sanitize(problem))
	return askYes(app, "Save store "+s.Name+" all the same?", "saved nothing")
}
