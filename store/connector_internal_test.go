package store

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFileConnectorTakesFilesOnly: libsql-client-go opens embedded
// files and nothing else; a server URL given to it is refused, token
// unsaid, so a remote store never speaks through its client.
func TestFileConnectorTakesFilesOnly(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:1?authToken=SECRET", "libsql://db.example.turso.io?authToken=SECRET", "wss://x/y"} {
		_, err := fileConnector(u)
		if err == nil || !strings.Contains(err.Error(), "file: URLs only") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("fileConnector(%q) = %v", u, err)
		}
	}
	if _, err := fileConnector("file:" + filepath.Join(t.TempDir(), "a.db")); err != nil {
		t.Fatalf("a file URL: %v", err)
	}
}
