package valuefilter

import (
	"context"
	"errors"

	"kvdeck/store"
)

// Lister reads one page of a listing (store.Store does).
type Lister interface {
	List(ctx context.Context, opts store.ListOptions) (store.Page, error)
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

// Search reads the listing opts selects page by page (one store.List
// call each, no transaction between them) and returns the next matches:
// at most limit of them, after examining at most maxScan rows (0: no
// bound), so that a terminal UI's call stays short and can be continued
// with Cursor. ctx ends it (a deadline, a cancel) between rows and inside
// a long-running expression.
func Search(ctx context.Context, l Lister, opts store.ListOptions, m *Matcher, limit, maxScan int) (SearchPage, error) {
	var out SearchPage
	if limit <= 0 {
		limit = store.DefaultPageSize
	}
	opts = m.Narrow(opts)
	for {
		page := opts
		page.Limit = store.DefaultPageSize
		if maxScan > 0 && maxScan-out.Scanned < page.Limit {
			page.Limit = maxScan - out.Scanned
		}
		p, err := l.List(ctx, page)
		if err != nil {
			out.Cursor = opts.Cursor
			return out, err
		}
		for i, e := range p.Entries {
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
				// e was not examined to the end: resume at it.
				out.Cursor = opts.Cursor
				if i > 0 {
					out.Cursor = store.CursorAfter(p.Entries[i-1])
				}
				out.Scanned--
				return out, err
			case ok:
				out.Entries = append(out.Entries, e)
			}
			if len(out.Entries) == limit || (maxScan > 0 && out.Scanned >= maxScan) {
				if i < len(p.Entries)-1 || p.Cursor != "" {
					out.Cursor = store.CursorAfter(e)
				}
				return out, nil
			}
		}
		if p.Cursor == "" {
			return out, nil
		}
		opts.Cursor = p.Cursor
	}
}
