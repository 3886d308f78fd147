package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"kvdeck/internal/platform"
	"kvdeck/internal/storeconfig"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// storeTenancy are the flags of kvdeck stores add that say where on a
// shared server the store is (storeconfig/tenants.go).
type storeTenancy struct {
	Namespace       string `name:"namespace" placeholder:"NAME" help:"The store's sqld namespace (sent in the x-namespace-bin header, so an IP address reaches it; the URL's ?namespace=NAME does the same)."`
	Admin           string `name:"admin" placeholder:"URL" help:"The sqld admin API (sqld --admin-listen-addr): the Fleet shows the namespace's storage, rows read and written and blocked flags from it."`
	AdminKeyEnv     string `name:"admin-key-env" placeholder:"VAR" help:"The variable holding the admin API's key (sqld --admin-auth-key)."`
	CreateNamespace bool   `name:"create-namespace" help:"Create the namespace on the admin API when it does not exist yet."`
	Replica         string `name:"read-replica" placeholder:"URL" help:"A read replica (sqld --primary-grpc-url): reads go there, carrying the highest replication index kvdeck has seen, writes to URL."`
}

// apply checks the flags and sets them on s (nothing is sent).
func (t storeTenancy) apply(s *storeconfig.Store) error {
	target, err := store.ParseTarget(s.URL)
	if err != nil {
		return err
	}
	if t.Namespace != "" || t.Admin != "" || t.Replica != "" {
		if !target.Transport.Remote() {
			return fmt.Errorf("%w: %s is a database file: --namespace, --admin and --read-replica are for a server", store.ErrBadURL, target.Display)
		}
	}
	if t.Namespace != "" {
		if err := store.CheckNamespace(t.Namespace); err != nil {
			return fmt.Errorf("--namespace: %w", err)
		}
		if target.Namespace != "" && target.Namespace != t.Namespace {
			return fmt.Errorf("--namespace %s: the URL names namespace %s; give one", t.Namespace, target.Namespace)
		}
		if target.Namespace == "" {
			s.Namespace = t.Namespace
		}
	}
	if t.Replica != "" {
		rt, err := store.ParseTarget(t.Replica)
		if err != nil {
			return fmt.Errorf("--read-replica: %w", err)
		}
		if !rt.Transport.Remote() {
			return fmt.Errorf("--read-replica: %w: a replica is a server's URL", store.ErrBadURL)
		}
		s.ReplicaURL = t.Replica
	}
	if t.Admin != "" {
		if err := platform.CheckAdminURL(t.Admin); err != nil {
			return fmt.Errorf("--admin: %w", err)
		}
		if s.NamespaceName() == "" {
			return fmt.Errorf("--admin gives a namespace's figures: give --namespace (or ?namespace= in the URL)")
		}
		s.AdminURL, s.AdminKeyEnv = t.Admin, t.AdminKeyEnv
	} else if t.AdminKeyEnv != "" || t.CreateNamespace {
		return fmt.Errorf("--admin-key-env and --create-namespace need --admin")
	}
	return nil
}

// create makes the store's namespace on its admin API when asked and
// it does not exist yet (one request to ask, one to make it).
func (t storeTenancy) create(app *App, s storeconfig.Store) error {
	if !t.CreateNamespace {
		return nil
	}
	key, err := s.AdminKey(app.Env)
	if err != nil {
		return err
	}
	a, ns := platform.Sqld{Admin: s.AdminURL, Key: key}, s.NamespaceName()
	_, err = a.Config(app.Context(), ns)
	switch {
	case err == nil:
		app.Out.Textf("namespace %s exists already on %s", ns, s.AdminURL)
		return nil
	case !errors.Is(err, platform.ErrNotFound):
		return err
	}
	if err := a.CreateNamespace(app.Context(), ns); err != nil {
		return err
	}
	app.Out.Textf("created namespace %s on %s", ns, s.AdminURL)
	return nil
}

// tenancyLines adds a saved store's tenancy to kvdeck stores show.
func tenancyLines(w io.Writer, s storeconfig.Store) {
	if ns := s.NamespaceName(); ns != "" {
		fmt.Fprintf(w, "namespace\t%s (x-namespace-bin on every request)\n", ns)
	}
	if s.ReplicaURL != "" {
		fmt.Fprintf(w, "replica\t%s (reads, at the replication index seen)\n", store.RedactURL(s.ReplicaURL))
	}
	if s.AdminURL != "" {
		fmt.Fprintf(w, "admin\t%s\n", store.RedactURL(s.AdminURL))
	}
	if s.TursoOrg != "" {
		fmt.Fprintf(w, "turso\torganization %s, database %s, group %s\n", s.TursoOrg, s.TursoDatabase, orDash(s.TursoGroup))
	}
}

