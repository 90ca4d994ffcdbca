package validate

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/ccski/ccski/internal/safetext"
	"github.com/ccski/ccski/internal/skillmd"
)

// checkControl reports a name or description that holds control
// characters, by the rule discovery applies (skillmd.CleanName,
// skillmd.CleanText): discovery replaces them with U+FFFD and warns with
// the same code. Types are checked elsewhere; only text is read here.
func (c *checker) checkControl(got map[string]field, start int) {
	for _, key := range []string{"name", "description"} {
		f, ok := got[key]
		if !ok {
			continue
		}
		v := f.val
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			continue
		}
		clean := skillmd.CleanText
		if key == "name" {
			clean = skillmd.CleanName
		}
		if _, found := clean(v.Value); found != nil {
			c.add(CodeControlCharacters, start+v.Line-1, v.Column, fmt.Sprintf("%s holds control characters (%s), "+
				"which a terminal acts on (setting the window title, clearing the screen) or which reorder text; "+
				"ccski shows each as U+FFFD, but agents that read the file itself get them: delete them", key, safetext.Describe(found)), "")
		}
	}
}
