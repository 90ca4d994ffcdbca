package realhost

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The pinned versions of the MCP clients nobody on this project wrote:
// the official conformance suite, its stable release (npm's latest) and
// an alpha with the 2026-07-28 requirements and the Skills Extension's
// scenarios (the newest release on the registry when the pin last moved,
// 2026-11-28; newer ones are not picked up by themselves), and the MCP
// Inspector. To move a pin, see `npm view @modelcontextprotocol/conformance
// dist-tags versions`, change the version here, and run the tests that
// use it (TestConformance, TestInspector*): the cache installs the new
// version on first use.
const (
	StableSuitePackage = "@modelcontextprotocol/conformance@0.1.16"
	AlphaSuitePackage  = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
	InspectorPackage   = "@modelcontextprotocol/inspector@2.12.0"
	// NodeVersion is the Node.js the tools run on: the suite needs 22
	// (fs.globSync), the Inspector 22.19 or later, and machines often
	// have 20.
	NodeVersion = "22.23.3"
)

// MCPTools are the installed MCP clients.
type MCPTools struct {
	// Node is the node command the others run on.
	Node string
	// Stable and Alpha are the entry scripts of the two conformance
	// suites, Inspector that of the Inspector's launcher: run each as
	// Node's first argument.
	Stable, Alpha, Inspector string
}

// Command returns the argv running the script with args on Node.
func (m *MCPTools) Command(script string, args ...string) []string {
	return append([]string{m.Node, script}, args...)
}

// nodePackage is the npm package of a Node.js binary for this machine,
// installed under the alias node22, or "" when npm has none (then a
// node 22 on PATH must do).
func nodePackage() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || arch == "" {
		return ""
	}
	return "node22@npm:node-linux-" + arch + "@" + NodeVersion
}

// mcpToolsSet is the npm set of the MCP tools: the two suites side by
// side under the aliases conformance-stable and conformance-alpha.
func mcpToolsSet() *Set {
	pkgs := []string{
		"conformance-stable@npm:" + StableSuitePackage,
		"conformance-alpha@npm:" + AlphaSuitePackage,
		InspectorPackage,
	}
	if p := nodePackage(); p != "" {
		pkgs = append([]string{p}, pkgs...)
	}
	return &Set{
		What:     "the MCP conformance suite and Inspector",
		Packages: pkgs,
		// Starting each tool takes seconds on a busy machine: the
		// installed versions and entry scripts are checked instead.
		Ready: func(dir string) bool {
			m := mcpToolsIn(dir)
			nm := filepath.Join(dir, "node_modules")
			return nodeOK(m.Node) &&
				installedAt(filepath.Join(nm, "conformance-stable"), StableSuitePackage, m.Stable) &&
				installedAt(filepath.Join(nm, "conformance-alpha"), AlphaSuitePackage, m.Alpha) &&
				installedAt(filepath.Join(nm, "@modelcontextprotocol", "inspector"), InspectorPackage, m.Inspector)
		},
	}
}

var mcpTools = mcpToolsSet()

// mcpToolsIn returns the tools installed in dir.
func mcpToolsIn(dir string) *MCPTools {
	nm := filepath.Join(dir, "node_modules")
	node := filepath.Join(nm, "node22", "bin", "node")
	if nodePackage() == "" {
		node, _ = exec.LookPath("node")
	}
	return &MCPTools{
		Node:      node,
		Stable:    filepath.Join(nm, "conformance-stable", "dist", "index.js"),
		Alpha:     filepath.Join(nm, "conformance-alpha", "dist", "index.js"),
		Inspector: filepath.Join(nm, "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"),
	}
}

// installedAt reports whether the package folder dir holds the version
// of spec and its entry script.
func installedAt(dir, spec, script string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return false
	}
	var pkg struct{ Version string }
	if json.Unmarshal(data, &pkg) != nil || pkg.Version != spec[strings.LastIndex(spec, "@")+1:] {
		return false
	}
	_, err = os.Stat(script)
	return err == nil
}

// nodeOK reports whether node runs and is Node.js 22 or later.
func nodeOK(node string) bool {
	if node == "" {
		return false
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return false
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".")
	return len(major) > 2 || len(major) == 2 && major >= "22"
}

// InstallMCPTools returns the MCP conformance suites and the Inspector,
// installing them from npm the first time (per cache folder; later runs
// reuse them), and skips t when they cannot be installed for want of npm
// or its registry (see Set.Install). Where npm has no Node.js 22 for the
// machine (outside Linux), the node on PATH must be 22 or later.
func InstallMCPTools(t testing.TB) *MCPTools {
	t.Helper()
	if nodePackage() == "" {
		if node, _ := exec.LookPath("node"); !nodeOK(node) {
			t.Skipf("%s: npm has no Node.js package for %s/%s and the node on PATH is not 22 or later; install Node.js 22 to run them; skipped",
				mcpTools.What, runtime.GOOS, runtime.GOARCH)
		}
	}
	return mcpToolsIn(mcpTools.Install(t))
}