// StoresDiscoverCmd finds a platform's databases.
type StoresDiscoverCmd struct {
	Turso StoresDiscoverTursoCmd `cmd:"" help:"List a Turso organization's databases (GET /v1/organizations/ORG/databases) and save the chosen ones; their tokens are minted per session."`
}

// StoresDiscoverTursoCmd lists an organization's databases and saves the
// chosen ones as stores.
type StoresDiscoverTursoCmd struct {
	Org          string   `name:"org" required:"" placeholder:"ORG" help:"The organization's slug."`
	Group        string   `name:"group" short:"g" placeholder:"GROUP" help:"Only the databases of this Turso group."`
	TokenEnv     string   `name:"token-env" placeholder:"VAR" xor:"api" help:"The variable holding a Platform API token (organization- or group-scoped); saved by name, never the token."`
	TokenCommand string   `name:"token-command" placeholder:"SHELL" xor:"api" help:"Shell text that prints a Platform API token (a password manager); saved as text, never the token."`
	Save         []string `name:"save" placeholder:"DB,..." help:"Save these databases as stores."`
	All          bool     `name:"all" help:"Save every database listed."`
	Prefix       string   `name:"prefix" placeholder:"TEXT" help:"Put TEXT before each saved store's name (a store is named for its database)."`
	StoreGroup   string   `name:"store-group" placeholder:"GROUP" help:"The saved stores' kvdeck group (default: each database's Turso group)."`
	Writable     bool     `name:"writable" help:"Save them writable (opened to write by default; a write token is minted only then)."`
	Replace      bool     `name:"replace" help:"Save over stores of the same names."`
	API          string   `name:"api" placeholder:"URL" help:"The Platform API's address (default https://api.turso.tech)."`
}

// discoveredRow is one database as the command prints it.
type discoveredRow struct {
	Database string `json:"database"`
	Group    string `json:"group"`
	Region   string `json:"region,omitempty"`
	Hostname string `json:"hostname"`
	Blocked  string `json:"blocked,omitempty"` // "reads", "writes", "reads, writes"
	Store    string `json:"store,omitempty"`   // the name it was saved under
	Error    string `json:"error,omitempty"`
}

// Run lists the databases and saves those --save or --all chose. The
// Platform API token is had from --token-env or --token-command, sent to
// the API only, and never written: each saved store keeps where it comes
// from (turso_api_token_env or turso_api_token_command) and mints a group
// token (read-only, for the session) when it is opened.
func (c *StoresDiscoverTursoCmd) Run(app *App) error {
	if c.TokenEnv == "" && c.TokenCommand == "" {
		return fmt.Errorf("give --token-env VAR or --token-command SHELL: where the Platform API token comes from")
	}
	if c.All && len(c.Save) > 0 {
		return fmt.Errorf("give --save DB,... or --all, not both")
	}
	if c.API != "" {
		if err := platform.CheckAdminURL(c.API); err != nil {
			return fmt.Errorf("--api: the Platform API's address is an http(s):// URL")
		}
	}
	src := storeconfig.Store{Name: "discover", TursoAPITokenEnv: c.TokenEnv, TursoAPITokenCommand: c.TokenCommand}
	token, err := src.TursoAPIToken(app.Context(), app.Env)
	if err != nil {
		return err
	}
	app.redactToo(token)
	api := platform.Turso{API: c.API, Org: c.Org, Token: token}
	dbs, err := api.Databases(app.Context(), c.Group)
	if err != nil {
		return err
	}
	save, err := c.chosen(dbs)
	if err != nil {
		return err
	}
	var cfg *storeconfig.Config
	if c.All || len(save) > 0 {
		if cfg, err = loadConfig(app); err != nil {
			return err
		}
	}
	return c.list(app, cfg, api, dbs, save)
}

// chosen are the databases --save names, each of them listed in dbs.
func (c *StoresDiscoverTursoCmd) chosen(dbs []platform.Database) (map[string]bool, error) {
	save := map[string]bool{}
	for _, name := range c.Save {
		for _, n := range strings.Split(name, ",") {
			if n = strings.TrimSpace(n); n != "" {
				save[n] = true
			}
		}
	}
	for name := range save {
		if !slices.ContainsFunc(dbs, func(d platform.Database) bool { return d.Name == name }) {
			return nil, fmt.Errorf("--save %s: no such database in %s (listed: %s)", shown(name), c.where(), dbNames(dbs))
		}
	}
	return save, nil
}

