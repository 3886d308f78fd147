package history

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kvdeck/internal/platform"
	"kvdeck/internal/usertext"
)

// TursoAPI is the Turso Platform API's address.
const TursoAPI = platform.TursoAPI

// Turso restores a Turso database as of a time through the Platform API:
// a new database seeded from the store's at that timestamp (Turso's
// point-in-time recovery: POST /v1/organizations/{org}/databases with
// seed {type: database, name, timestamp}), read with a read-only token
// made for it, and deleted afterwards. Any instant within the plan's
// retention can be asked: it has no list of points.
type Turso struct {
	// API is the Platform API's address (TursoAPI unless a test's).
	API string
	// Org and Database name the store's database.
	Org, Database string
	// Token is a Platform API token; it goes to API only.
	Token string
	// Client makes the requests (nil: a client with a 30 s timeout).
	Client *http.Client
	// Now names the branch (nil: time.Now).
	Now func() time.Time
}

// Kind is KindTurso.
func (t *Turso) Kind() string { return KindTurso }

// Describe names the database.
func (t *Turso) Describe() string {
	return fmt.Sprintf("Turso point-in-time branch of %s/%s", t.Org, t.Database)
}

// Limits says what a branch cannot tell.
func (t *Turso) Limits() string {
	return "a branch holds the database as Turso restores it at the timestamp: Turso documents a gap of up to 15 seconds before it (its last periodic checkpoint), and only times within the plan's retention"
}

// Points is nil: Turso restores any instant (Pick takes the time asked).
func (t *Turso) Points(context.Context) ([]Point, error) { return nil, nil }

// tursoDB is a database as the Platform API describes it.
type tursoDB struct {
	Name     string `json:"Name"`
	DbID     string `json:"DbId"`
	Hostname string `json:"Hostname"`
	Group    string `json:"group"`
}

// branchName is the name of the branch for the instant at: the
// database's name (cut so the whole fits Turso's 64 characters) and
// "-at-" with the epoch seconds and the seconds of its making, so two
// kvdecks asking the same instant do not collide.
func (t *Turso) branchName(at int64) string {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	suffix := "-at-" + strconv.FormatInt(at/1000, 10) + "-" + strconv.FormatInt(now().UnixNano()%1e6, 36)
	base := strings.ToLower(t.Database)
	if len(base)+len(suffix) > 64 {
		base = strings.TrimRight(base[:64-len(suffix)], "-")
	}
	return base + suffix
}

// Open makes a branch of the database as of p.At and a read-only token
// for it; Close deletes the branch. A branch that was made but whose
// token could not be had is deleted before the error returns.
func (t *Turso) Open(ctx context.Context, p Point, _ Dir) (Opened, error) {
	var src struct {
		Database tursoDB `json:"database"`
	}
	if err := t.call(ctx, http.MethodGet, t.dbPath(t.Database), nil, &src); err != nil {
		return Opened{}, err
	}
	name := t.branchName(p.At)
	body := map[string]any{
		"name": name,
		"seed": map[string]any{"type": "database", "name": t.Database, "timestamp": time.UnixMilli(p.At).UTC().Format(time.RFC3339)},
	}
	if src.Database.Group != "" {
		body["group"] = src.Database.Group
	}
	var made struct {
		Database tursoDB `json:"database"`
	}
	if err := t.call(ctx, http.MethodPost, "/databases", body, &made); err != nil {
		return Opened{}, fmt.Errorf("making the branch %s: %w", name, err)
	}
	drop := func(ctx context.Context) error {
		if err := t.call(ctx, http.MethodDelete, t.dbPath(name), nil, nil); err != nil {
			return fmt.Errorf("deleting the branch %s (delete it with: turso db destroy %s): %w", name, name, err)
		}
		return nil
	}
	host := made.Database.Hostname
	if !platform.ValidHost(host) {
		err := fmt.Errorf("the branch %s was made, but the API gave no usable hostname (%q)", name, usertext.Sanitize(host))
		return Opened{}, errors.Join(err, drop(context.WithoutCancel(ctx)))
	}
	var tok struct {
		JWT string `json:"jwt"`
	}
	if err := t.call(ctx, http.MethodPost, t.dbPath(name)+"/auth/tokens?expiration=1h&authorization=read-only", nil, &tok); err != nil || tok.JWT == "" {
		if err == nil {
			err = errors.New("the API answered no jwt")
		}
		err = fmt.Errorf("a token for the branch %s: %w", name, err)
		return Opened{}, errors.Join(err, drop(context.WithoutCancel(ctx)))
	}
	return Opened{URL: t.scheme() + host, Token: tok.JWT, Close: drop}, nil
}

// scheme is how the branch is reached: libsql:// (TLS), or plain http://
// when the Platform API itself is plain http (a local one, which serves
// local databases).
func (t *Turso) scheme() string {
	if strings.HasPrefix(strings.ToLower(t.API), "http://") {
		return "http://"
	}
	return "libsql://"
}

func (t *Turso) dbPath(name string) string { return "/databases/" + url.PathEscape(name) }

// call makes one Platform API request (platform.Turso.Call): the token
// goes to the API only and never into an error.
func (t *Turso) call(ctx context.Context, method, path string, body, out any) error {
	return platform.Turso{API: t.API, Org: t.Org, Token: t.Token, Client: t.Client}.Call(ctx, method, path, body, out)
}
