package validate

import "github.com/ccski/ccski/internal/report"

// Kind selects what a validation checks: skills (the default), slash
// commands, or both.
type Kind string

// The kinds.
const (
	KindSkill   Kind = "skill"
	KindCommand Kind = "command"
	KindAll     Kind = "all"
)

// Kinds lists every kind in documentation order.
var Kinds = []Kind{KindSkill, KindCommand, KindAll}

// ParseKind checks a kind given by a user.
func ParseKind(s string) (Kind, error) { return report.ParseName("kind", s, Kinds) }

// Skills reports whether k checks skills; the zero Kind does.
func (k Kind) Skills() bool { return k != KindCommand }

// Commands reports whether k checks slash commands.
func (k Kind) Commands() bool { return k == KindCommand || k == KindAll }
