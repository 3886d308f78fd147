// Package storeconfig reads and writes kvdeck's saved stores: the file
// $XDG_CONFIG_HOME/kvdeck/config.toml (else ~/.config/kvdeck/config.toml,
// on every OS), which names stores by URL, says how to get each one's
// auth token, whether it opens read-only, and its group.
//
//	default = "dev"              # the store used when nothing else names one
//
//	[stores.dev]
//	url = "http://127.0.0.1:8080"
//	token_env = "DEV_TOKEN"      # or token_command = "pass show kv/dev",
//	read_only = false            #    token_file = "~/.kv-token", token = "..."
//	group = "dev"
//	litestream_replica = "file:///backups/dev.db"  # its past, for --at
//	namespace = "tenant-a"       # an sqld namespace (tenants.go: also
//	admin_url = "http://127.0.0.1:9090"  # replica_url, the Turso fields)
//
// A literal token (token, or the file token_file names) is used only when
// its file is readable by its owner alone (0600 or stricter); otherwise
// it is refused with the reason. The file is written 0600 in a 0700
// directory, atomically (a temporary file renamed over it), by editing
// its text: comments and the other stores stay as they were.
package storeconfig

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Errors the package returns, wrapped with details.
var (
	// ErrUnknownStore: no saved store has that name (the message lists
	// the names that exist).
	ErrUnknownStore = errors.New("unknown store")
	// ErrConfig: the config file is not valid (bad TOML, an unknown key,
	// a store without a URL, two token sources for one store).
	ErrConfig = errors.New("bad config")
	// ErrToken: the store's token could not be had (a literal token in a
	// file others can read, a failing command, an unset variable).
	ErrToken = errors.New("no token")
	// ErrNoHome: neither XDG_CONFIG_HOME nor HOME is set, so there is no
	// config file.
	ErrNoHome = errors.New("no config directory: neither XDG_CONFIG_HOME nor HOME is set")
)

// Store is one saved store.
type Store struct {
	// Name is the store's name (its table's key; not a field in the file).
	Name string `toml:"-"`
	// URL is what --db would be given.
	URL string `toml:"url"`
	// TokenEnv names an environment variable holding the token.
	TokenEnv string `toml:"token_env,omitempty"`
	// TokenCommand is shell text whose standard output is the token (a
	// password manager: "pass show kv/prod", "op read op://vault/kv/token").
	TokenCommand string `toml:"token_command,omitempty"`
	// TokenFile is a file holding the token; it must be 0600.
	TokenFile string `toml:"token_file,omitempty"`
	// Token is the token itself; config.toml must then be 0600.
	Token string `toml:"token,omitempty"`
	// ReadOnly: the store opens read-only unless --write is given. Absent
	// from the file means read-only: a saved store writes only when it was
	// saved writable.
	ReadOnly *bool `toml:"read_only,omitempty"`
	// Group gathers stores (an environment, a region, a tenant).
	Group string `toml:"group,omitempty"`
	// LitestreamReplica is the store's Litestream replica, a URL
	// (file:///backups/prod.db, s3://bucket/prod) or a path: where --at,
	// diff NAME@TIME and history read the store's past
	// (internal/history).
	LitestreamReplica string `toml:"litestream_replica,omitempty"`
	// The Turso database behind the store, for --at through a branch
	// made from a timestamp: its organisation and name, the variable
	// that holds a Platform API token, and the API's address (default
	// https://api.turso.tech). All or none of the first three.
	TursoOrg         string `toml:"turso_org,omitempty"`
	TursoDatabase    string `toml:"turso_database,omitempty"`
	TursoAPITokenEnv string `toml:"turso_api_token_env,omitempty"`
	TursoAPI         string `toml:"turso_api,omitempty"`
	// The tenancy of the store (tenants.go): its sqld namespace, a read
	// replica, the sqld admin API its namespace's figures come from (and
	// the variable holding that API's key), the Platform API token's
	// command (instead of turso_api_token_env), and the Turso group whose
	// tokens are minted for the store when it has no token of its own.
	Namespace            string `toml:"namespace,omitempty"`
	ReplicaURL           string `toml:"replica_url,omitempty"`
	AdminURL             string `toml:"admin_url,omitempty"`
	AdminKeyEnv          string `toml:"admin_key_env,omitempty"`
	TursoAPITokenCommand string `toml:"turso_api_token_command,omitempty"`
	TursoGroup           string `toml:"turso_group,omitempty"`
}

// IsReadOnly reports whether the store opens read-only by default.
func (s Store) IsReadOnly() bool { return s.ReadOnly == nil || *s.ReadOnly }

