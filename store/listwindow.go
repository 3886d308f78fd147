package store

import (
	"bytes"
	"context"
)

// A filtered listing of a rollback-journal file reads in windows.
//
// A listing that filters its range (live rows only, a value holding some
// bytes, expired rows) may examine many rows for each one it keeps: `list
// ["t1"]` over 50,000 expired rows examines them all to keep none, one
// statement of tens of milliseconds. Read without SQLite's locks
// (lockfree.go) such a statement is kept only when no commit came during
// it, which a service committing every 10 ms leaves no room for; read with
// them it fails the service's commits that meet it. So on such a file a
// filtered listing examines its range a window of rows at a time
// (readWindowed: shorter while a writer leaves no room, longer again
// after), each window answering every row it examined with whether the
// filter keeps it (a row it does not keep travels without its value),
// until the page is full (limit+1 rows, or its byte budget) or the range
// is done. A window examines no more rows than the page still needs (a
// scan reads pages of DefaultPageSize: a full window each re-read most of
// its rows for the pages after), more after windows the filter thinned.
// The windows are read one after another, as pages are: a page is no
// snapshot either way.

// listWindowRows is the rows a listing's window examines at most.
const listWindowRows = 2048

// listWindows reads a List page of opts over [lo, hi) in windows: up to
// limit+1 entries, and with a budget the running size of the last one
// (as listQuery's fifth column has it).
func (s *Store) listWindows(ctx context.Context, opts ListOptions, lo, hi []byte, limit int) (out []Entry, end int64, err error) {
	w := s.newReadWindow(windowList, or(s.knobs.windowRows, listWindowRows))
	// A window examines what the page still needs (a row past it is read
	// again by the next page), and twice the last window after one the
	// filter thinned.
	thinned := 0
	// One scanner for every row; the rows a window keeps go straight
	// into out (a try read again starts from base).
	var keep int64
	sc := newEntryScanner(&keep)
	for {
		w.bound = max(limit+1-len(out), thinned)
		var used, examined int
		var last []byte
		base := len(out)
		err := s.readWindowed(ctx, w, func(n int) (string, []any) {
			used = n
			return s.listWindowSQL(opts, lo, hi, n)
		}, func(rows resultRows) error {
			out, last, examined = out[:base], nil, 0
			for rows.Next() {
				e, err := sc.scan(rows)
				if err != nil {
					return err
				}
				examined++
				last = e.Raw
				if keep != 0 {
					if out == nil {
						out = make([]Entry, 0, min(limit+1, listWindowRows))
					}
					out = append(out, e)
				}
			}
			return rows.Err()
		})
		if err != nil {
			return nil, 0, s.classify(err)
		}
		s.rowsRead.Add(int64(examined))
		if len(out)-base < examined {
			thinned = min(2*used, w.max)
		}
		for i := base; i < len(out); i++ {
			if opts.budget > 0 && i > 0 && end >= opts.budget {
				return out[:i], end, nil
			}
			end += entryCost(out[i])
			if i+1 > limit {
				return out[:i+1], end, nil
			}
		}
		if examined < used || last == nil {
			return out, end, nil
		}
		if opts.Reverse {
			hi = last
		} else {
			lo = append(bytes.Clone(last), 0x00) // the smallest key past last
		}
	}
}

// listWindowSQL is a window of n rows of [lo, hi) in the listing's
// order: each row with whether the listing's filter keeps it (its fifth
// column), its value only when it does.
func (s *Store) listWindowSQL(opts ListOptions, lo, hi []byte, n int) (string, []any) {
	rng, rargs := rangeWhere(lo, hi)
	filter, args := s.listFilter(opts)
	order := "ASC"
	if opts.Reverse {
		order = "DESC"
	}
	// The filter twice (its arguments too), not once in a subquery: an
	// ORDER BY over a subquery's rows is a sort of the window, values
	// and all, in a temporary b-tree; the index gives this one's order.
	q := "SELECT k, CASE WHEN (" + filter + ") THEN v END, " + s.intSQL("ver") + ", " + s.intSQL("expires_at") + ", (" + filter + ")" +
		" FROM kv WHERE " + rng + " ORDER BY k " + order + " LIMIT ?"
	return q, append(append(append(args, args...), rargs...), n)
}

// entryCost is entryCostSQL of an entry read.
func entryCost(e Entry) int64 { return 160 + 2*int64(len(e.Raw)) + 2*int64(len(e.Value)) }