// list saves the databases chosen (--all, or save) into cfg and prints a
// row each: a table, or a JSON line.
func (c *StoresDiscoverTursoCmd) list(app *App, cfg *storeconfig.Config, api platform.Turso, dbs []platform.Database, save map[string]bool) error {
	var text strings.Builder
	tw := tabwriter.NewWriter(&text, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DATABASE\tGROUP\tREGION\tHOSTNAME\tBLOCKED\tSAVED AS")
	failed := 0
	for _, d := range dbs {
		r := discoveredRow{Database: d.Name, Group: d.Group, Region: d.Region, Hostname: d.Hostname, Blocked: blockedText(d.BlockReads, d.BlockWrites)}
		if c.All || save[d.Name] {
			if err := c.save(cfg, api, d); err != nil {
				r.Error, failed = err.Error(), failed+1
			} else {
				r.Store = c.Prefix + d.Name
			}
		}
		if app.Out.JSON() {
			app.Out.Object(r)
			continue
		}
		saved := orDash(r.Store)
		if r.Error != "" {
			saved = "not saved: " + r.Error
		}
		fmt.Fprintln(tw, sanitizeCells([]string{r.Database, orDash(r.Group), orDash(r.Region), r.Hostname, orDash(r.Blocked), saved}))
	}
	if !app.Out.JSON() {
		_ = tw.Flush()
		if len(dbs) == 0 {
			app.Out.Textf("no database in %s", c.where())
		} else {
			app.Out.Textf("%s", strings.TrimSuffix(text.String(), "\n"))
		}
		if cfg == nil && len(dbs) > 0 {
			app.Out.Textf("(--save DB,... or --all saves them as stores in the config file)")
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d database(s) not saved", failed)
	}
	return nil
}

// save saves database d as a store.
func (c *StoresDiscoverTursoCmd) save(cfg *storeconfig.Config, api platform.Turso, d platform.Database) error {
	if !platform.ValidHost(d.Hostname) {
		return fmt.Errorf("the API gave no usable hostname")
	}
	if d.Group == "" {
		return fmt.Errorf("the API gave no group (a group token needs it)")
	}
	group := c.StoreGroup
	if group == "" {
		group = d.Group
	}
	ro := !c.Writable
	s := storeconfig.Store{Name: c.Prefix + d.Name, URL: api.URL(d), Group: group, ReadOnly: &ro,
		TursoOrg: c.Org, TursoDatabase: d.Name, TursoGroup: d.Group, TursoAPI: c.API,
		TursoAPITokenEnv: c.TokenEnv, TursoAPITokenCommand: c.TokenCommand}
	if err := storeconfig.CheckName(s.Name); err != nil {
		return err
	}
	return cfg.Add(s, c.Replace)
}

// where names the organization (and group) listed.
func (c *StoresDiscoverTursoCmd) where() string {
	if c.Group != "" {
		return fmt.Sprintf("organization %s, group %s", shown(c.Org), shown(c.Group))
	}
	return "organization " + shown(c.Org)
}

func dbNames(dbs []platform.Database) string {
	if len(dbs) == 0 {
		return "none"
	}
	names := make([]string, len(dbs))
	for i, d := range dbs {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// blockedText says which operations a database refuses ("" none).
func blockedText(reads, writes bool) string {
	var out []string
	if reads {
		out = append(out, "reads")
	}
	if writes {
		out = append(out, "writes")
	}
	return strings.Join(out, ", ")
}

// tenancyFacts are what a saved store's platform says of it beside its
// pulse, for the Fleet (kvdeck fleet, the Fleet view): an sqld
// namespace's figures and flags, a Turso database's flags, a replica's
// lag. Each is read only when the store's entry names where.
type tenancyFacts struct {
	// Namespace figures (sqld admin API: /stats and /config).
	StorageBytes *int64 `json:"storageBytes,omitempty"`
	RowsRead     *int64 `json:"serverRowsRead,omitempty"`
	RowsWritten  *int64 `json:"serverRowsWritten,omitempty"`
	// Blocked is "reads", "writes" or both, from the namespace's config
	// or the Turso database's listing; BlockReason the server's words.
	Blocked     string `json:"blocked,omitempty"`
	BlockReason string `json:"blockReason,omitempty"`
	// ReplicaLag is the primary's replication index less the replica's.
	ReplicaLag *int64 `json:"replicaLag,omitempty"`
	// Error says what could not be read (the pulse may still be fine).
	Error string `json:"tenancyError,omitempty"`
}

// hasTenancy reports whether s's entry names a platform to read facts
// from (readTenancy has something to do).
func hasTenancy(s storeconfig.Store) bool {
	return s.AdminURL != "" || s.ReplicaURL != "" || (s.TursoOrg != "" && s.TursoGroup != "")
}

// readTenancy reads s's tenancy facts beside its pulse, without touching
// the store's rows: the namespace's /stats and /config on the admin API
// (two requests there), the Turso database's flags (its group's listing
// on the Platform API, shared by the stores of that group read within a
// few seconds), and the replica lag (one request to the primary and one
// to the replica, through a store opened unchecked).
func readTenancy(ctx context.Context, app *App, cfg *storeconfig.Config, s storeconfig.Store) tenancyFacts {
	var f tenancyFacts
	var errs []error
	if s.AdminURL != "" {
		key, err := s.AdminKey(app.Env)
		if err == nil {
			a, ns := platform.Sqld{Admin: s.AdminURL, Key: key}, s.NamespaceName()
			var stats platform.NamespaceStats
			if stats, err = a.Stats(ctx, ns); err == nil {
				f.StorageBytes, f.RowsRead, f.RowsWritten = &stats.StorageBytes, &stats.RowsRead, &stats.RowsWritten
			}
			conf, cerr := a.Config(ctx, ns)
			if cerr == nil {
				f.Blocked, f.BlockReason = blockedText(conf.BlockReads, conf.BlockWrites), conf.BlockReason
			}
			err = errors.Join(err, cerr)
		}
		errs = append(errs, err)
	}
	if s.TursoOrg != "" && s.TursoGroup != "" {
		errs = append(errs, app.tursoFlags(ctx, s, &f))
	}
	if s.ReplicaURL != "" {
		lag, err := replicaLag(ctx, app, cfg, s)
		if err == nil {
			f.ReplicaLag = &lag
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		f.Error = err.Error()
	}
	return f
}

// replicaLag opens s unchecked with its replica and reads the lag.
func replicaLag(ctx context.Context, app *App, cfg *storeconfig.Config, s storeconfig.Store) (int64, error) {
	token, err := cfg.Token(ctx, s, app.Env)
	if err != nil {
		return 0, err
	}
	st, err := app.Open(ctx, Opening{URL: savedURL(s), Token: token, Access: ReadOnly, Unchecked: true, Replica: s.ReplicaURL, Own: true})
	if err != nil {
		return 0, err
	}
	defer st.Close()
	r, err := st.Replication(ctx)
	return r.Lag, err
}

// tursoListing is a Turso group's databases as listed a moment ago:
// the Fleet's stores of one group share one listing per refresh.
type tursoListing struct {
	mu    sync.Mutex
	byKey map[string]listed
}

type listed struct {
	at  time.Time
	dbs []platform.Database
}

// tursoListingFresh is how long a listing serves.
const tursoListingFresh = 5 * time.Second

// tursoFlags sets f.Blocked from the Turso database's listing.
func (a *App) tursoFlags(ctx context.Context, s storeconfig.Store, f *tenancyFacts) error {
	key := strings.Join([]string{s.TursoAPI, s.TursoOrg, s.TursoGroup}, "\x00")
	l := &a.listing
	l.mu.Lock()
	defer l.mu.Unlock()
	got, ok := l.byKey[key]
	if !ok || time.Since(got.at) > tursoListingFresh {
		token, err := s.TursoAPIToken(ctx, a.Env)
		if err != nil {
			return err
		}
		dbs, err := platform.Turso{API: s.TursoAPI, Org: s.TursoOrg, Token: token}.Databases(ctx, s.TursoGroup)
		if err != nil {
			return err
		}
		if l.byKey == nil {
			l.byKey = map[string]listed{}
		}
		got = listed{at: time.Now(), dbs: dbs}
		l.byKey[key] = got
	}
	for _, d := range got.dbs {
		if d.Name == s.TursoDatabase {
			f.Blocked = blockedText(d.BlockReads, d.BlockWrites)
			return nil
		}
	}
	return fmt.Errorf("the Platform API lists no database %s in group %s", s.TursoDatabase, s.TursoGroup)
}

// text is the facts in a few words for a table's cell: "lag 3",
// "4.0 KiB r12 w3", "blocked writes"; "-" when there are none.
func (f tenancyFacts) text() string {
	var parts []string
	if f.Blocked != "" {
		parts = append(parts, "blocked "+f.Blocked)
	}
	if f.ReplicaLag != nil {
		parts = append(parts, fmt.Sprintf("lag %d", *f.ReplicaLag))
	}
	if f.StorageBytes != nil {
		parts = append(parts, fmt.Sprintf("%s r%d w%d", usertext.BytesText(*f.StorageBytes), *f.RowsRead, *f.RowsWritten))
	}
	if f.Error != "" {
		parts = append(parts, "? "+f.Error)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " · ")
}
