//go:build !linux

package store

// SeesOpeners reports whether kvdeck can tell which other processes have
// a file open: not here (it looks through Linux's /proc).
func SeesOpeners() bool { return false }

// otherOpeners cannot see other processes here: it names none.
func otherOpeners(string) ([]opener, error) { return nil, nil }
