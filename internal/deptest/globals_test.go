package deptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestNoMutablePackageState: no package of the module assigns to one of
// its package-level variables after the declaration, tests included (the
// guide: no global state). A setting that tests change belongs to the
// value that uses it (a model's or a store's field, set on that one
// value), so that two tests, or two stores in one process, cannot step
// on each other. Maps, sync values and the like that are filled through
// their methods are not assignments and are not listed.
func TestNoMutablePackageState(t *testing.T) {
	var found []string
	for _, dir := range moduleDirs(t, "../..") {
		found = append(found, assignedPackageVars(t, dir)...)
	}
	sort.Strings(found)
	for i, f := range found {
		if i > 0 && f == found[i-1] {
			continue
		}
		t.Errorf("package-level variable assigned after its declaration: %s", f)
	}
}

// moduleDirs lists the directories under root holding Go files, without
// hidden ones, testdata and the sqld cache.
func moduleDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if m, _ := filepath.Glob(filepath.Join(path, "*.go")); len(m) > 0 {
				dirs = append(dirs, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// assignedPackageVars type-checks the package in dir with its in-package
// tests (every build tag: large-data tests too) and returns where one of
// its package-level variables is assigned, incremented or has its
// address taken outside its declaration. Imports are not loaded: an
// identifier's object is enough to tell a package variable from a local
// one, and the errors unloaded imports cause are ignored.
func assignedPackageVars(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string][]*ast.File{} // package name -> its files
	for _, path := range paths {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		pkgs[f.Name.Name] = append(pkgs[f.Name.Name], f)
	}
	var out []string
	for name, files := range pkgs {
		if strings.HasSuffix(name, "_test") {
			continue // an external test package sees only exported names
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
		pkg, _ := conf.Check(name, fset, files, info)
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				for _, id := range written(n) {
					if v, ok := info.Uses[id].(*types.Var); ok && v.Parent() == pkg.Scope() {
						pos := fset.Position(id.Pos())
						out = append(out, filepath.ToSlash(filepath.Join(dir, filepath.Base(pos.Filename)))+": "+id.Name)
					}
				}
				return true
			})
		}
	}
	return out
}

// written returns the identifiers node n writes: the targets of an
// assignment or ++/--, and the operand of &.
func written(n ast.Node) []*ast.Ident {
	var exprs []ast.Expr
	switch n := n.(type) {
	case *ast.AssignStmt:
		exprs = n.Lhs
	case *ast.IncDecStmt:
		exprs = []ast.Expr{n.X}
	case *ast.UnaryExpr:
		if n.Op == token.AND {
			exprs = []ast.Expr{n.X}
		}
	}
	var ids []*ast.Ident
	for _, e := range exprs {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// emptyImporter answers every import with an empty package.
type emptyImporter struct{}

func (emptyImporter) Import(path string) (*types.Package, error) {
	p := types.NewPackage(path, filepath.Base(path))
	p.MarkComplete()
	return p, nil
}
