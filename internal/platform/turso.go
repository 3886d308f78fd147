package platform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// TursoAPI is the Turso Platform API's address.
const TursoAPI = "https://api.turso.tech"

// Turso is an organization on Turso's Platform API, reached with an API
// token (organization- or group-scoped), which goes to API only.
type Turso struct {
	// API is the Platform API's address (TursoAPI when empty; a test's
	// local server otherwise).
	API string
	// Org is the organization's slug.
	Org string
	// Token is a Platform API token.
	Token string
	// Client sends the requests (nil: one with DefaultTimeout).
	Client *http.Client
}

func (t Turso) api() api {
	base := strings.TrimRight(t.API, "/")
	if base == "" {
		base = TursoAPI
	}
	return api{base: base, what: "Turso Platform API", auth: "Bearer " + t.Token, secret: t.Token, client: t.Client}
}

// Call makes one Platform API request on a path under the organization
// ("/databases/NAME", or "" for the organization itself): body is sent
// as JSON, a 2xx answer decoded into out. Errors name the method, path
// and status with the API's message, never the token; a 404 wraps
// ErrNotFound.
func (t Turso) Call(ctx context.Context, method, path string, body, out any) error {
	status, err := t.api().call(ctx, method, "/v1/organizations/"+url.PathEscape(t.Org)+path, body, out)
	return notFound(status, err)
}

// Database is a database as the Platform API lists it.
type Database struct {
	Name     string `json:"Name"`
	ID       string `json:"DbId"`
	Hostname string `json:"Hostname"`
	Group    string `json:"group"`
	// Region is the group's primary region.
	Region      string `json:"primaryRegion"`
	BlockReads  bool   `json:"block_reads"`
	BlockWrites bool   `json:"block_writes"`
	Archived    bool   `json:"archived"`
}

// validHost is what a database's hostname may be.
var validHost = regexp.MustCompile(`^[A-Za-z0-9.-]+(:[0-9]+)?$`)

// ValidHost reports whether host is usable as a database's hostname (no
// path, user info or odd bytes an answer could slip into a URL).
func ValidHost(host string) bool { return validHost.MatchString(host) }

// URL is the database's address: libsql:// (TLS), or http:// when the
// API itself is plain http (a local API serving local databases).
func (t Turso) URL(d Database) string {
	if strings.HasPrefix(strings.ToLower(t.api().base), "http://") {
		return "http://" + d.Hostname
	}
	return "libsql://" + d.Hostname
}

// Databases lists the organization's databases (GET
// /v1/organizations/ORG/databases), of group only when it is not "".
func (t Turso) Databases(ctx context.Context, group string) ([]Database, error) {
	path := "/databases"
	if group != "" {
		path += "?group=" + url.QueryEscape(group)
	}
	var out struct {
		Databases []Database `json:"databases"`
	}
	if err := t.Call(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return out.Databases, nil
}

// GroupToken mints a token for every database of group (POST
// /v1/organizations/ORG/groups/GROUP/auth/tokens), read-only unless
// write, valid for ttl (whole minutes, at least one). The API never
// gives it again: the caller keeps it for as long as it needs it.
func (t Turso) GroupToken(ctx context.Context, group string, ttl time.Duration, write bool) (string, error) {
	if group == "" {
		return "", errors.New("a group token needs the database's group")
	}
	access := "read-only"
	if write {
		access = "full-access"
	}
	q := url.Values{"expiration": {fmt.Sprintf("%dm", max(int(ttl/time.Minute), 1))}, "authorization": {access}}
	var out struct {
		JWT string `json:"jwt"`
	}
	if err := t.Call(ctx, http.MethodPost, "/groups/"+url.PathEscape(group)+"/auth/tokens?"+q.Encode(), nil, &out); err != nil {
		return "", err
	}
	if out.JWT == "" {
		return "", fmt.Errorf("Turso Platform API: group %s: the answer holds no jwt", group)
	}
	return out.JWT, nil
}
