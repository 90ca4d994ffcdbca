package action

import (
	"strings"

	"github.com/ccski/ccski/internal/hostview"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/providers"
)

// AgentChoice is one agent an install is for, and why.
type AgentChoice struct {
	// Agent is an install.Agents name.
	Agent string `json:"agent"`
	// Why says how the agent was chosen: "--agent", "shared folder",
	// "detected: ~/.claude exists", "detected: codex on PATH: …", or
	// "default: no agent detected".
	Why string `json:"why"`
}

// Why values besides the detected ones.
const (
	whyFlag    = "--agent"
	whyShared  = "shared folder"
	whyDefault = "default: no agent detected"
)

// chooseAgents returns the agents an install from a source is for: the
// agents named (already read by install.ParseAgents) when there are any;
// else the shared folder's label plus each agent hostview detects in env
// (its folder exists, or its command is on PATH), as `ccski doctor`
// detects them; else, when none is detected, install.ParseAgents' default
// (the shared folder and a link for Claude Code), so that a machine with
// no agent yet still gets skills every agent reads once installed.
func chooseAgents(named []string, env providers.Env) []AgentChoice {
	var out []AgentChoice
	if len(named) > 0 {
		for _, a := range named {
			out = append(out, AgentChoice{Agent: a, Why: whyFlag})
		}
		return out
	}
	for _, f := range install.Folders() {
		if f.Shared {
			out = append(out, AgentChoice{Agent: f.Agent, Why: whyShared})
			continue
		}
		h, ok := hostview.ByName(f.Agent)
		if !ok {
			continue
		}
		if found, how := h.Detect(env); found {
			out = append(out, AgentChoice{Agent: f.Agent, Why: "detected: " + how})
		}
	}
	if detected(out) {
		return out
	}
	defaults, _ := install.ParseAgents(nil)
	out = out[:0]
	for _, a := range defaults {
		out = append(out, AgentChoice{Agent: a, Why: whyDefault})
	}
	return out
}

// detected reports whether choices holds a detected agent.
func detected(choices []AgentChoice) bool {
	for _, c := range choices {
		if strings.HasPrefix(c.Why, "detected: ") {
			return true
		}
	}
	return false
}

// agentNames lists the agents of choices.
func agentNames(choices []AgentChoice) []string {
	out := make([]string, 0, len(choices))
	for _, c := range choices {
		out = append(out, c.Agent)
	}
	return out
}
