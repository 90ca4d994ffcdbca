package arch

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the module's folder, seen from this package.
const root = "../.."

// doors are the top-level folders that may hold Go code.
var doors = []string{"cmd", "providers", "pipeline", "filters", "mcp", "configs", "integration", "internal"}

// pkg is one Go package of the module: its folder relative to the module
// root ('/'-separated) and the module packages its non-test files import.
type pkg struct {
	dir     string
	imports []string
}

// modulePath reads the module path from go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(p)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// packages lists every folder of the module holding non-test Go files,
// with the module packages those files import.
func packages(t *testing.T) map[string]*pkg {
	t.Helper()
	mod := modulePath(t) + "/"
	pkgs := map[string]*pkg{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		k := pkgs[rel]
		if k == nil {
			k = &pkg{dir: rel}
			pkgs[rel] = k
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if dep, ok := strings.CutPrefix(path, mod); ok && !slices.Contains(k.imports, dep) {
				k.imports = append(k.imports, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found only %d packages under %s: is the walk looking at the module?", len(pkgs), root)
	}
	return pkgs
}

var (
	layerRow = regexp.MustCompile(`^\|\s*(\d+)\s[^|]*\|([^|]*)\|`)
	backtick = regexp.MustCompile("`([^`]+)`")
)

// layers reads internal/README.md's table: each package's layer number.
func layers(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "internal", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := layerRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, b := range backtick.FindAllStringSubmatch(m[2], -1) {
			if prev, ok := out[b[1]]; ok {
				t.Errorf("internal/README.md puts %s in layers %d and %d", b[1], prev, n)
			}
			out[b[1]] = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("internal/README.md has no layer table")
	}
	return out
}

// TestLayers fails on an import that reaches up a layer, and on a
// package internal/README.md does not place.
func TestLayers(t *testing.T) {
	pkgs, layer := packages(t), layers(t)
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		n, ok := layer[dir]
		if !ok {
			t.Errorf("package %s stands in no layer of internal/README.md: add it to the layer whose packages it may import", dir)
			continue
		}
		for _, dep := range pkgs[dir].imports {
			if m, ok := layer[dep]; ok && m > n {
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only its own layer or lower ones; "+
					"move what it needs down, or pass it in", dir, n, dep, m)
			}
		}
	}
	for dir := range layer {
		if _, ok := pkgs[dir]; !ok {
			t.Errorf("internal/README.md places %s, which is not a package of the module", dir)
		}
	}
}

// TestDoors fails on Go code outside the seven top-level doors and
// internal/.
func TestDoors(t *testing.T) {
	for dir := range packages(t) {
		top, _, _ := strings.Cut(dir, "/")
		if !slices.Contains(doors, top) {
			t.Errorf("package %s stands outside the top-level doors %v: move it under internal/", dir, doors)
		}
	}
}

// TestReadmeLayout keeps README.md's Layout table equal to the package
// list: a row per package, and no row naming a folder that is gone.
func TestReadmeLayout(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]bool{}
	for line := range strings.Lines(section) {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		if m := backtick.FindStringSubmatch(cells[1]); m != nil {
			rows[strings.TrimSuffix(m[1], "/")] = true
		}
	}
	pkgs := packages(t)
	for dir := range pkgs {
		if !rows[dir] {
			t.Errorf("README.md's Layout table has no row for package %s", dir)
		}
	}
	for dir := range rows {
		if _, ok := pkgs[dir]; ok {
			continue
		}
		if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir))); err != nil || !st.IsDir() {
			t.Errorf("README.md's Layout table has a row for %s, which is not a folder of the module", dir)
		}
	}
}
