package codec

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps codec free of third-party imports: every
// other package depends on it, and the store format must not drift with a
// dependency. A package is standard if its first path element has no dot.
func TestStandardLibraryOnly(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "kvdeck/codec").Output()
	if err != nil {
		t.Fatalf("go list -deps kvdeck/codec: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "kvdeck/codec" {
			continue
		}
		first, _, _ := strings.Cut(pkg, "/")
		if strings.Contains(first, ".") || strings.HasPrefix(pkg, "kvdeck/") {
			t.Errorf("codec imports %s; it must use the standard library only", pkg)
		}
	}
}
