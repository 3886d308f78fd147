package store

// SetFindFileRows makes a find page of s on a file read windows of n keys
// (0: the default).
func SetFindFileRows(s *Store, n int) { s.knobs.findFileRows = n }
