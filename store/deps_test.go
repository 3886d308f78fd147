package store_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the engine knows no terminal and none of its
// consumers (the coordination records, the race, the atomic document, the
// demo, the command line).
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/store", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"kvdeck/store/coord", "kvdeck/internal/race", "kvdeck/internal/atomicjson", "kvdeck/internal/demo",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}

// TestWireOnlyInServerConn: the engine imports no wire-protocol code.
// Only the server connection (serverconn.go and the hrana*.go glue)
// imports store/internal/hrana, kvdeck's Hrana client; every other file
// of store/ reaches a server through the conn seam (conn.go).
func TestWireOnlyInServerConn(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			wire := p == "kvdeck/store/internal/hrana" || p == "github.com/coder/websocket" || p == "net/http"
			if wire && name != "serverconn.go" && !strings.HasPrefix(name, "hrana") {
				t.Errorf("store/%s imports %s: only the server connection (serverconn.go, hrana*.go) speaks the wire protocol", name, p)
			}
		}
	}
}
