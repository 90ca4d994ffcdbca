package filters

import "github.com/ccski/ccski/pipeline"

// StageInfo describes one of the filter stages Build returns.
type StageInfo struct {
	// Name is the stage's name, as pipeline.Drop.Stage gives it.
	Name string
	// Doc says what the stage does.
	Doc string
}

// stage is one filter stage: what it is, and how Build makes it from the
// parsed settings and the scope of the scan.
type stage struct {
	StageInfo
	build func(p parsed, sc *scope) pipeline.Stage
}

// stages is the one list of the filter stages, in their order of
// application (see the package documentation): the user's choices (state
// and exclude) before the dedupes (include's and the path dedupe), so that
// every copy a dedupe drops passed them, and excluding the winner of a
// skill promotes its next copy.
var stages = []stage{
	{StageInfo{Name: "state", Doc: "keeps enabled skills, disabled ones or both (see States)"},
		func(p parsed, _ *scope) pipeline.Stage { return p.state }},
	{StageInfo{Name: "exclude", Doc: "drops every record an exclude token matches"},
		func(p parsed, sc *scope) pipeline.Stage { return &exclude{tokens: p.exclude, scope: sc} }},
	{StageInfo{Name: "include", Doc: "keeps the union of the include tokens' selections, one copy of each skill for deduping tokens"},
		func(p parsed, sc *scope) pipeline.Stage { return newInclude(p.include, p.prio, sc) }},
	{StageInfo{Name: "path-dedupe", Doc: "drops a record whose resolved folder was already kept"},
		func(parsed, *scope) pipeline.Stage { return PathDedupe() }},
}

// Stages describes the stages Build returns, in their order.
func Stages() []StageInfo {
	out := make([]StageInfo, len(stages))
	for i, s := range stages {
		out[i] = s.StageInfo
	}
	return out
}

// AgentAll is the agent setting under which a skill is off only when
// every host that reads it turns it off.
const AgentAll = "all"

// States returns the values of the state setting that NewState accepts,
// the default first: the valid values of the state key of ccski.yaml.
func States() []string { return []string{StateEnabled, StateDisabled, StateAll} }
