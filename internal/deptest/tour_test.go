package deptest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// packageRow is a row of the Packages tables in docs/ARCHITECTURE.md: its
// first cell names a package folder in backquotes (`store/coord/`), or
// `main`, or a family of folders (`views/<tab>/`).
var packageRow = regexp.MustCompile("(?m)^\\| `([^`]+)`")

// TestArchitecturePackageTable: every package of the module has its line
// in docs/ARCHITECTURE.md's Packages tables, and every line names a
// package that exists. A row may name several folders
// (`views/browse/{entry,reader}/`); the family row `views/<tab>/` covers
// the packages of the import map's tabs group.
func TestArchitecturePackageTable(t *testing.T) {
	doc, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "\n## Packages")
	if start < 0 {
		t.Fatal("docs/ARCHITECTURE.md has no ## Packages section")
	}
	section := text[start+1:]
	if end := strings.Index(section[2:], "\n## "); end >= 0 {
		section = section[:end+2]
	}
	m := parseImportMap(t, text)
	rows := map[string]bool{}
	for _, sub := range packageRow.FindAllStringSubmatch(section, -1) {
		for _, r := range expand(sub[1]) {
			rows[r] = true
		}
	}
	pkgs := modulePackages(t)
	covered := map[string]bool{}
	for p := range pkgs {
		row := strings.TrimPrefix(p, "kvdeck/") + "/"
		if p == "kvdeck" {
			row = "main"
		}
		switch {
		case rows[row]:
			covered[row] = true
		case m.groupOf[p] == "tabs" && rows["views/<tab>/"]:
			covered["views/<tab>/"] = true
		default:
			t.Errorf("package %s has no line in docs/ARCHITECTURE.md's Packages tables", p)
		}
	}
	var stale []string
	for r := range rows {
		if !covered[r] {
			stale = append(stale, r)
		}
	}
	sort.Strings(stale)
	for _, r := range stale {
		t.Errorf("docs/ARCHITECTURE.md's Packages tables name %s, which is no package of the module", r)
	}
}

// expand spells out a row naming several folders at once:
// `views/browse/{entry,reader}/` is views/browse/entry/ and
// views/browse/reader/.
func expand(row string) []string {
	open, end := strings.Index(row, "{"), strings.Index(row, "}")
	if open < 0 || end < open {
		return []string{row}
	}
	var out []string
	for _, part := range strings.Split(row[open+1:end], ",") {
		out = append(out, row[:open]+part+row[end+1:])
	}
	return out
}

// TestStoreTourComplete: store/doc.go, the engine's tour, names every
// file of the package (platform variants `*_other.go` go with the file
// they stand in for), and names no file that is gone.
func TestStoreTourComplete(t *testing.T) {
	dir := filepath.Join("..", "..", "store")
	tour, err := os.ReadFile(filepath.Join(dir, "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		have[name] = true
		if strings.HasSuffix(name, "_test.go") || name == "doc.go" || strings.HasSuffix(name, "_other.go") {
			continue
		}
		if !strings.Contains(string(tour), name) {
			t.Errorf("store/doc.go does not name store/%s: say in the tour what it owns", name)
		}
	}
	for _, sub := range regexp.MustCompile(`\b[a-z0-9_]+\.go\b`).FindAllString(string(tour), -1) {
		if !have[sub] {
			t.Errorf("store/doc.go names %s, which store/ no longer has", sub)
		}
	}
}
