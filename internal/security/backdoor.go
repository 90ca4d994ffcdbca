package security

// Backdoors: a shell that a remote host drives (reverse-shell), and code
// that makes itself run again later or keeps a way in (persistence).

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

func reverseShellAnchors() []anchor {
	return anchorsOf(CodeReverseShell, verifyReverseShell, "/dev/tcp/", "/dev/udp/", "nc -e", "ncat -e",
		"netcat -e", "nc -c", "ncat -c", "ncat --exec", "--sh-exec", "-e /bin/sh", "-e /bin/bash", "-e cmd",
		"mkfifo", "socat", "dup2", "tcpclient", "fsockopen(", "tcpsocket.new", "tcpsocket.open", "pty.spawn", "s_client", "xterm -display")
}

// reverseShellSigns are what makes a connection a shell: an interactive
// shell, its standard streams joined to the connection.
var reverseShellLine = regexp.MustCompile(`(?i)(?:\b(?:ba|z|k|da)?sh\s+-i\b|/bin/(?:ba|z)?sh\b|cmd\.exe|powershell|0>&1|0<&\d|>&\s*/dev/tcp|exec\s+\d+<>|\bexec:|\bsystem:|pty\b|\biex\b|invoke-expression|subprocess\.call|proc_open|shell_exec|\bexec\b|\bspawn\b)`)

// verifyReverseShell: a connection to a host whose end is a shell, on
// one line (bash -i >& /dev/tcp/h/p 0>&1, nc -e /bin/sh, mkfifo ... | sh
// -i | nc, socat tcp:... exec:bash) or in one file (Python, PowerShell,
// PHP, Ruby: a socket, its streams duplicated, a shell).
func verifyReverseShell(f *file, start, end int) (string, bool) {
	d := f.data
	if f.is(classMarkdown) && (tableRow(d, start) || fenceIntroNegated(f, start)) {
		return "", false
	}
	if f.is(classDoc) && !inFence(f, start) && !inCodeSpan(d, start) {
		s, _ := sentenceBounds(d, start, end)
		if negated(d, s, start) {
			return "", false
		}
	}
	ls, le := lineBounds(d, start)
	line := d[ls:le]
	a := anchorText(d, start, end)
	ok := false
	switch a {
	case "/dev/tcp/", "/dev/udp/":
		ok = reverseShellLine.Match(line) && !bytes.Contains(line, []byte("</dev/tcp")) ||
			bytes.Contains(line, []byte(">&")) && bytes.Contains(line, []byte("-i"))
	case "nc -e", "ncat -e", "netcat -e", "nc -c", "ncat -c", "ncat --exec", "--sh-exec", "-e /bin/sh",
		"-e /bin/bash", "-e cmd":
		ok = remoteEndpoint.Match(line)
	case "mkfifo":
		l := strings.ToLower(string(line))
		ok = (strings.Contains(l, "nc ") || strings.Contains(l, "ncat") || strings.Contains(l, "telnet") ||
			strings.Contains(l, "s_client")) && reverseShellLine.Match(line)
	case "socat":
		l := strings.ToLower(string(line))
		ok = strings.Contains(l, "tcp") && (strings.Contains(l, "exec:") || strings.Contains(l, "system:"))
	case "s_client":
		ok = bytes.Contains(line, []byte("mkfifo")) || bytes.Contains(line, []byte("/bin/sh"))
	case "xterm -display":
		ok = remoteEndpoint.Match(line)
	default:
		// A socket in the file, its streams given to a shell.
		l := strings.ToLower(string(d))
		socket := strings.Contains(l, "socket") || strings.Contains(l, "tcpclient") || strings.Contains(l, "fsockopen")
		shell := strings.Contains(l, "/bin/sh") || strings.Contains(l, "/bin/bash") || strings.Contains(l, "cmd.exe") ||
			strings.Contains(l, "pty.spawn")
		switch a {
		case "dup2", "pty.spawn":
			ok = socket && (shell || strings.Contains(l, "subprocess"))
		case "tcpclient":
			ok = strings.Contains(l, "getstream") && (strings.Contains(l, "iex") || strings.Contains(l, "invoke-expression"))
		case "fsockopen(", "tcpsocket.new", "tcpsocket.open":
			ok = reverseShellLine.Match(line) || shell && (strings.Contains(l, "exec") || strings.Contains(l, "spawn"))
		}
	}
	if !ok || loopback.Match(line) && !remoteEndpoint.Match(loopback.ReplaceAll(line, nil)) {
		return "", false // to this machine: a test of a detection rule
	}
	return "opens a shell that a remote host drives (" + excerpt(d, ls, le) + "): whoever listens there runs " +
		"commands on the user's machine; remove it", true
}

