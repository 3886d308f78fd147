package store

import (
	"context"
	"net/http"
)

// SetCensusWindow makes every census statement examine n rows (0: the
// default), so that tests cross window boundaries on small stores.
func SetCensusWindow(n int) { censusWindowTest = n }

// SetRemotePage sets the rows and bytes of a remote Scan page and returns
// a function that restores them.
func SetRemotePage(rows int, bytes int64) (restore func()) {
	r, b := remotePageRows, remotePageBytes
	remotePageRows, remotePageBytes = rows, bytes
	return func() { remotePageRows, remotePageBytes = r, b }
}

// SetChangesWindow makes every change scan examine windows of n rowids (0:
// the default), so that tests cross window boundaries on small stores.
func SetChangesWindow(n int) { changesWindowTest = n }

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

// SetKeylessPage makes a dump read the rows whose key is NULL n at a time
// (0: the default) and returns a function that restores it.
func SetKeylessPage(n int) (restore func()) {
	p := keylessPage
	if n > 0 {
		keylessPage = n
	}
	return func() { keylessPage = p }
}

// CloseIdle drops the idle connections of kvdeck's Hrana HTTP client
// and of libsql-client-go's (http.DefaultClient), so that a test can
// count the goroutines a read leaves behind.
func CloseIdle() {
	hranaClient.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()
}
