package security

import (
	"net/url"
	"regexp"
	"strings"
)

// Official installers. Piping a download into a shell is remote-code, an
// error: what runs is whatever the server sends that day. When the
// server is the tool's own (curl -fsSL https://sh.rustup.rs | sh), the
// script is as trustworthy as the tool the user asked for, and the line
// is how the tool's documentation says to install it; the scan reports
// it as known-installer, a warning, so that mcp.scan: block does not
// withhold every skill that installs rustup, uv or Homebrew. The list
// is of the install scripts' own hosts and paths, never of a host that
// serves anyone's files (raw.githubusercontent.com counts only under the
// tool's own repository).

// knownInstallers are the hosts, or host/path prefixes, of widely used
// official install scripts.
var knownInstallers = []string{
	"sh.rustup.rs", "static.rust-lang.org/rustup",
	"get.docker.com", "test.docker.com",
	"raw.githubusercontent.com/homebrew/install/", "brew.sh",
	"raw.githubusercontent.com/nvm-sh/nvm/", "raw.githubusercontent.com/creationix/nvm/",
	"raw.githubusercontent.com/ohmyzsh/ohmyzsh/", "raw.githubusercontent.com/robbyrussell/oh-my-zsh/", "install.ohmyz.sh",
	"bun.sh/install", "bun.com/install",
	"deno.land/install.sh", "deno.land/install.ps1", "deno.land/x/install/",
	"astral.sh/uv/", "astral.sh/ruff/",
	"install.python-poetry.org",
	"pyenv.run", "raw.githubusercontent.com/pyenv/pyenv-installer/",
	"get.sdkman.io",
	"starship.rs/install.sh",
	"tailscale.com/install.sh", "pkgs.tailscale.com/",
	"ollama.com/install.sh", "ollama.ai/install.sh", "ollama.com/install.ps1",
	"get.k3s.io", "get.rke2.io", "get.k0s.sh",
	"mise.run", "mise.jdx.dev/install.sh",
	"get.scoop.sh",
	"community.chocolatey.org/install.ps1", "chocolatey.org/install.ps1",
	"sdk.cloud.google.com",
	"get.pnpm.io/install.sh", "get.pnpm.io/install.ps1",
	"fnm.vercel.app/install",
	"get.volta.sh", "volta.sh",
	"get.helm.sh", "raw.githubusercontent.com/helm/helm/",
	"install.determinate.systems/nix", "nixos.org/nix/install",
	"fly.io/install.sh", "fly.io/install.ps1",
	"get.jetify.com/devbox", "get.jetpack.io/devbox",
	"claude.ai/install.sh", "claude.ai/install.ps1", "opencode.ai/install",
	"sh.vector.dev",
	"get.rvm.io",
	"install.julialang.org",
	"pixi.sh/install.sh", "pixi.sh/install.ps1",
	"get-ghcup.haskell.org",
	"dot.net/v1/dotnet-install", "dotnet.microsoft.com/download/dotnet/scripts/",
	"deb.nodesource.com/setup", "rpm.nodesource.com/setup",
	"raw.githubusercontent.com/k3d-io/k3d/", "raw.githubusercontent.com/rancher/k3d/",
	"raw.githubusercontent.com/golangci/golangci-lint/",
	"setup.atuin.sh",
	"run.linkerd.io/install", "fluxcd.io/install.sh", "istio.io/downloadistio",
	"cli.doppler.com/install.sh",
	"get.pulumi.com",
	"get.opentofu.org/install-opentofu.sh",
	"install.zerotier.com",
	"raw.githubusercontent.com/kubernetes-sigs/kind/",
	"raw.githubusercontent.com/sdispater/poetry/",
	"cli.moonrepo.dev/install", "moonrepo.dev/install",
	"get.tenv.io",
	"sh.brew.sh",
	"get.gitpod.io",
	"rye.astral.sh/get", "rye-up.com/get",
	"install.spack.io",
	"awscli.amazonaws.com/awscliv2", "awscli.amazonaws.com/awscli-exe-",
}

// bareInstaller is a downloader given a host and path without a scheme.
var bareInstaller = regexp.MustCompile(`(?i)\b(?:irm|iwr|curl|wget|invoke-restmethod|invoke-webrequest)\s+(?:-\S+\s+)*["']?([a-z0-9-]+(?:\.[a-z0-9-]+)+/[^\s"'|)]*)`)

// installerURL finds the URL of a download on a line.
var installerURL = regexp.MustCompile(`(?i)https://[^\s"'` + "`" + `)|]+`)

// knownInstaller reports whether every URL the line downloads from is an
// official installer's (see knownInstallers), over HTTPS.
func knownInstaller(line []byte) bool {
	urls := installerURL.FindAll(line, -1)
	if len(urls) == 0 {
		// irm bun.sh/install.ps1 | iex: a host without its scheme,
		// fetched over HTTPS.
		if m := bareInstaller.FindSubmatch(line); m != nil {
			urls = [][]byte{append([]byte("https://"), m[1]...)}
		}
	}
	if len(urls) == 0 || containsFold(line, "http://") {
		return false
	}
	for _, raw := range urls {
		u, err := url.Parse(strings.TrimRight(string(raw), ".,;"))
		if err != nil || u.User != nil || u.Port() != "" {
			return false
		}
		where := strings.ToLower(u.Host + u.EscapedPath())
		known := false
		for _, k := range knownInstallers {
			if where == k || strings.HasPrefix(where, k) && (strings.HasSuffix(k, "/") || strings.HasSuffix(k, "-") ||
				strings.IndexByte("/?#._-", where[len(k)]) >= 0 || strings.HasSuffix(k, "setup") || strings.HasSuffix(k, "install")) {
				known = true
				break
			}
		}
		if !known {
			return false
		}
	}
	return true
}

// verifyKnownInstaller: the pattern of remote-code (see verifyRemote)
// with an official installer's URL.
func verifyKnownInstaller(f *file, start, end int) (string, bool) {
	if _, ok := remoteRun(f, start, end); !ok {
		return "", false
	}
	ls, le := lineBounds(f.data, start)
	if !knownInstaller(f.data[ls:le]) {
		return "", false
	}
	return "runs a tool's official install script from the network (" + excerpt(f.data, ls, le) + "): it is as " +
		"trustworthy as the tool, and runs whatever its site serves that day; pin a version or check the script's " +
		"digest where the vendor publishes one", true
}
