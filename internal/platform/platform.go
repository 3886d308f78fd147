// Package platform speaks the management APIs of the servers a store
// lives on, which are not the store's own protocol (Hrana, package
// store): sqld's admin API (namespaces: create, fork, delete, and a
// namespace's stats and config) and Turso's Platform API (an
// organization's databases, group tokens, and the raw calls the time
// machine's branches make). Every call runs under the caller's context;
// a token goes to its own API only and never into an error.
package platform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"kvdeck/internal/usertext"
)

// DefaultTimeout bounds a call when the caller's client has none.
const DefaultTimeout = 30 * time.Second

// maxAnswer bounds an answer read into memory.
const maxAnswer = 4 << 20

// api is one management API: its address, how a request is authorized,
// and the client that sends it.
type api struct {
	base   string // scheme://host[:port], no trailing slash
	what   string // "Turso Platform API", "sqld admin API": for errors
	auth   string // the Authorization header's value; "" none
	secret string // what to cut out of any error
	client *http.Client
}

// call makes one request with body (JSON; nil: none) and decodes a 2xx
// answer into out (nil: ignored). A non-2xx answer is an error with the
// API's {"error": ...} message or its first line, sanitised, and the
// status; found is false on 404 (with the error).
func (a api) call(ctx context.Context, method, path string, body, out any) (status int, err error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", a.what, a.redact(err))
	}
	if a.auth != "" {
		req.Header.Set("Authorization", a.auth)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := a.client
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s %s: %w", a.what, method, a.base, a.redact(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s %s: %w", a.what, method, path, a.redact(err))
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		msg := e.Error
		if msg == "" {
			msg, _, _ = strings.Cut(strings.TrimSpace(string(b)), "\n")
		}
		if len(msg) > 300 {
			msg = strings.ToValidUTF8(msg[:300], "") + "…"
		}
		return resp.StatusCode, fmt.Errorf("%s %s %s: %s: %s", a.what, method, path, resp.Status, usertext.Sanitize(a.cut(msg)))
	}
	if out == nil {
		return resp.StatusCode, nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s %s: an answer kvdeck cannot read: %w", a.what, method, path, err)
	}
	return resp.StatusCode, nil
}

// cut removes the secret from text.
func (a api) cut(text string) string {
	if a.secret == "" {
		return text
	}
	return strings.ReplaceAll(text, a.secret, "<redacted>")
}

// redact removes the secret from an error's text.
func (a api) redact(err error) error {
	if a.secret == "" || !strings.Contains(err.Error(), a.secret) {
		return err
	}
	return errors.New(a.cut(err.Error()))
}

// ErrNotFound: the API answered 404 (no such namespace or database).
var ErrNotFound = errors.New("not found")

// notFound wraps err with ErrNotFound when status is 404.
func notFound(status int, err error) error {
	if err != nil && status == http.StatusNotFound {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}
