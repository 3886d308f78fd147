package storeconfig

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// A saved store's tenancy: where on a shared platform its database is.
//
//	[stores.tenant-a]
//	url = "http://10.0.0.5:8080"
//	namespace = "tenant-a"                # an sqld namespace
//	admin_url = "http://10.0.0.5:9090"    # sqld's admin API: the Fleet's figures
//	admin_key_env = "SQLD_ADMIN_KEY"      # its --admin-auth-key, if it has one
//	replica_url = "http://10.0.0.6:8080"  # reads go there (sqld --primary-grpc-url)
//
//	[stores.tenant-b]                     # found by kvdeck stores discover turso
//	url = "libsql://tenant-b-acme.turso.io"
//	turso_org = "acme"
//	turso_database = "tenant-b"
//	turso_group = "eu"                    # no token: a group token is minted
//	turso_api_token_command = "pass show turso/api"
//
// The store's token goes to its url and its replica_url, both named in
// its entry, and nowhere else; the admin API gets admin_key_env's key
// only, the Platform API its own token only. The CLI opens a saved
// store with these (internal/cli/tenants.go).

// checkTenancy checks how a store's tenancy fields go together (their
// values are checked where they are used: a namespace or URL kvdeck
// cannot use is refused by the open, naming the store).
func checkTenancy(name string, s Store) error {
	bad := func(what string) error {
		return fmt.Errorf("%w: store %q: %s", ErrConfig, name, what)
	}
	if (s.Namespace != "" || s.ReplicaURL != "" || s.AdminURL != "") && !remote(s.URL) {
		return bad("a database file has no namespace, replica_url or admin_url")
	}
	if s.ReplicaURL != "" && !remote(s.ReplicaURL) {
		return bad("replica_url is a server's URL (http(s)://, ws(s)://, libsql://)")
	}
	if s.AdminURL != "" && s.NamespaceName() == "" {
		return bad("admin_url gives a namespace's figures: it needs namespace (or the url's ?namespace=)")
	}
	if s.AdminKeyEnv != "" && s.AdminURL == "" {
		return bad("admin_key_env without admin_url")
	}
	if s.TursoAPITokenEnv != "" && s.TursoAPITokenCommand != "" {
		return bad("gives both turso_api_token_env and turso_api_token_command; keep one")
	}
	apiToken := s.TursoAPITokenEnv != "" || s.TursoAPITokenCommand != ""
	turso := s.TursoOrg != "" || s.TursoDatabase != "" || apiToken || s.TursoAPI != "" || s.TursoGroup != ""
	if turso && (s.TursoOrg == "" || s.TursoDatabase == "" || !apiToken) {
		return bad("gives some of turso_org, turso_database and turso_api_token_env (or turso_api_token_command); a Turso database needs all three")
	}
	return nil
}

// remote reports whether raw is a server's URL (by its scheme).
func remote(raw string) bool {
	scheme, _, ok := strings.Cut(raw, "://")
	switch strings.ToLower(scheme) {
	case "http", "https", "ws", "wss", "libsql":
		return ok
	}
	return false
}

// NamespaceName is the store's sqld namespace: namespace, else the
// url's ?namespace= ("" when it has none).
func (s Store) NamespaceName() string {
	if s.Namespace != "" {
		return s.Namespace
	}
	_, query, _ := strings.Cut(s.URL, "?")
	if q, err := url.ParseQuery(query); err == nil {
		return q.Get("namespace")
	}
	return ""
}

// Minted reports whether the store's token is minted from the Platform
// API (a Turso group token): it has a Turso group and no token source
// of its own.
func (s Store) Minted() bool {
	return s.TursoGroup != "" && s.TokenEnv == "" && s.TokenCommand == "" && s.TokenFile == "" && s.Token == ""
}

// TursoAPIToken is the Platform API token of the store's Turso
// organization, from turso_api_token_env or turso_api_token_command (run
// in env); "" when the store names no Turso database. It is never
// written anywhere, and an error never holds it.
func (s Store) TursoAPIToken(ctx context.Context, env map[string]string) (string, error) {
	switch {
	case s.TursoAPITokenEnv != "":
		if v := env[s.TursoAPITokenEnv]; v != "" {
			return v, nil
		}
		return "", fmt.Errorf("%w for store %q: the Platform API token's $%s (turso_api_token_env) is not set", ErrToken, s.Name, s.TursoAPITokenEnv)
	case s.TursoAPITokenCommand != "":
		return runTokenCommand(ctx, Store{Name: s.Name, TokenCommand: s.TursoAPITokenCommand}, env)
	}
	return "", nil
}

// AdminKey is the sqld admin API's key from admin_key_env ("" when the
// store gives none).
func (s Store) AdminKey(env map[string]string) (string, error) {
	if s.AdminKeyEnv == "" {
		return "", nil
	}
	if v := env[s.AdminKeyEnv]; v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%w for store %q: the admin API's key $%s (admin_key_env) is not set", ErrToken, s.Name, s.AdminKeyEnv)
}

// TokenFor is Token for a store opened to write (write) or only to
// read: a minted token (Minted) is read-only unless write; any other
// source gives the same token either way.
func (c *Config) TokenFor(ctx context.Context, s Store, env map[string]string, write bool) (string, error) {
	if !s.Minted() {
		return c.Token(ctx, s, env)
	}
	if c.Mint == nil {
		return "", fmt.Errorf("%w for store %q: its token is minted from Turso's Platform API (turso_group), which this command does not do; give it token_env or token_command", ErrToken, s.Name)
	}
	return c.Mint(ctx, s, write)
}
