package tui_test

import (
	"os/exec"
	"strings"
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: tui sits under main only; nothing else in the
// module may import it.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/tui", "kvdeck/internal/cli")
	out, err := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "kvdeck/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(l)
		if len(fields) == 0 || fields[0] == "kvdeck" || fields[0] == "kvdeck/tui" {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == "kvdeck/tui" {
				t.Errorf("%s imports kvdeck/tui; only main may", fields[0])
			}
		}
	}
}