// TokenSource says in words where the token comes from, never the token:
// "env DEV_TOKEN", "command", "file PATH", "literal", or "none".
func (s Store) TokenSource() string {
	switch {
	case s.TokenEnv != "":
		return "env " + s.TokenEnv
	case s.TokenCommand != "":
		return "command"
	case s.TokenFile != "":
		return "file " + s.TokenFile
	case s.Token != "":
		return "literal"
	case s.Minted():
		return "minted (Turso group " + s.TursoGroup + ")"
	}
	return "none"
}

// Config is the parsed config file.
type Config struct {
	// Path is the file's path.
	Path string
	// Mode is the file's permission bits; 0 when it does not exist.
	Mode fs.FileMode
	// Default names the store used when no flag or variable names one.
	Default string
	// Stores are the saved stores by name.
	Stores map[string]Store
	// Mint gets the token of a store whose token is minted (Store.Minted):
	// a Turso group token, read-only unless write. The CLI sets it (and
	// keeps what it minted for the session); nil refuses such a store.
	Mint func(ctx context.Context, s Store, write bool) (string, error)

	raw []byte // the file's text, edited by Add and Remove
}

// file is the document's shape.
type file struct {
	Default string           `toml:"default"`
	Stores  map[string]Store `toml:"stores"`
}

// Path is the config file's path in env: $XDG_CONFIG_HOME/kvdeck/config.toml,
// else $HOME/.config/kvdeck/config.toml (macOS and Windows included, where
// the user's other command-line tools keep theirs).
func Path(env map[string]string) (string, error) {
	if d := env["XDG_CONFIG_HOME"]; d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "kvdeck", "config.toml"), nil
	}
	home := env["HOME"]
	if home == "" {
		home = env["USERPROFILE"]
	}
	if home == "" {
		return "", ErrNoHome
	}
	return filepath.Join(home, ".config", "kvdeck", "config.toml"), nil
}

// Load reads the config at path; a missing file is an empty config.
func Load(path string) (*Config, error) {
	c := &Config{Path: path, Stores: map[string]Store{}}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c.Mode, c.raw = info.Mode().Perm(), raw
	f, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Default, c.Stores = f.Default, f.Stores
	for name, s := range c.Stores {
		s.Name = name
		c.Stores[name] = s
	}
	return c, nil
}

// parse decodes and checks a document.
func parse(raw []byte) (file, error) {
	var f file
	md, err := toml.Decode(string(raw), &f)
	if err != nil {
		return f, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return f, fmt.Errorf("%w: unknown key %s (known: default, and per store url, token_env, token_command, token_file, token, read_only, group, litestream_replica, turso_org, turso_database, turso_api_token_env, turso_api_token_command, turso_api, turso_group, namespace, replica_url, admin_url, admin_key_env)", ErrConfig, strings.Join(keys, ", "))
	}
	if f.Stores == nil {
		f.Stores = map[string]Store{}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Stores)) {
		if err := check(name, f.Stores[name]); err != nil {
			return f, err
		}
	}
	if f.Default != "" {
		if _, ok := f.Stores[f.Default]; !ok {
			return f, fmt.Errorf("%w: default = %q names no saved store (saved: %s)", ErrConfig, f.Default, namesText(f.Stores))
		}
	}
	return f, nil
}

// check validates one store.
func check(name string, s Store) error {
	if s.URL == "" {
		return fmt.Errorf("%w: store %q has no url", ErrConfig, name)
	}
	n := 0
	for _, v := range []string{s.TokenEnv, s.TokenCommand, s.TokenFile, s.Token} {
		if v != "" {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("%w: store %q gives more than one of token_env, token_command, token_file and token; keep one", ErrConfig, name)
	}
	return checkTenancy(name, s)
}

// nameRE is what Add accepts as a store name: a bare TOML key.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckName refuses a name Add cannot write as a bare TOML key.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("store name %q: use letters, digits, - and _ (at most 64)", name)
	}
	return nil
}

// Names are the saved stores' names, sorted.
func (c *Config) Names() []string { return slices.Sorted(maps.Keys(c.Stores)) }

// Get is the store called name; ErrUnknownStore names the ones that exist.
func (c *Config) Get(name string) (Store, error) {
	s, ok := c.Stores[name]
	if !ok {
		if len(c.Stores) == 0 {
			return Store{}, fmt.Errorf("%w %q: no store is saved in %s (kvdeck stores add NAME URL)", ErrUnknownStore, name, c.Path)
		}
		return Store{}, fmt.Errorf("%w %q: saved stores are %s", ErrUnknownStore, name, namesText(c.Stores))
	}
	return s, nil
}

func namesText(m map[string]Store) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}
