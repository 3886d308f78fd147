package cli

import (
	"context"
	"fmt"

	"github.com/alecthomas/kong"

	"kvdeck/internal/storeconfig"
)

// StoreEnv is the environment variable that names a saved store when
// --store is not given.
const StoreEnv = "KVDECK_STORE"

// savedStore is the saved store the global flags, the environment or the
// config's default selected, resolved once per command (its token
// command runs once).
type savedStore struct {
	name, group, url string
	from             string // "--store", "KVDECK_STORE" or "config default"
	token            string
	readOnly         bool              // opened read-only because it was saved so (no --write)
	conf             storeconfig.Store // as saved (its history sources: timemachine.go)
}

// noStoreCommands are the commands that open no store of the global
// flags: a saved store is not resolved for them (its token command does
// not run, an unknown KVDECK_STORE does not stop them).
var noStoreCommands = map[string]bool{"stores": true, "completion": true, "key": true, "version": true, "fleet": true, "copy": true, "exporter": true}

// resolveSaved selects the store: --db or --store (both: refused), else
// KVDECK_DB or KVDECK_STORE (both: refused), else the generic URL
// variables (LIBSQL_URL, TURSO_DATABASE_URL), else the config's default
// store, else DefaultDB. A saved store gives the URL, its own token (the
// token variables of TokenEnv are for --db and are not sent to it; only
// --auth-token overrides it) and read-only unless --write. It returns the
// token, so Main can redact it.
func resolveSaved(ctx context.Context, kctx *kong.Context, g *Globals, env map[string]string) (token string, err error) {
	name, from, lookDefault, err := savedName(kctx, g, env)
	if err != nil || (name == "" && !lookDefault) {
		return "", err
	}
	path, err := storeconfig.Path(env)
	if err != nil {
		if name == "" {
			return "", nil
		}
		return "", fmt.Errorf("%s %s: %w", from, name, err)
	}
	cfg, err := storeconfig.Load(path)
	if err != nil {
		return "", err
	}
	if name == "" {
		if cfg.Default == "" {
			return "", nil
		}
		name, from = cfg.Default, "config default"
	}
	st, err := cfg.Get(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", from, err)
	}
	ss := &savedStore{name: st.Name, group: st.Group, url: savedURL(st), from: from, conf: st}
	if g.AuthToken == "" && !st.Minted() {
		// A minted token is had when the store is opened, read-only or
		// to write as it is opened (App.tenancy).
		if ss.token, err = cfg.Token(ctx, st, env); err != nil {
			return "", err
		}
	}
	if st.IsReadOnly() && !g.Write && !g.ReadOnly {
		g.ReadOnly, ss.readOnly = true, true
	}
	g.saved = ss
	return ss.token, nil
}

// initCommand is the command that creates a store at url, the database
// g selects: init, which writes, so without the --read-only given and
// with --write for a store saved read-only (a command that only reads
// creates nothing, whatever its flags).
func (g Globals) initCommand(url string) string {
	if g.saved != nil {
		write := ""
		if g.saved.readOnly {
			write = " --write"
		}
		return "`kvdeck --store " + shellQuote(g.saved.name) + write + " init`"
	}
	return "`kvdeck init --db " + shellQuote(url) + "`"
}

// savedName is the saved store the flags or the environment name (from
// says which), or none with lookDefault when the config's default store
// decides; neither when the command resolves no saved store (--db, a URL
// variable, a command that opens no store of the global flags).
func savedName(kctx *kong.Context, g *Globals, env map[string]string) (name, from string, lookDefault bool, err error) {
	top := ""
	if node := kctx.Selected(); node != nil {
		for node.Parent != nil && node.Parent.Parent != nil {
			node = node.Parent
		}
		top = node.Name
	}
	if noStoreCommands[top] && (g.At != "" || g.Replica != "") {
		return "", "", false, fmt.Errorf("--at and --replica read the past of the store a command opens; %s opens none", top)
	}
	if noStoreCommands[top] || (top == "demo" && g.Store == "") {
		// The demo seeds fake state: it takes a database only from a
		// flag (DemoDB), never from the environment or the default.
		return "", "", false, nil
	}
	switch {
	case g.DB != "" && g.Store != "":
		return "", "", false, fmt.Errorf("give --db or --store, not both")
	case g.DB != "":
		return "", "", false, nil
	case g.Store != "":
		return g.Store, "--store", false, nil
	case env["KVDECK_DB"] != "" && env[StoreEnv] != "":
		return "", "", false, fmt.Errorf("both KVDECK_DB and %s are set; unset one (or give --db or --store)", StoreEnv)
	case env[StoreEnv] != "":
		return env[StoreEnv], StoreEnv, false, nil
	}
	_, src := g.ResolveDB(env)
	return "", "", src == "default", nil // else a URL variable
}

// readOnlyReason says why writes are refused: the --read-only flag, or
// the saved store's setting (and how to write anyway).
func (g Globals) readOnlyReason() string {
	if g.saved != nil && g.saved.readOnly {
		return fmt.Sprintf("store %s is saved read-only; give --write to write to it", g.saved.name)
	}
	return "the store was opened with --read-only"
}
