package problems

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"testing"
)

// TestCodesWellFormed reads this package's constants: every code is
// lower-case words joined by hyphens, and no two constants share a code
// (one code, one meaning).
func TestCodesWellFormed(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "problems.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	byCode := map[string]string{}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("%s is not a string literal", name.Name)
					continue
				}
				code, _ := strconv.Unquote(lit.Value)
				n++
				if !kebab.MatchString(code) {
					t.Errorf("%s = %q is not lower-case words joined by hyphens", name.Name, code)
				}
				if other, dup := byCode[code]; dup {
					t.Errorf("%s and %s are both %q", other, name.Name, code)
				}
				byCode[code] = name.Name
			}
		}
	}
	if n < 70 {
		t.Errorf("read %d codes; the parse missed some", n)
	}
}
