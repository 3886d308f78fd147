package store

// SetFindFileRows makes a find page on a file read windows of n keys and
// returns a function that restores the default.
func SetFindFileRows(n int) (restore func()) {
	r := findFileRows
	findFileRows = n
	return func() { findFileRows = r }
}
