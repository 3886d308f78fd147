package store

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
