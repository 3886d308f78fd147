package store

import (
	"context"
	"kvdeck/store/internal/hrana"
)

// The setters below change one store's knobs (knobs.go), before or
// between its calls: a knob is not for a store in use elsewhere.

// SetCensusWindow makes every census statement of s examine n rows (0:
// the default), so that tests cross window boundaries on small stores.
func SetCensusWindow(s *Store, n int) { s.knobs.censusWindow = n }

// SetCensusRanges makes every census statement of s aggregate at most n
// prefix ranges (0: the default).
func SetCensusRanges(s *Store, n int) { s.knobs.censusRanges = n }

// SetExpiredWindows makes every window of an expired scan of s (sweeps,
// their dry runs, ScanExpired) examine n rows, and a listing of the whole
// store hold at most sorted bytes before it walks the range in key order
// (0: the defaults).
func SetExpiredWindows(s *Store, n, sorted int) {
	s.knobs.expiredWindow, s.knobs.sortedBytes = n, sorted
}

// SetOneLane makes a whole-store listing of s read as one reader (true)
// or, on a file and a machine of two cores, on two lanes.
func SetOneLane(s *Store, one bool) { s.knobs.oneLane = one }

// SetRemotePage sets the rows and bytes of a remote Scan page of s and
// returns a function that restores them.
func SetRemotePage(s *Store, rows int, bytes int64) (restore func()) {
	r, b := s.knobs.remotePageRows, s.knobs.remotePageBytes
	s.knobs.remotePageRows, s.knobs.remotePageBytes = rows, bytes
	return func() { s.knobs.remotePageRows, s.knobs.remotePageBytes = r, b }
}

// SetChangesWindow makes every change scan of s examine windows of n
// rowids (0: the default), so that tests cross window boundaries on small
// stores.
func SetChangesWindow(s *Store, n int) { s.knobs.changesWindow = n }

// QueryKeysAround runs "SELECT k FROM kv" on s's read path and calls
// between after the statement started and before its rows are read to
// the end; it returns the rows' error.
func QueryKeysAround(ctx context.Context, s *Store, between func()) error {
	rows, err := s.query(ctx, "SELECT k FROM kv")
	if err != nil {
		return err
	}
	defer rows.Close()
	between()
	for rows.Next() {
	}
	return rows.Err()
}

// SetKeylessPage makes a dump of s read the rows whose key is NULL n at a
// time (0: the default) and returns a function that restores it.
func SetKeylessPage(s *Store, n int) (restore func()) {
	p := s.knobs.keylessPage
	s.knobs.keylessPage = n
	return func() { s.knobs.keylessPage = p }
}

// CloseIdle drops the idle connections of kvdeck's Hrana HTTP client,
// so that a test can count the goroutines a read leaves behind.
func CloseIdle() {
	hrana.CloseIdle()
}