// loopback is this machine's address.
var loopback = regexp.MustCompile(`\b127\.0\.0\.1\b|\blocalhost\b|\[::1\]`)

// remoteEndpoint is a host and port: an IP address, or a host name, then
// a port.
var remoteEndpoint = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}\b|\b[a-z0-9-]+(?:\.[a-z0-9-]+)+[ :]\d{2,5}\b|\$\w+\s+\$\w+`)

// Persistence: where code is made to run again later.
func persistenceAnchors() []anchor {
	return slices.Concat(
		anchorsOf(CodePersistence, verifyPersist("a shell start-up file"), ".bashrc", ".zshrc", ".bash_profile",
			".zprofile", ".zshenv", ".zlogin", "/.profile", "config.fish", "/etc/profile", "profile.d", "$profile"),
		anchorsOf(CodePersistence, verifyPersist("the crontab"), "crontab", "/etc/cron", "/var/spool/cron"),
		anchorsOf(CodePersistence, verifyPersist("a launchd agent"), "launchagents", "launchdaemons"),
		anchorsOf(CodePersistence, verifyPersist("a systemd unit"), "systemd/user", "/etc/systemd/system", "execstart="),
		anchorsOf(CodePersistence, verifyPersist("the Windows Run key"), `currentversion\run`, `currentversion/run`),
		anchorsOf(CodePersistence, verifyPersist("a scheduled task"), "schtasks", "register-scheduledtask"),
		anchorsOf(CodePersistence, verifyPersist("the Startup folder"), `start menu\programs\startup`, "shell:startup"),
		anchorsOf(CodePersistence, verifyPersist("a git hook"), "/hooks/post-", "/hooks/pre-", "core.hookspath"),
		anchorsOf(CodePersistence, verifyAuthorizedKeys, "authorized_keys"),
		anchorsOf(CodePersistence, verifySudoers, "nopasswd"),
	)
}

// persistedRisk is what makes a command kept for later a backdoor: it
// downloads, decodes or connects, or runs from a hidden or temporary
// place.
var persistedRisk = regexp.MustCompile(`(?i)\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|nc|ncat|base64|frombase64string|iex|invoke-expression)\b|\beval\s+["']?\$\((?:curl|wget)|-enc(?:odedcommand)?\b|\|\s*(?:ba|z)?sh\b|/dev/tcp|-w(?:indowstyle)?\s+hidden|/tmp/|\$env:temp|%temp%|appdata`)

// verifyPersist: code written where it runs again (a start-up file,
// crontab, launchd, systemd, a Run key, a scheduled task, a git hook),
// when what is written downloads or decodes code, connects somewhere, or
// runs a file from a hidden or temporary place, or a file the skill
// downloads.
func verifyPersist(where string) verifier {
	return func(f *file, start, end int) (string, bool) {
		d := f.data
		if f.is(classMarkdown) && (tableRow(d, start) || fenceIntroNegated(f, start)) {
			return "", false
		}
		if f.is(classDoc) && !inFence(f, start) && !(inCodeSpan(d, start) && f.is(classSkill)) {
			return "", false // prose and a reference's inline code name these places; code writes them
		}
		ls, le := lineBounds(d, start)
		line := d[ls:le]
		l := strings.ToLower(string(line))
		a := anchorText(d, start, end)
		// The block the line belongs to: a heredoc or a plist written
		// with it, up to 40 lines on.
		block := line
		if i := bytes.Index(line, []byte("<<")); i >= 0 || a == "launchagents" || a == "launchdaemons" ||
			a == "systemd/user" || a == "/etc/systemd/system" {
			block = d[ls:lineAfter(d, le, 40)]
		}
		switch {
		case a == "execstart=":
			// ExecStart= is the unit itself.
		case a == "crontab":
			if !crontabWrite.MatchString(l) {
				return "", false // crontab -l only reads it
			}
		case a == "core.hookspath":
			if !strings.Contains(l, "--global") && !strings.Contains(l, "--system") {
				return "", false
			}
			block = d // hooks kept in the skill run in every repository
		case a == "schtasks" || a == "register-scheduledtask":
		default:
			// The place must be what the line writes to (> ~/.bashrc,
			// tee -a, cp ... ~/Library/LaunchAgents/, reg add ...\Run),
			// or what launchctl or systemctl loads.
			if !writesTarget(d, start, end) && !strings.Contains(l, "launchctl") && !strings.Contains(l, "systemctl") &&
				!(a == "launchagents" || a == "launchdaemons") || (a == "launchagents" || a == "launchdaemons") &&
				!writesTarget(d, start, end) && !strings.Contains(l, "launchctl") {
				return "", false
			}
		}
		if a == "schtasks" && !strings.Contains(l, "/create") {
			return "", false
		}
		// What is kept downloads, decodes or connects, or runs from a
		// hidden place; or, for a program kept to run at login, it is a
		// file and the skill downloads one.
		program := a == "launchagents" || a == "launchdaemons" || a == "systemd/user" || a == "/etc/systemd/system" ||
			strings.Contains(a, "run") || strings.Contains(a, "startup") || a == "schtasks" || a == "register-scheduledtask"
		// A hidden folder counts when the skill downloads or the command
		// runs unseen (&, >/dev/null): a tool's own dot-folder is common.
		hidden := hiddenRisk(block) && (downloads(f) || suspectRun(block))
		if !persistedRisk.Match(block) && !hidden && !(program && downloads(f) && namesFile.Match(block)) {
			return "", false
		}
		return "makes code run again later through " + where + " (" + excerpt(d, ls, le) + "), and what it runs " +
			"downloads, decodes or connects, or comes from a hidden or temporary place: a skill has no reason to " +
			"install itself; remove it", true
	}
}

var (
	// crontabWrite is a crontab command that installs a table: crontab
	// -, crontab FILE, | crontab, crontab -e (not crontab -l).
	crontabWrite = regexp.MustCompile(`\|\s*crontab\b|crontab\s+(?:-\s|-$|-e\b|[^-\s])`)
	namesFile    = regexp.MustCompile(`[/\\][\w.-]+`)
)

// hiddenRisk reports whether a block names a hidden folder other than
// the well-known ones tools install into (~/.cargo/bin, ~/.local/bin).
func hiddenRisk(block []byte) bool {
	for _, m := range hiddenPart.FindAll(block, -1) {
		if !knownDotDirs[strings.ToLower(string(m[1:]))] {
			return true
		}
	}
	return false
}

var (
	hiddenPart   = regexp.MustCompile(`[/\\]\.[A-Za-z][\w.-]*`)
	knownDotDirs = set(".local", ".config", ".cache", ".cargo", ".bun", ".deno", ".npm", ".npm-global", ".nvm",
		".pyenv", ".rbenv", ".volta", ".sdkman", ".dotnet", ".krew", ".poetry", ".fly", ".yarn", ".pnpm", ".go",
		".asdf", ".rye", ".pixi", ".opencode", ".claude", ".codex", ".docker", ".venv", ".bashrc", ".zshrc",
		".profile", ".bash_profile", ".zprofile", ".zshenv", ".git", ".githooks", ".husky", ".tfenv", ".goenv",
		".jenv", ".nodenv", ".rustup", ".juliaup", ".ghcup", ".elan", ".foundry", ".sst", ".console-ninja",
		".composer", ".gem", ".m2", ".gradle", ".linkerd2", ".istioctl", ".tmux", ".vim", ".emacs.d", ".oh-my-zsh",
		".zsh", ".fzf", ".atuin", ".starship", ".wasmtime", ".wasmer", ".modular", ".ollama", ".aider", ".gemini")
)

// writesTarget reports whether the path token at [start, end) is what
// its line writes: after > or >>, tee, -Destination, -Path or -o, the
// last word of cp, mv, install, ln or copy, the key of reg add or
// New-ItemProperty, a file opened to append or write.
func writesTarget(d []byte, start, end int) bool {
	ls, le := lineBounds(d, start)
	s, e := pathToken(d, start, end)
	before := strings.ToLower(strings.TrimRight(string(d[ls:s]), " \t\"'"))
	for _, w := range []string{">", ">>", "tee", "tee -a", "-destination", "-path", "-o", "--output", "reg add",
		"-literalpath", "copy-item", "appendfile(", "writefile(", "appendfilesync(", "writefilesync(", "open(",
		"write_text(", "path("} {
		if strings.HasSuffix(before, w) {
			return true
		}
	}
	line := strings.ToLower(string(d[ls:le]))
	rest := strings.TrimSpace(strings.Trim(string(d[e:le]), "\"' "))
	fields := strings.Fields(before)
	if len(fields) > 0 {
		cmd := strings.Trim(fields[0], "(")
		if cmd == "sudo" && len(fields) > 1 {
			cmd = fields[1]
		}
		if oneOf(cmd, "cp", "mv", "install", "ln", "copy", "move", "ditto", "rsync") &&
			(rest == "" || strings.HasPrefix(rest, "&&") || strings.HasPrefix(rest, ";") || strings.HasPrefix(rest, "2>")) {
			return true
		}
		if oneOf(cmd, "reg", "new-itemproperty", "set-itemproperty") {
			return true
		}
	}
	return strings.Contains(line, "open(") && (strings.Contains(line, "'a'") || strings.Contains(line, "\"a\"") ||
		strings.Contains(line, "'w'") || strings.Contains(line, "\"w\""))
}

// lineAfter returns the end of the n-th line after the one ending at le.
func lineAfter(d []byte, le, n int) int {
	e := le
	for ; n > 0 && e < len(d); n-- {
		e = lineEnd(d, e+1)
	}
	return e
}

// writes reports whether a line writes a file: a redirection, tee, cat
// >, an append or write call, Add-Content, Set-Content, cp or mv into it.
func writes(l string) bool {
	for _, w := range []string{">>", "> ", ">\"", ">$", "tee ", "open(", "appendfile", "writefile", "write_text",
		"add-content", "set-content", "out-file", "new-itemproperty", "reg add", "set-itemproperty", "cp ", "mv ",
		"copy ", "install ", "ln -s", "launchctl", "systemctl", "printf ", "echo "} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// downloads reports whether the file downloads something.
func downloads(f *file) bool {
	table, _ := anchors()
	for _, h := range hitsOf(f) {
		if table[h.id].flow == flowDownload {
			if _, ok := table[h.id].verify(f, h.start, h.end); ok {
				return true
			}
		}
	}
	return false
}

// sshKeyLiteral is a public key written out: ssh-ed25519 AAAA...
var sshKeyLiteral = regexp.MustCompile(`\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[0-9A-Za-z+/]{20,}`)

// verifyAuthorizedKeys: a key written into authorized_keys, which lets
// its owner log in.
func verifyAuthorizedKeys(f *file, start, end int) (string, bool) {
	d := f.data
	if f.is(classMarkdown) && (tableRow(d, start) || fenceIntroNegated(f, start)) {
		return "", false
	}
	ls, le := lineBounds(d, start)
	line := d[ls:le]
	l := strings.ToLower(string(line))
	if !writes(l) || !sshKeyLiteral.Match(line) && !persistedRisk.Match(line) {
		return "", false
	}
	// The user's own file (a server's other account, /home/jamie/.ssh,
	// is what provisioning sets up).
	s, _ := pathToken(d, start, end)
	if p := string(d[s:end]); !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "$HOME/") &&
		!strings.HasPrefix(p, "${HOME}/") && !strings.HasPrefix(p, "%USERPROFILE%") && !strings.HasPrefix(p, "$env:USERPROFILE") {
		return "", false
	}
	return "adds an SSH key to authorized_keys (" + excerpt(d, ls, le) + "), which lets whoever holds the " +
		"private key log in to the user's machine: remove it", true
}

// verifySudoers: passwordless sudo granted in the sudoers files.
func verifySudoers(f *file, start, end int) (string, bool) {
	d := f.data
	if f.is(classMarkdown) && (tableRow(d, start) || fenceIntroNegated(f, start)) {
		return "", false
	}
	ls, le := lineBounds(d, start)
	l := strings.ToLower(string(d[ls:le]))
	if !strings.Contains(l, "sudoers") && !strings.Contains(l, "visudo") || !strings.Contains(l, "all") {
		return "", false
	}
	return "grants passwordless sudo (" + excerpt(d, ls, le) + "): every program the user runs can then act as " +
		"root without asking; remove it", true
}
