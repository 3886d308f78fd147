package deptest

import (
	"bufio"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// archDoc is docs/ARCHITECTURE.md, seen from this package's directory (go
// test runs a test in its package's directory).
const archDoc = "../../docs/ARCHITECTURE.md"

// importMap is the machine-readable import map of docs/ARCHITECTURE.md: the
// fenced block whose info string is "imports".
type importMap struct {
	groups  map[string][]string        // group -> its packages
	groupOf map[string]string          // package -> its group
	allow   map[string]map[string]bool // group -> groups and packages it may import
}

// parseImportMap reads the "```imports" block of the markdown in text. A
// line "name = pkg pkg ..." defines a group; "name -> target ..." lists
// what a group's packages may import directly, each target a group or a
// package. A group does not import itself unless it names itself.
func parseImportMap(t *testing.T, text string) importMap {
	t.Helper()
	m := importMap{groups: map[string][]string{}, groupOf: map[string]string{}, allow: map[string]map[string]bool{}}
	in, found := false, false
	type rule struct {
		line    int
		from    string
		targets []string
	}
	var rules []rule
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && line == "```imports":
			in, found = true, true
			continue
		case in && line == "```":
			in = false
			continue
		case !in:
			continue
		}
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		if name, rest, ok := strings.Cut(line, "->"); ok {
			rules = append(rules, rule{n, strings.TrimSpace(name), strings.Fields(rest)})
			continue
		}
		name, rest, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s:%d: %q is neither \"group = packages\" nor \"group -> targets\"", archDoc, n, line)
		}
		name = strings.TrimSpace(name)
		if _, dup := m.groups[name]; dup {
			t.Fatalf("%s:%d: group %s defined twice", archDoc, n, name)
		}
		m.groups[name] = strings.Fields(rest)
		for _, p := range m.groups[name] {
			if g, dup := m.groupOf[p]; dup {
				t.Fatalf("%s:%d: %s is in group %s and in %s", archDoc, n, p, g, name)
			}
			m.groupOf[p] = name
		}
	}
	if !found {
		t.Fatalf("%s has no ```imports block", archDoc)
	}
	for _, r := range rules {
		if _, ok := m.groups[r.from]; !ok {
			t.Fatalf("%s:%d: rule for %s, which is no group", archDoc, r.line, r.from)
		}
		if m.allow[r.from] == nil {
			m.allow[r.from] = map[string]bool{}
		}
		for _, to := range r.targets {
			_, isGroup := m.groups[to]
			_, isPkg := m.groupOf[to]
			if !isGroup && !isPkg {
				t.Fatalf("%s:%d: %s may import %s, which is neither a group nor a package of the map", archDoc, r.line, r.from, to)
			}
			m.allow[r.from][to] = true
		}
	}
	return m
}

// allowed reports whether a package of group from may import pkg.
func (m importMap) allowed(from, pkg string) bool {
	a := m.allow[from]
	return a[pkg] || a[m.groupOf[pkg]]
}

// modulePackages returns every package of the module (tests excluded) with
// the module's packages it imports directly.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "kvdeck/...").Output()
	if err != nil {
		t.Fatalf("go list kvdeck/...: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var own []string
		for _, imp := range f[1:] {
			if imp == "kvdeck" || strings.HasPrefix(imp, "kvdeck/") {
				own = append(own, imp)
			}
		}
		pkgs[f[0]] = own
	}
	return pkgs
}

// TestArchitectureMap checks the import map in docs/ARCHITECTURE.md against
// go list: every package of the module is placed in a group, every package
// the map names exists, and every import of the module's own packages is
// one the map allows (an import of a package in no group is reported once,
// as that package's own failure).
func TestArchitectureMap(t *testing.T) {
	doc, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	m := parseImportMap(t, string(doc))
	pkgs := modulePackages(t)

	var names []string
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		g, ok := m.groupOf[p]
		if !ok {
			t.Errorf("package %s exists but docs/ARCHITECTURE.md's import map places it in no group", p)
			continue
		}
		for _, imp := range pkgs[p] {
			if _, placed := m.groupOf[imp]; placed && !m.allowed(g, imp) {
				t.Errorf("%s (group %s) imports %s (group %s), which docs/ARCHITECTURE.md's import map does not allow", p, g, imp, m.groupOf[imp])
			}
		}
	}
	for p, g := range m.groupOf {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("docs/ARCHITECTURE.md's import map names %s (group %s), which is no package of the module", p, g)
		}
	}
	if cycle := m.cycle(); cycle != nil {
		t.Errorf("docs/ARCHITECTURE.md's import map lets imports go round: %s", strings.Join(cycle, " -> "))
	}
}

// cycle returns a cycle of groups in the map (a group naming itself does
// not count), or nil when imports point one way.
func (m importMap) cycle() []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(g string) []string
	visit = func(g string) []string {
		state[g] = open
		path = append(path, g)
		var targets []string
		for to := range m.allow[g] {
			if _, isGroup := m.groups[to]; !isGroup {
				to = m.groupOf[to]
			}
			targets = append(targets, to)
		}
		sort.Strings(targets)
		for _, to := range targets {
			switch {
			case to == g:
			case state[to] == open:
				for i, p := range path {
					if p == to {
						return append(append([]string(nil), path[i:]...), to)
					}
				}
			case state[to] == unseen:
				if c := visit(to); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[g] = done
		return nil
	}
	var groups []string
	for g := range m.groups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		if state[g] == unseen {
			if c := visit(g); c != nil {
				return c
			}
		}
	}
	return nil
}
