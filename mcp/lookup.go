package mcp

// How the skill tool reads its arguments and words a failed lookup. Names
// are resolved by pipeline.Snapshot.Load, the rule `ccski info` and
// prompts/get share.

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// skillArgument reads the skill tool's arguments: the name to load, or
// why the arguments are refused, in words the model acts on (the tool
// returns it as an isError result). Only "name" is accepted, as the
// input schema declares (additionalProperties: false): the tool returns a
// SKILL.md exactly as written, so an extra argument, such as the "args"
// of Claude Code's own Skill tool, could only be dropped without the
// model knowing; the message tells it to apply its arguments itself. A
// name over MaxNameArg is refused before any lookup.
func skillArgument(raw json.RawMessage) (name, refused string) {
	var args map[string]json.RawMessage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", `Invalid arguments: they must be an object with a string property "name", the skill to load, such as {"name": "pdf"}.`
		}
	}
	if msg := onlyName(args); msg != "" {
		return "", msg
	}
	v, ok := args["name"]
	if !ok {
		return "", `Invalid arguments: missing required argument "name", the skill to load; call the tool again with {"name": "..."} and a name from <available_skills>.`
	}
	if err := json.Unmarshal(v, &name); err != nil || string(v) == "null" {
		return "", `Invalid arguments: argument "name" must be a string, a name from <available_skills>, such as {"name": "pdf"}.`
	}
	if strings.TrimSpace(name) == "" {
		return "", `Invalid arguments: argument "name" must not be empty; pass a name from <available_skills>.`
	}
	if len(name) > MaxNameArg {
		return "", fmt.Sprintf("Invalid arguments: the skill name is %d bytes long, over the %d-byte limit: no skill has one so long; "+
			"use a name from <available_skills>.", len(name), MaxNameArg)
	}
	return name, ""
}

// onlyName refuses every argument but "name" (see skillArgument); "" when
// there is none.
func onlyName(args map[string]json.RawMessage) string {
	var extra []string
	for k := range args {
		if k != "name" {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	if len(extra) == 0 {
		return ""
	}
	sort.Strings(extra)
	what := "unknown argument " + extra[0]
	if len(extra) > 1 {
		what = "unknown arguments " + strings.Join(extra, ", ")
	}
	return "Invalid arguments: " + what + ": the skill tool takes only \"name\", the skill to load, and returns its instructions as written; " +
		"call it with {\"name\": \"...\"} and apply any arguments yourself."
}

// lookupMessage turns a resolution error into text for the model.
func lookupMessage(err error) string {
	var nf *pipeline.NotFoundError
	var amb *pipeline.AmbiguousError
	var hidden *pipeline.HiddenError
	var off *pipeline.PluginDisabledError
	switch {
	case errors.As(err, &nf):
		if len(nf.Suggestions) == 0 {
			return fmt.Sprintf("Skill %q not found. Use a name from <available_skills> in the skill tool's description.", nf.Name)
		}
		return fmt.Sprintf("Skill %q not found. Did you mean: %s? Call the skill tool again with one of these names.",
			nf.Name, strings.Join(nf.Suggestions, ", "))
	case errors.As(err, &amb):
		return fmt.Sprintf("Skill name %q is ambiguous: it matches %s. Call the skill tool again with one of these names.",
			amb.Name, amb.List())
	case errors.As(err, &hidden):
		what := fmt.Sprintf("%q", hidden.Name)
		if !strings.EqualFold(hidden.Name, hidden.Record.ID) {
			what += " (" + hidden.Record.ID + ")"
		}
		return fmt.Sprintf("Skill %s is hidden by this server's filters and cannot be loaded: %s. Use a name from <available_skills>.",
			what, hidden.Reason)
	case errors.As(err, &off):
		return "Skill " + off.Error() + "."
	}
	return err.Error()
}
