package storetest

import (
	"os"
	"slices"
	"testing"
)

// DirNames is the sorted names in dir, failing the test when dir cannot
// be read: what a test compares to prove that opening a database left no
// -wal, -shm or other file behind.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}
