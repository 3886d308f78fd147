package platform

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"kvdeck/store"
)

// Sqld is an sqld's admin API (sqld --admin-listen-addr, with
// --enable-namespaces): the namespaces' life (create, fork, delete) and
// a namespace's figures (Stats) and flags (Config). It has no list of
// namespaces.
type Sqld struct {
	// Admin is the admin API's address, http(s)://host:port.
	Admin string
	// Key is the admin API's key (sqld --admin-auth-key), sent as
	// "Authorization: basic KEY" to Admin only; "" sends none.
	Key string
	// Client sends the requests (nil: one with DefaultTimeout).
	Client *http.Client
}

// CheckAdminURL refuses an admin address kvdeck cannot call: an
// http(s):// URL with a host and nothing after it but a path.
func CheckAdminURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%w: the sqld admin API's address is an http(s)://host:port URL (sqld --admin-listen-addr)", store.ErrBadURL)
	}
	return nil
}

func (s Sqld) api() (api, error) {
	if err := CheckAdminURL(s.Admin); err != nil {
		return api{}, err
	}
	a := api{base: strings.TrimRight(s.Admin, "/"), what: "sqld admin API", secret: s.Key, client: s.Client}
	if s.Key != "" {
		a.auth = "basic " + s.Key
	}
	return a, nil
}

// path is the admin API's path of namespace ns (checked: no name that
// would change the path).
func nsPath(ns string, rest ...string) (string, error) {
	if err := store.CheckNamespace(ns); err != nil {
		return "", fmt.Errorf("%w: %w", store.ErrBadURL, err)
	}
	p := "/v1/namespaces/" + ns
	for _, r := range rest {
		p += "/" + r
	}
	return p, nil
}

// do calls the admin API on namespace ns.
func (s Sqld) do(ctx context.Context, method string, ns string, body, out any, rest ...string) error {
	a, err := s.api()
	if err != nil {
		return err
	}
	path, err := nsPath(ns, rest...)
	if err != nil {
		return err
	}
	status, err := a.call(ctx, method, path, body, out)
	return notFound(status, err)
}

// CreateNamespace creates namespace ns.
func (s Sqld) CreateNamespace(ctx context.Context, ns string) error {
	return s.do(ctx, http.MethodPost, ns, map[string]any{}, nil, "create")
}

// Fork makes namespace to a copy of ns as it is now (sqld 0.24 forks
// the present; a fork from a past instant needs bottomless replication).
func (s Sqld) Fork(ctx context.Context, ns, to string) error {
	if err := store.CheckNamespace(to); err != nil {
		return fmt.Errorf("%w: %w", store.ErrBadURL, err)
	}
	return s.do(ctx, http.MethodPost, ns, nil, nil, "fork", to)
}

// DeleteNamespace deletes namespace ns and its data.
func (s Sqld) DeleteNamespace(ctx context.Context, ns string) error {
	return s.do(ctx, http.MethodDelete, ns, nil, nil)
}

// NamespaceStats is what GET /v1/namespaces/NS/stats says of a
// namespace since the server started: rows read and written, the bytes
// its database takes, its replication index, and its costliest
// statements.
type NamespaceStats struct {
	RowsRead         int64       `json:"rows_read_count"`
	RowsWritten      int64       `json:"rows_written_count"`
	StorageBytes     int64       `json:"storage_bytes_used"`
	ReplicationIndex uint64      `json:"replication_index"`
	QueryCount       int64       `json:"query_count"`
	TopQueries       []TopQuery  `json:"top_queries"`
	SlowestQueries   []SlowQuery `json:"slowest_queries"`
}

// TopQuery is one of a namespace's statements that read or wrote most.
type TopQuery struct {
	Query       string `json:"query"`
	RowsRead    int64  `json:"rows_read"`
	RowsWritten int64  `json:"rows_written"`
}

// SlowQuery is one of a namespace's slowest statements.
type SlowQuery struct {
	Query     string `json:"query"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// Stats reads namespace ns's figures.
func (s Sqld) Stats(ctx context.Context, ns string) (NamespaceStats, error) {
	return get[NamespaceStats](ctx, s, ns, "stats")
}

// NamespaceConfig is the part of GET /v1/namespaces/NS/config kvdeck
// shows: whether reads or writes are blocked, and why.
type NamespaceConfig struct {
	BlockReads  bool   `json:"block_reads"`
	BlockWrites bool   `json:"block_writes"`
	BlockReason string `json:"block_reason"`
}

// Config reads namespace ns's flags.
func (s Sqld) Config(ctx context.Context, ns string) (NamespaceConfig, error) {
	return get[NamespaceConfig](ctx, s, ns, "config")
}

// get reads the JSON answer of GET /v1/namespaces/NS/what.
func get[T any](ctx context.Context, s Sqld, ns, what string) (T, error) {
	var v T
	err := s.do(ctx, http.MethodGet, ns, nil, &v, what)
	return v, err
}
