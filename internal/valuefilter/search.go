package valuefilter

import (
	"context"
	"errors"

	"kvdeck/store"
)

// Lister reads a listing (store.Store does): Search streams it with
// Scan (one request over HTTP, store/hranacursor.go).
type Lister interface {
	Scan(ctx context.Context, opts store.ListOptions, fn func(store.Entry) error) error
}

// SearchPage is one page of matches.
type SearchPage struct {
	// Entries match, in the listing's order.
	Entries []store.Entry
	// Cursor continues the search (ListOptions.Cursor) when not empty:
	// the page stopped at the limit of matches or of rows examined. When
	// Search returns an error, Cursor is where a later call resumes: just
	// after the last row examined (the call's own cursor when it examined
	// none), so a retry neither skips nor repeats a row, and the matches
	// already found are in Entries.
	Cursor string
	// Scanned counts the rows examined here; a substring is tested by
	// the server first (Matcher.Narrow), so only matching rows are.
	Scanned int
	// Failed counts the values the expression failed on (not matched);
	// FirstFailure is the first of them.
	Failed       int
	FirstFailure *FailedEntry
}

// FailedEntry is a value a jq expression failed on.
type FailedEntry struct {
	Entry store.Entry
	Err   error
}

// Search reads the listing opts selects (one store Scan: over HTTP one
// streamed request) and returns the next matches: at most limit of them,
// after examining at most maxScan rows (0: no bound), so that a terminal
// UI's call stays short and can be continued with Cursor. ctx ends it (a
// deadline, a cancel) between rows and inside a long-running expression.
func Search(ctx context.Context, l Lister, opts store.ListOptions, m *Matcher, limit, maxScan int) (SearchPage, error) {
	var out SearchPage
	if limit <= 0 {
		limit = store.DefaultPageSize
	}
	opts = m.Narrow(opts)
	opts.Limit = 0
	if maxScan > 0 {
		opts.Limit = maxScan + 1 // a row past the bound tells that more follow
	}
	var last *store.Entry // the last row examined
	full := false
	err := l.Scan(ctx, opts, func(e store.Entry) error {
		if full {
			return errFull
		}
		out.Scanned++
		ok, err := m.Match(ctx, e)
		var evalErr *EvalError
		switch {
		case errors.As(err, &evalErr):
			out.Failed++
			if out.FirstFailure == nil {
				out.FirstFailure = &FailedEntry{Entry: e, Err: err}
			}
		case err != nil:
			out.Scanned-- // e was not examined to the end: resume at it
			return err
		case ok:
			out.Entries = append(out.Entries, e)
		}
		last = &e
		full = len(out.Entries) == limit || (maxScan > 0 && out.Scanned >= maxScan)
		return nil
	})
	switch {
	case errors.Is(err, errFull):
		out.Cursor = store.CursorAfter(*last)
		return out, nil
	case err != nil:
		if last != nil {
			opts.Cursor = store.CursorAfter(*last)
		}
		out.Cursor = opts.Cursor
		return out, err
	}
	return out, nil
}

// errFull stops a search's scan at the row after its bounds: more follow.
var errFull = errors.New("the search call is full")
