package security

// Data flow: where a value read from a secret, downloaded or decoded
// goes. A secret that reaches the network is data-exfiltration; a
// download that reaches an interpreter is remote-code; decoded data that
// is run is obfuscated-code. Each is found whatever the lines between:
// the value may pass through variables, function returns, callbacks and
// files (a secret written to /tmp/x and sent with curl -d @/tmp/x).
//
// It is the design of the phrase rules again: flow anchors (where
// secrets live, downloaders, decoders, what sends and what runs) are
// found in the one pass of the matcher, and only a file that holds a
// source is read statement by statement. A statement is a line of code
// (in Markdown, a line of a code block or an inline code span), joined
// with the lines of a call or a literal it leaves open, and cut at ;, &&
// and ||. Each statement's value is the sources it holds and the tainted
// names and files it mentions; the names it assigns (x = ..., NAME=...,
// as f, for x in, read x, (res) =>, .append(...)) and the files it
// writes take that value, and a function that returns it passes it on.
// The file is read twice, so that a function defined below its use is
// known. It is a reading of names, not a parser: a name reused for
// something else keeps its taint, and a value passed through a
// parameter is followed only into a function that sends or runs.

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// flowRole is what a flow anchor marks.
type flowRole uint8

const (
	flowNone       flowRole = iota
	flowSecret              // reads a secret: the environment, a keychain, the clipboard
	flowSecretFile          // names where a secret is kept: a credential file, a browser or wallet store
	flowDownload            // fetches data from the network
	flowDecode              // decodes data
	flowNet                 // sends data over the network
	flowExec                // runs code
	flowHint                // a word that says encoded data is around (base64, decode): only opens the code view's decoding
	flowView                // something the code view undoes (a line continuation, a split string): only opens the view
)

// What a value carries, as bits.
const (
	taintSecret uint8 = 1 << iota // a secret's content
	taintDownload
	taintDecode
	// taintSecretPath is where a secret is kept, not yet read: in
	// Python or JavaScript a path is a string until a call reads it
	// (a list of sensitive paths to look for is no secret).
	taintSecretPath
)

func roleTaint(r flowRole) uint8 {
	switch r {
	case flowSecret:
		return taintSecret
	case flowSecretFile:
		return taintSecretPath
	case flowDownload:
		return taintDownload
	case flowDecode:
		return taintDecode
	}
	return 0
}

// flowAnchors makes anchors of the role, each checked by accept, which
// returns a label for the message.
func flowAnchors(role flowRole, accept verifier, texts ...string) []anchor {
	out := make([]anchor, len(texts))
	for i, t := range texts {
		out[i] = anchor{text: t, flow: role, verify: accept}
	}
	return out
}

func dataFlowAnchors() []anchor {
	return slices.Concat(
		// Secrets.
		flowAnchors(flowSecretFile, acceptSecretPath, credentialDirs...),
		flowAnchors(flowSecretFile, acceptSecretPath, credentialNames...),
		flowAnchors(flowSecretFile, acceptSecretPath, ".npmrc", ".credentials.json", ".codex/auth.json",
			".config/solana", "wallet.dat", "exodus.wallet", "/exodus", ".electrum", "/keystore",
			"nkbihfbeogaeaoehlefnkodbefgpgknn", "local extension settings", "cookies.sqlite", "logins.json",
			"key4.db", "_history", "consolehost_history", ".env"),
		flowAnchors(flowSecretFile, acceptBrowserFile, "cookies", "login data", "local state", "web data"),
		flowAnchors(flowSecret, acceptSecretCommand, "config view --raw", "gh auth token", "export-secret-keys", "get secret",
			"pbpaste", "get-clipboard", "xclip -o", "xsel -o", "xsel --output", "security find-", "dump-keychain"),
		flowAnchors(flowSecret, acceptEnvDump, "os.environ", "/environ", "process.env", "printenv", "env |",
			"env|", "$(env", "env >", "get-childitem env:", "gci env:", "ls env:", "dir env:",
			"getenvironmentvariables", "env.to_h", "env.to_a", "%env", "system.getenv()"),
		// Downloads.
		flowAnchors(flowDownload, acceptDownload, "curl", "wget", "requests.get", "httpx.get", "urlopen",
			"urlretrieve", "fetch(", "https.get(", "http.get(", "axios.get", "invoke-webrequest", "iwr", "irm",
			"invoke-restmethod", "downloadstring", "downloadfile", "downloaddata", "certutil", "bitsadmin",
			"start-bitstransfer", "open-uri", "net::http.get"),
		// Decoders.
		flowAnchors(flowDecode, acceptDecode, flowDecoders()...),
		flowAnchors(flowDecode, acceptDecode, "base64 -d", "fromhex", "unhexlify", "decode64",
			"decodestring", "buffer.from", "pack(", "gzinflate", "gzuncompress", "str_rot13", "rot13",
			"base64.stdencoding", "hex.decodestring", "bytes(["),
		flowAnchors(flowHint, acceptDecode, `\x`),
		flowAnchors(flowHint, acceptDownload, "base64", "decode", "encoded"),
		flowAnchors(flowView, acceptAny, "'+", "' +", "\"+",
			"\" +", "+'", "+ '", "+\"", "+ \"", "' . '", "\" . \"", ".join(", "getattr", "__import__",
			"import_module", "__builtins__", "globals()", "locals()", "vars(", "window[", "global[", "globalthis[",
			"this[", "$shell", "${shell}", "$bash"),
		// Sinks.
		flowAnchors(flowNet, acceptNet, "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "/dev/tcp/",
			"/dev/udp/", "scp", "rsync", "sftp", "ftp", "mail", "mailx", "sendmail", "mutt", "smtplib", "dig",
			"nslookup", "host", "drill", "resolve-dnsname", "gethostbyname", "getaddrinfo", "dns.resolve",
			"dns.lookup", "ping", "invoke-restmethod", "invoke-webrequest", "iwr", "irm", "uploadstring",
			"uploadfile", "uploaddata", "uploadvalues", ".post(", ".put(", ".patch(", "urlopen", "request(",
			"fetch(", "axios", "sendbeacon", "xmlhttprequest", "websocket(", "socket(", "create_connection",
			"net.connect", "createconnection", "tls.connect", "net.dial", "tcpsocket", "gist create",
			"git push", "storbinary", "http.post", "postform"),
		flowAnchors(flowExec, acceptExec, "eval", "exec", "execfile", "function(", "compile(", "system(",
			"popen", "subprocess", "child_process", "execsync", "spawn", "exec.command", "pickle.load",
			"marshal.load", "yaml.load(", "dill.load", "runinthiscontext", "runinnewcontext",
			"invoke-expression", "iex", "scriptblock]::create", "instance_eval", "create_function",
			"sh -c", "bash -c", "zsh -c", "python -c", "python3 -c", "perl -e", "node -e", "ruby -e"),
	)
}

// flowDecoders are the decoders of obfuscated-code whose output is a
// value (not -encodedcommand, which runs what it decodes itself).
func flowDecoders() []string {
	var out []string
	for _, d := range decoders {
		if d != "-encodedcommand" && d != "-enc " {
			out = append(out, d)
		}
	}
	return out
}

// Accepting flow anchors.

// acceptSecretPath: a place secrets are kept, written as a path, that
// the statement reads (not one it writes to, nor a key it uses to log
// in: ssh -i, IdentityFile, ssh-add, --kubeconfig).
func acceptSecretPath(f *file, start, end int) (string, bool) {
	d := f.data
	a := anchorText(d, start, end)
	if isWordByte(d[start]) && !wordStart(d, start) && a != "_history" {
		return "", false
	}
	// Extend to the whole path token.
	s, e := pathToken(d, start, end)
	tok := strings.ToLower(string(d[s:e]))
	switch {
	case a == "_history":
		if !historyFile.MatchString(tok) {
			return "", false
		}
	case a == ".env":
		if start > 0 && (isWordByte(d[start-1]) || d[start-1] == '$') || end < len(d) && (isWordByte(d[end]) || d[end] == '-') {
			return "", false
		}
		if hasPrefixIn(strings.ToLower(string(d[end:min(len(d), end+10)])), ".example", ".sample", ".template",
			".dist", ".defaults") {
			return "", false
		}
		// Read, or kept in a name to be read: not a setting that names
		// the file (env_file = ".env" is how a library loads it).
		ls, le := lineBounds(d, start)
		line := strings.ToLower(string(d[ls:le]))
		read := false
		for _, r := range []string{"open(", "read", "cat ", "path(", "dotenv_values", "get-content", "type ", "< ",
			"<", "def ", "function ", "cp ", "copy ", "tar ", "zip ", "curl", "-f ", "@"} {
			read = read || strings.Contains(line, r)
		}
		if !read {
			return "", false
		}
	case a == "/keystore" || a == "/exodus":
		if end < len(d) && isWordByte(d[end]) {
			return "", false
		}
	default:
		if a[0] != '/' && start > 0 && (isWordByte(d[start-1]) || d[start-1] == '-') {
			return "", false
		}
		if end < len(d) && (isWordByte(d[end]) || d[end] == '-') && !strings.HasSuffix(a, "/") {
			if _, ok := credentialWords[a]; !ok {
				return "", false
			}
		}
	}
	// A URL, a query or a traversal payload names a file on another
	// machine: https://h/?f=../../etc/shadow, filename:.env.
	for _, u := range []string{"://", "?", "=", "+", "../", "%2", "filename:", "path:"} {
		if strings.Contains(tok, u) {
			return "", false
		}
	}
	for _, skip := range []string{".pub", ".ssh/config", ".ssh/known_hosts", ".ssh/authorized_keys", ".ssh/rc",
		".ssh/environment", "/config.fish"} {
		if strings.Contains(tok, skip) {
			return "", false
		}
	}
	if writtenOrUsed(d, s) || s > 0 && (d[s-1] == '=' || d[s-1] == ':') && d[s] != '@' && !shellAssignStart(d, s) {
		return "", false // written, used to log in, or a value in a form (path=/root/.aws/credentials)
	}
	return string(d[s:e]), true
}

// shellAssignStart reports whether the path at s is the value of a
// shell assignment that starts its line (KEY=~/.ssh/id_rsa).
func shellAssignStart(d []byte, s int) bool {
	ls, _ := lineBounds(d, s)
	return len(assignedLHS(d[ls:s])) > 0 && bytes.IndexByte(bytes.TrimSpace(d[ls:s]), ' ') < 0
}

// credentialWords are credential anchors that may run on into a longer
// file name (id_rsa.key, id_ed25519_work).
var credentialWords = map[string]struct{}{"id_rsa": {}, "id_ed25519": {}, "id_ecdsa": {}, "id_dsa": {}}

// pathToken returns the bounds of the path token around [start, end).
func pathToken(d []byte, start, end int) (int, int) {
	const stop = " \t\n\"'`()[]{},;<>|=&"
	s := start
	for s > 0 && start-s < 120 && !strings.ContainsRune(stop, rune(d[s-1])) {
		s--
	}
	e := end
	for e < len(d) && e-end < 120 && !strings.ContainsRune(stop, rune(d[e])) {
		e++
	}
	return s, e
}

// writtenOrUsed reports whether the path at s is the target of a write
// (> x, -o x, tee x) or a key used to log in (ssh -i x, ssh-add x), by
// the word before it.
func writtenOrUsed(d []byte, s int) bool {
	ls := bytes.LastIndexByte(d[max(0, s-80):s], '\n') + 1 + max(0, s-80)
	before := strings.ToLower(strings.TrimRight(string(d[ls:s]), " \t\"'"))
	for _, w := range []string{">", ">>", "-o", "-O", "--output", "-outfile", "tee", "tee -a", "-i", "identityfile",
		"ssh-add", "--kubeconfig", "kubeconfig=", "--key-file", "--private-key", "--private-key-file", "--identity",
		"-key", "--ssh-key", "chmod 600", "chmod 700", "chmod 400", "chmod go-rwx", "mkdir -p", "mkdir",
		"ssh-keygen -f", "ssh-keygen -t ed25519 -f", "touch", "-f"} {
		if strings.HasSuffix(before, " "+w) || before == w || strings.HasSuffix(before, w) && strings.HasPrefix(w, ">") {
			return true
		}
	}
	return false
}

// acceptBrowserFile: a browser's cookie, password or key store, quoted
// or in a path, with its capitals (Cookies, Login Data, Local State).
func acceptBrowserFile(f *file, start, end int) (string, bool) {
	d := f.data
	want := map[string]string{"cookies": "Cookies", "login data": "Login Data", "local state": "Local State",
		"web data": "Web Data"}[anchorText(d, start, end)]
	if string(d[start:end]) != want || start == 0 || end >= len(d) {
		return "", false
	}
	if !strings.ContainsRune("/\\\"'", rune(d[start-1])) || !strings.ContainsRune("\"'\\/.", rune(d[end])) &&
		!(d[end] == ' ' && d[start-1] == '/') {
		return "", false
	}
	return "the browser's " + want + " file", true
}

// acceptSecretCommand: a command that prints a secret.
func acceptSecretCommand(f *file, start, end int) (string, bool) {
	if !wordStart(f.data, start) {
		return "", false
	}
	return strings.TrimSpace(string(f.data[start:end])), true
}

// acceptEnvDump: the whole environment, not one variable of it.
func acceptEnvDump(f *file, start, end int) (string, bool) {
	d := f.data
	a := anchorText(d, start, end)
	next := byte('\n')
	if end < len(d) {
		next = d[end]
	}
	rest := strings.ToLower(string(d[end:min(len(d), end+12)]))
	switch a {
	case "os.environ":
		if !wordStart(d, start) && d[start-1] != '.' && d[start-1] != '(' {
			return "", false
		}
		if next == '[' || next == '.' && !hasPrefixIn(rest, ".copy(", ".items(", ".values(") ||
			next == ',' && false {
			return "", false
		}
		if isWordByte(next) {
			return "", false
		}
	case "process.env":
		if next == '.' || next == '[' || next == '?' || isWordByte(next) {
			return "", false
		}
	case "printenv":
		if !wordStart(d, start) || !wordEnd(d, end) {
			return "", false
		}
		if ws := wordsAfter(d, end, min(len(d), end+40), 1); len(ws) > 0 && next == ' ' &&
			strings.ToUpper(ws[0]) == ws[0] && ws[0] != "" && !strings.ContainsAny(rest, "|>") {
			return "", false // printenv HOME: one variable
		}
	case "$(env", "env |", "env|", "env >":
		// env alone: env -u X cmd, env VAR=x cmd and env -i run a
		// command with another environment.
		if a == "$(env" && !(next == ')' || next == ' ' && bytes.HasPrefix(bytes.TrimLeft(d[end:min(len(d), end+8)], " "), []byte("|"))) {
			return "", false
		}
		if a != "$(env" && start > 0 && isWordByte(d[start-1]) {
			return "", false
		}
	case "/environ":
		if !strings.Contains(strings.ToLower(string(d[max(0, start-12):start])), "/proc/") {
			return "", false
		}
	default:
		if isWordByte(d[start]) && !wordStart(d, start) {
			return "", false
		}
	}
	return envLabel, true
}

// envLabel is the label of a read of the whole environment.
const envLabel = "the environment"

// acceptAny accepts the anchor as found.
func acceptAny(f *file, start, end int) (string, bool) { return "", true }

// acceptDownload: a downloader, as a word (in code other than a shell's,
// not inside a string literal, where it is a name in a list).
func acceptDownload(f *file, start, end int) (string, bool) {
	d := f.data
	if isWordByte(d[start]) && !wordStart(d, start) || isWordByte(d[end-1]) && !wordEnd(d, end) {
		return "", false
	}
	if shellDownloaders[anchorText(d, start, end)] == false && inStringLiteral(f, start) {
		return "", false
	}
	return strings.TrimRight(string(d[start:end]), "("), true
}

// acceptDecode: a decoder, as a word; Buffer.from only with base64 or
// hex, pack only with a hex template.
func acceptDecode(f *file, start, end int) (string, bool) {
	d := f.data
	if isWordByte(d[start]) && !wordStart(d, start) || inStringLiteral(f, start) {
		return "", false
	}
	a := anchorText(d, start, end)
	ls, le := lineBounds(d, start)
	line := strings.ToLower(string(d[ls:le]))
	switch a {
	case "buffer.from":
		if !strings.Contains(line, "base64") && !strings.Contains(line, "'hex'") && !strings.Contains(line, `"hex"`) {
			return "", false
		}
	case "pack(":
		if !strings.Contains(line, "h*") {
			return "", false
		}
	case `\x`:
		for k := start; k < start+16; k += 4 {
			if k+4 > len(d) || d[k] != '\\' || lower(d[k+1]) != 'x' || !isHex(d[k+2]) || !isHex(d[k+3]) {
				return "", false
			}
		}
		return "\\x escapes", true
	case "rot13":
		if !strings.Contains(line, "decode") && !strings.Contains(line, "codecs") {
			return "", false
		}
	}
	return strings.TrimRight(string(d[start:end]), "("), true
}

// acceptNet: a call or command that sends data out.
func acceptNet(f *file, start, end int) (string, bool) {
	d := f.data
	a := anchorText(d, start, end)
	if isWordByte(d[start]) && !wordStart(d, start) || isWordByte(d[end-1]) && !wordEnd(d, end) {
		return "", false
	}
	if ls, _ := lineBounds(d, start); bytes.HasPrefix(bytes.TrimLeft(d[ls:start], " \t"), []byte("@")) {
		return "", false // a route (@app.post(...)), not a request
	}
	if (a == "curl" || a == "wget") && !commandPosition(d, start) && !(start > 0 && (d[start-1] == '"' || d[start-1] == '\'')) {
		return "", false // apt-get install curl: a package's name
	}
	switch a {
	case "nc", "ncat", "netcat", "socat", "telnet", "scp", "rsync", "sftp", "ftp", "mail", "mailx", "sendmail",
		"mutt", "dig", "nslookup", "host", "drill", "ping", "iwr", "irm":
		argv := start > 1 && (d[start-1] == '"' || d[start-1] == '\'') && end < len(d) && d[end] == d[start-1] &&
			bytes.HasSuffix(bytes.TrimRight(d[max(0, start-3):start-1], " "), []byte("["))
		// In Python or JavaScript a command is only ever the program of
		// an argv list (["nc", host, port]).
		code := f.is(classScript) && !shellish(f) && !windowsScript(f.rel)
		if !commandPosition(d, start) || end >= len(d) || d[end] != ' ' && !argv || (code || inStringLiteral(f, start)) && !argv {
			return "", false
		}
		if next := bytes.TrimLeft(d[end:min(len(d), end+8)], " "); len(next) > 0 && (next[0] == '=' || next[0] == ':') {
			return "", false // host = ..., a setting
		}
		ls, le := lineBounds(d, start)
		line := d[end:le]
		_ = ls
		switch a {
		case "scp", "rsync", "sftp":
			if !remoteHostArg.Match(line) {
				return "", false
			}
		case "ping":
			if !bytes.Contains(line, []byte(" -p ")) {
				return "", false
			}
		}
	}
	return strings.Trim(string(d[start:end]), ".("), true
}

// acceptExec: a call or command that runs code.
func acceptExec(f *file, start, end int) (string, bool) {
	d := f.data
	a := anchorText(d, start, end)
	if isWordByte(d[start]) && !wordStart(d, start) || inStringLiteral(f, start) {
		return "", false
	}
	switch a {
	case "eval", "exec":
		// A call, or a shell command: eval(x), exec "$x", not a word in
		// a string, nor a method (regex.exec(s), db.exec(sql)).
		if !wordEnd(d, end) || string(d[start:end]) != a || start > 0 && d[start-1] == '.' {
			return "", false
		}
		if !(end < len(d) && d[end] == '(') && !(commandPosition(d, start) && end < len(d) && d[end] == ' ') {
			return "", false
		}
	case "compile(", "system(", "execfile":
		if start > 0 && d[start-1] == '.' && !bytes.HasSuffix(d[max(0, start-3):start], []byte("os.")) {
			return "", false // re.compile(...), schema.compile(...)
		}
	case "iex", "spawn", "popen", "subprocess", "execsync":
		if !wordEnd(d, end) {
			return "", false
		}
	case "function(":
		if string(d[start:end]) != "Function(" {
			return "", false
		}
	}
	return strings.TrimRight(string(d[start:end]), "("), true
}

// inStringLiteral reports whether offset i lies inside a string literal
// of its line in a script that is not a shell script (Python,
// JavaScript, ...): an odd number of quotes of one kind before it. There,
// eval, IEX or requests.get is a name in a list of patterns, not a call.
func inStringLiteral(f *file, i int) bool {
	if !f.is(classScript) || shellish(f) || windowsScript(f.rel) {
		return false
	}
	ls, _ := lineBounds(f.data, i)
	line := f.data[ls:i]
	return bytes.Count(line, []byte{'"'})%2 == 1 || bytes.Count(line, []byte{'\''})%2 == 1
}

// commandPosition reports whether the word at i starts a command: at the
// start of its line or statement, after a pipe, $( or a backquote, after
// sudo, or as the first quoted word of a list (["curl", ...]).
func commandPosition(d []byte, i int) bool {
	ls, _ := lineBounds(d, i)
	before := bytes.TrimRight(d[ls:i], " \t")
	if len(before) == 0 {
		return true
	}
	switch before[len(before)-1] {
	case '|', '(', '`', ';', '&', '{', '!':
		return true
	case '"', '\'':
		b := bytes.TrimRight(before[:len(before)-1], " \t")
		return len(b) > 0 && (b[len(b)-1] == '[' || b[len(b)-1] == '(')
	}
	ws := words(before, max(0, len(before)-40), len(before))
	return len(ws) > 0 && oneOf(ws[len(ws)-1], "sudo", "then", "do", "exec", "nohup", "time", "xargs", "else", "and", "or", "watch")
}

// event is a flow anchor found in a file, accepted.
type event struct {
	role       flowRole
	start, end int
	label      string
}

// flowEvents returns the accepted flow anchors of f, in order.
func flowEvents(f *file) []event {
	table, _ := anchors()
	var out []event
	for _, h := range hitsOf(f) {
		a := table[h.id]
		if a.flow == flowNone {
			continue
		}
		if label, ok := a.verify(f, h.start, h.end); ok {
			out = append(out, event{role: a.flow, start: h.start, end: h.end, label: label})
		}
	}
	slices.SortStableFunc(out, func(a, b event) int { return a.start - b.start })
	return out
}

// stmt is one statement of code: a range of the file's data.
type stmt struct {
	start, end int
	indent     int // of its first line
	lineStart  bool
	// shell is set for a statement read as a shell reads it (a shell
	// script, an inline code span, a code block in a shell or in no
	// language): there a secret's path given to a command is read.
	shell bool
	// block numbers the Markdown code block (or inline span) the
	// statement is in: a document's examples do not share variables.
	block int
	// minified is set for a statement cut from a line longer than
	// maxLine: names there are reused for anything, so its values are
	// not passed on (only a source and a sink in the statement count).
	minified bool
}

// maxLine is the longest line read as code rather than minified code.
const maxLine = 16 << 10

// statements cuts the code of f into statements (see the package
// comment above).
func statements(f *file) []stmt {
	d := f.data
	var out []stmt
	markdown := f.is(classMarkdown)
	front := 0 // the end of the frontmatter: its values run as hooks
	if f.is(classSkill) && bytes.HasPrefix(d, []byte("---")) {
		if e := bytes.Index(d[3:], []byte("\n---")); e >= 0 {
			front = 3 + e
		}
	}
	block, inFenceBefore := 0, false
	shellFile := shellish(f) || windowsScript(f.rel) || f.is(classDoc) && !markdown
	shell := shellFile
	for ls := 0; ls < len(d); {
		le := lineEnd(d, ls)
		line := d[ls:le]
		if markdown {
			in := inFence(f, ls)
			if in != inFenceBefore || !in {
				block++
			}
			if in && !inFenceBefore {
				shell = shellFence(line) // the fence's opening line names its language
			}
			inFenceBefore = in
		}
		first := len(out)
		indent := len(line) - len(bytes.TrimLeft(line, " \t"))
		body := bytes.TrimSpace(line)
		switch {
		case len(body) == 0:
		case ls < front && !hookCommand(body):
			// The frontmatter's values are data, but for a hook's command.
		case ls < front:
			// A hook's command: the text of its value.
			v := bytes.IndexByte(line, ':') + 1
			for v < len(line) && (line[v] == ' ' || line[v] == '"' || line[v] == '\'') {
				v++
			}
			e := len(line)
			for e > v && (line[e-1] == '"' || line[e-1] == '\'' || line[e-1] == ' ' || line[e-1] == '\r') {
				e--
			}
			out = cutStatements(d, ls+v, ls+e, indent, out)
		case markdown && ls >= front && !inFence(f, ls):
			// Outside code blocks, the inline code spans.
			for i := ls; i < le; {
				j := bytes.IndexByte(d[i:le], '`')
				if j < 0 {
					break
				}
				s := i + j
				n := 1
				for s+n < le && d[s+n] == '`' {
					n++
				}
				k := bytes.Index(d[s+n:le], bytes.Repeat([]byte{'`'}, n))
				if k < 0 {
					break
				}
				out = cutStatements(d, s+n, s+n+k, indent, out)
				i = s + n + k + n
			}
		case comment(body):
		default:
			// Join the lines of an open call or literal, within the code
			// block.
			end := le
			limit := len(d)
			if markdown {
				for _, r := range fencesOf(f) {
					if r[0] <= ls && ls < r[1] {
						limit = r[1]
					}
				}
			}
			depth := openBrackets(d[ls:le])
			for n := 0; depth > 0 && n < 40 && end < limit; n++ {
				ne := lineEnd(d, end+1)
				depth += openBrackets(d[end+1 : ne])
				end = ne
			}
			out = cutStatements(d, ls, end, indent, out)
			le = end
		}
		for k := first; k < len(out); k++ {
			out[k].block = block
			// Inline code, the frontmatter and shell code blocks are
			// commands; a Python or JavaScript block is not.
			out[k].shell = shellFile || markdown && (!inFence(f, out[k].start) || shell)
		}
		ls = le + 1
	}
	return out
}

// sendsData reports whether a sink's statement sends data rather than
// fetches: curl -d, -F, -T, wget --post-file, Invoke-RestMethod -Body,
// requests.post, a socket's send, scp, mail.
func sendsData(text []byte, label string) bool {
	l := strings.ToLower(label)
	switch l {
	case "curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "curl.exe":
		for _, f := range []string{" -d", "--data", " -f ", "--form", " -t ", "--upload-file", "-x post", "-x put",
			"--post-", "-body", "-infile", "-method post", "-method put", "uploadstring", "uploadfile"} {
			if containsFold(text, f) {
				return true
			}
		}
		return false
	case "request", "urlopen", "fetch", "axios", "http.get", "https.get":
		return containsFold(text, "post") || containsFold(text, "put") || containsFold(text, "data") ||
			containsFold(text, "body") || containsFold(text, "json=")
	}
	return true
}

// pathAssigned reports whether the secret's path at off is the value
// of a shell assignment (key="$HOME/.ssh/id_ed25519"): a place named, not
// read, unless a command substitution reads it.
func pathAssigned(text []byte, off int) bool {
	if len(assignedLHS(text)) == 0 {
		return false
	}
	eq := bytes.IndexByte(text, '=')
	return eq >= 0 && eq < off && !bytes.Contains(text[eq:off], []byte("$(")) && !bytes.Contains(text[eq:off], []byte("`"))
}

// makesPlace reports whether a statement's command makes or guards a
// place rather than reading it: mkdir, install -d, chmod, chown, touch,
// ssh-keygen, ssh-add, test, [.
func makesPlace(text []byte) bool {
	ws := commandWords(text)
	if len(ws) == 0 {
		return false
	}
	c := strings.ToLower(ws[0])
	return oneOf(c, "mkdir", "chmod", "chown", "touch", "ssh-keygen", "ssh-add", "test", "[", "[[", "rm", "ls") ||
		c == "install" && bytes.Contains(text, []byte(" -d"))
}

// hookCommand reports whether a frontmatter line is a hook's command
// (command: "..."), which Claude Code runs.
func hookCommand(body []byte) bool {
	t := bytes.TrimLeft(body, "- ")
	return bytes.HasPrefix(t, []byte("command:"))
}

// shellFence reports whether a fence's opening line (```bash) opens a
// block of shell commands: a shell's name, a console, or no language.
func shellFence(line []byte) bool {
	info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(string(line)), "`~")))
	if i := strings.IndexAny(info, " {"); i >= 0 {
		info = info[:i]
	}
	switch info {
	case "", "sh", "bash", "shell", "zsh", "console", "terminal", "powershell", "ps1", "pwsh", "cmd", "bat", "batch",
		"fish", "text", "txt", "shell-session", "sh-session", "bash-session", "dockerfile", "makefile", "yaml", "yml":
		return true
	}
	return false
}

// comment reports whether a line is a comment (#, //, REM, ::), not a
// #! line.
func comment(body []byte) bool {
	return body[0] == '#' && !bytes.HasPrefix(body, []byte("#!")) || bytes.HasPrefix(body, []byte("//")) ||
		bytes.HasPrefix(bytes.ToUpper(body), []byte("REM ")) || bytes.HasPrefix(body, []byte("::"))
}

// openBrackets returns how many ( and [ (and { opening a literal, after
// =, :, ( or ,) the line leaves open, outside quotes.
func openBrackets(line []byte) int {
	depth := 0
	var q byte
	prev := byte(' ')
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case q != 0:
			if c == '\\' {
				i++
			} else if c == q {
				q = 0
			}
			continue
		case c == '"' || c == '\'' || c == '`':
			q = c
		case c == '#' && (i == 0 || line[i-1] == ' '):
			return depth // a comment
		case c == '(' || c == '[':
			depth++
		case c == '{':
			if strings.ContainsRune("=:(,[", rune(prev)) {
				depth++
			}
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
		if c != ' ' && c != '\t' {
			prev = c
		}
	}
	return depth
}

// maxPaths bounds the tainted files a file's analysis follows.
const maxPaths = 64

// maxStatement bounds a statement: past it, a statement is cut at the
// next ;, && or || even inside brackets or quotes, so that a minified
// file of one call or one string costs its length, not its length times
// its anchors.
const maxStatement = 8 << 10

// cutStatements cuts d[s:e] at ;, && and || outside quotes and brackets.
func cutStatements(d []byte, s, e, indent int, out []stmt) []stmt {
	var q byte
	depth := 0
	from := s
	minified := e-s > maxLine && bytes.Count(d[s:e], []byte{'\n'})*maxLine < e-s
	add := func(a, b int) {
		first := a == s
		for a < b && (d[a] == ' ' || d[a] == '\t' || d[a] == '\n') {
			a++
		}
		if a < b {
			out = append(out, stmt{start: a, end: b, indent: indent, lineStart: first, minified: minified})
		}
	}
	for i := s; i < e; i++ {
		c := d[i]
		switch {
		case q != 0 && i-from <= maxStatement:
			if c == '\\' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth = max(0, depth-1)
		case (depth == 0 || i-from > maxStatement) &&
			(c == ';' || c == '&' && i+1 < e && d[i+1] == '&' || c == '|' && i+1 < e && d[i+1] == '|'):
			add(from, i)
			if c != ';' {
				i++
			}
			from = i + 1
		}
	}
	add(from, e)
	return out
}

// A flow found in a file.
type flowFinding struct {
	code       string
	at         int // offset of the sink
	stmtStart  int
	stmtEnd    int
	what, sink string
	srcLine    int
}

// taint is what a name or a file carries.
type taint struct {
	bits uint8
	// label and at are the first source of each kind (by bit number),
	// for the message.
	label    [4]string
	at       [4]int
	suspect  bool // a download from an IP address or http://, or into a hidden file
	verified bool // a download whose digest or signature is checked
	// files are the files of unknown content the value was read from:
	// another file of the skill may write them (see chain.go).
	files []string
}

// of returns the label and offset of the source of bit b.
func (t taint) of(b uint8) (string, int) {
	for i := range 4 {
		if b == 1<<i {
			return t.label[i], t.at[i]
		}
	}
	return "", 0
}

func (t *taint) merge(o taint) {
	for i := range 4 {
		if t.bits&(1<<i) == 0 && o.bits&(1<<i) != 0 {
			t.label[i], t.at[i] = o.label[i], o.at[i]
		}
	}
	t.bits |= o.bits
	t.suspect = t.suspect || o.suspect
	for _, p := range o.files {
		if len(t.files) < 8 && !slices.Contains(t.files, p) {
			t.files = append(t.files, p)
		}
	}
}

// source is the taint of one source of bit b.
func source(b uint8, label string, at int) taint {
	t := taint{bits: b}
	for i := range 4 {
		if b == 1<<i {
			t.label[i], t.at[i] = label, at
		}
	}
	return t
}

// flowResult is the analysis of one file.
type flowResult struct {
	findings []flowFinding
	// facts for the skill (see chain.go).
	writes  []pathFact // files written with a secret or a download
	sends   []pathFact // files sent that this file does not write
	runs    []pathFact // files run or named as scripts
	secret  *pathFact  // the first secret read
	network *pathFact  // the first sink
}

// pathFact is a path and where it is (offset), with a label.
type pathFact struct {
	path  string
	at    int
	label string
	bits  uint8
}

var (
	objCall       = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\.\s*(?:send|sendall|sendto|write|end|emit|send_bytes|post|put|request|connect)\s*\(`)
	sinkAlias     = regexp.MustCompile(`\.(?:post|put|patch|urlopen|request|send)\b\s*(?:$|[;,)])`)
	identifier    = regexp.MustCompile(`[A-Za-z_]\w*`)
	historyFile   = regexp.MustCompile(`(?:\.(?:bash|zsh|sh|python|psql|mysql|node_repl|sqlite)|fish)_history`)
	remoteHostArg = regexp.MustCompile(`[\w.-]+@[\w.-]+:|\b(?:\d{1,3}\.){3}\d{1,3}:|\b[\w-]+(?:\.[\w-]+)+:/`)
	downloadTo    = regexp.MustCompile(`(?i)(?:downloadfile|urlretrieve)\(\s*[^,]+,\s*([^)]+)\)`)
	plainPath     = regexp.MustCompile(`^[\w./\\$~{}%:-]+$`)
	ipURL         = regexp.MustCompile(`(?i)\bhttps?://(?:\d{1,3}\.){3}\d{1,3}\b|\bhttp://`)
)

// analyseFlow reads the statements of f (see the comment at the top).
func analyseFlow(f *file) *flowResult {
	r := &flowResult{}
	if !f.is(classScript | classDoc) {
		return r // data (JSON, YAML, HTML): its strings do not run
	}
	events := flowEvents(f)
	hasSource := slices.ContainsFunc(events, func(e event) bool { return roleTaint(e.role) != 0 })
	markdown := f.is(classMarkdown)
	if markdown || f.is(classDoc) {
		r.runs = scriptRefs(f)
	}
	hasNet := slices.ContainsFunc(events, func(e event) bool { return e.role == flowNet })
	if hasSource && !worthFollowing(f, events) {
		hasSource = false
	}
	if !hasSource && !(hasNet && f.is(classScript)) {
		// Nothing to follow: only the facts of what the file sends. (A
		// script that sends is read on: what it sends may be a file
		// another script writes.)
		for _, e := range events {
			if e.role != flowNet {
				continue
			}
			if ls, le := lineBounds(f.data, e.start); r.network == nil && sendsData(f.data[ls:le], e.label) {
				r.network = &pathFact{at: e.start, label: e.label}
			}
			// A document that pipes a script of the skill into a sink.
			ls, le := lineBounds(f.data, e.start)
			for _, p := range scriptRefs(&file{data: f.data[ls:le]}) {
				r.sends = append(r.sends, pathFact{path: p.path, at: e.start, label: e.label})
			}
		}
		if !markdown && !f.is(classDoc) {
			r.runs = scriptRefs(f)
		}
		return r
	}
	d := f.data
	stmts := statements(f)
	// In a document, an example without a flow anchor is skipped while
	// no file is tainted: its names are its own.
	eventful := map[int]bool{}
	if markdown {
		ei := 0
		for _, st := range stmts {
			for ei < len(events) && events[ei].end <= st.start {
				ei++
			}
			if ei < len(events) && events[ei].start < st.end {
				eventful[st.block] = true
			}
		}
	}
	names := map[string]taint{}
	paths := map[string]taint{}
	netObjs := map[string]bool{}
	sinkFuncs := map[string]bool{}
	type fn struct {
		name   string
		indent int
		params []string
		locals []string // the names assigned in its body
	}
	outer := map[string]struct{}{} // the names assigned outside functions
	// tailTaint is what the names and files in text carry: the argument
	// of an exec sink, from the sink on.
	tailTaint := func(text []byte) taint {
		var t taint
		for _, id := range identifiers(text) {
			if n, ok := names[string(id)]; ok {
				t.merge(n)
			}
		}
		if len(paths) > 0 {
			for _, tok := range pathTokens(text) {
				for p, pt := range paths {
					if pathMatch(tok, p) && !pt.verified {
						t.merge(pt)
					}
				}
			}
		}
		return t
	}
	baseRuns := slices.Clone(r.runs)
	// Two passes, so that a function defined below its use is known; the
	// second only when the first left something tainted to look for.
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			if len(names) == 0 && len(paths) == 0 && len(sinkFuncs) == 0 && len(netObjs) == 0 {
				break
			}
			*r = flowResult{runs: slices.Clone(baseRuns)}
		}
		last := true
		var stack []fn
		clear(outer)
		ei := 0
		block := 0
		for _, s := range stmts {
			if markdown && !eventful[s.block] && len(paths) == 0 {
				continue
			}
			text := d[s.start:s.end]
			if markdown && s.block != block {
				// Another example: its variables are its own.
				block = s.block
				clear(names)
			}
			// Functions: leave the ones this statement is not inside.
			if s.lineStart {
				for len(stack) > 0 && s.indent <= stack[len(stack)-1].indent && !bytes.HasPrefix(bytes.TrimSpace(text), []byte("}")) {
					// Leaving a function: its local names go (in a shell,
					// a function's variables are global).
					if !s.shell {
						for _, n := range stack[len(stack)-1].locals {
							if _, global := outer[n]; !global {
								delete(names, n)
							}
						}
					}
					stack = stack[:len(stack)-1]
				}
				if maybeFunc(text) {
					if name := funcName(text); name != "" {
						var params []string
						if i := bytes.IndexByte(text, '('); i >= 0 {
							for _, p := range bytes.Split(firstArgs(text[i:]), []byte{','}) {
								if n := leadingIdent(string(bytes.TrimLeft(bytes.TrimSpace(p), "*&$"))); n != "" && n != "self" {
									params = append(params, n)
								}
							}
						}
						stack = append(stack, fn{name: name, indent: s.indent, params: params})
					}
				}
			}
			for ei < len(events) && events[ei].start < s.start {
				ei++
			}
			var evs []event
			for k := ei; k < len(events) && events[k].start < s.end; k++ {
				evs = append(evs, events[k])
			}
			// The value of the statement: what its names and files carry
			// (carried), and its own sources.
			var carried taint
			// The names of the statement, read only when some name
			// carries something or a function is being read.
			var ids [][]byte
			if len(names) > 0 || len(sinkFuncs) > 0 || len(stack) > 0 {
				ids = identifiers(text)
			}
			for _, id := range ids {
				if t, ok := names[string(id)]; ok {
					carried.merge(t)
				}
			}
			if bytes.Contains(text, []byte("git push")) {
				if t, ok := names["\x00git"]; ok {
					carried.merge(t)
				}
			}
			// The files the statement names: tainted ones carry their
			// value, the others are kept as where the value came from
			// (for a script that sends them, see chain.go).
			var toks []string
			if !s.minified && (len(paths) > 0 || hasNet && f.is(classScript) || len(evs) > 0) &&
				bytes.ContainsAny(text, "/\\$%~") {
				toks = pathTokens(text)
			}
			namesTainted := false
			for _, tok := range toks {
				hit := false
				for p, t := range paths {
					if pathMatch(tok, p) {
						if !t.verified {
							carried.merge(t)
						}
						hit, namesTainted = true, true
					}
				}
				if !hit && fileLike(tok) && len(carried.files) < 8 {
					carried.files = append(carried.files, tok)
				}
			}
			val := carried
			reads := false
			for _, e := range evs {
				if e.role == flowSecretFile {
					if makesPlace(text) {
						continue // mkdir ~/.ssh, chmod 600 ~/.ssh/id_rsa: the place, not what it holds
					}
					if s.shell && !pathAssigned(text, e.start-s.start) || reads ||
						readsFile(text) && readsTainted(text, s.start, []event{e}, nil) {
						reads = true
						val.merge(source(taintSecret, e.label, e.start))
					} else {
						val.merge(source(taintSecretPath, e.label, e.start))
					}
					continue
				}
				if e.role == flowDownload && shellDownloaders[strings.ToLower(e.label)] && !shellish(f) && !f.is(classDoc) &&
					!slices.ContainsFunc(evs, func(o event) bool { return o.role == flowExec }) {
					continue // "curl" in a Python string is a name, unless the statement runs it
				}
				if b := roleTaint(e.role); b != 0 && val.bits&b == 0 {
					val.merge(source(b, e.label, e.start))
					if e.role == flowDownload && bytes.Contains(text, []byte("http")) && ipURL.Match(text) {
						val.suspect = true
					}
				}
			}
			// A statement that reads a file named by a secret's path reads
			// the secret; one that copies it puts the secret where it
			// copies to.
			if val.bits&taintSecretPath != 0 && val.bits&taintSecret == 0 && !s.minified && readsFile(text) &&
				readsTainted(text, s.start, evs, names) {
				label, at := val.of(taintSecretPath)
				val.merge(source(taintSecret, label, at))
			}
			if last && r.secret == nil && val.bits&taintSecret != 0 {
				label, at := val.of(taintSecret)
				r.secret = &pathFact{at: at, label: label}
			}
			// Sinks: the first of each kind tells.
			seenNet, seenExec := false, 0
			for _, e := range evs {
				switch {
				case e.role == flowNet && seenNet, e.role == flowExec && seenExec >= 4:
					continue
				case e.role == flowNet:
					seenNet = true
				case e.role == flowExec:
					seenExec++
				}
				switch e.role {
				case flowNet:
					if last && r.network == nil && sendsData(text, e.label) {
						r.network = &pathFact{at: e.start, label: e.label}
					}
					if label, at := val.of(taintSecret); val.bits&taintSecret != 0 && !homeHost(label, string(text)) &&
						!onlyAuth(text, s.start, evs, names) {
						r.add(flowFinding{code: CodeDataExfiltration, at: e.start, stmtStart: s.start, stmtEnd: s.end,
							what: label, sink: e.label, srcLine: at}, last)
					}
					if last {
						for _, tok := range val.files {
							r.sends = append(r.sends, pathFact{path: tok, at: e.start, label: e.label})
						}
					}
				case flowExec:
					if arg := sinkArg(text, e.end-s.start, e); arg != nil {
						val := tailTaint(arg)
						val.merge(callSourcesIn(evs, s.start+(len(text)-len(text[e.end-s.start:])), arg, s.start, text))
						if val.bits&(taintDownload|taintDecode) == 0 {
							continue
						}
						code, bit := CodeRemoteCode, taintDownload
						if val.bits&taintDownload == 0 {
							code, bit = CodeObfuscatedCode, taintDecode
						} else if knownInstaller(text) {
							continue // known-installer
						}
						label, at := val.of(bit)
						r.add(flowFinding{code: code, at: e.start, stmtStart: s.start, stmtEnd: s.end, what: label,
							sink: e.label, srcLine: at}, last)
					}
				}
			}
			// Calls of connections and of functions that send.
			if label, at := val.of(taintSecret); val.bits&taintSecret != 0 && !homeHost(label, string(text)) {
				for _, m := range objCalls(text, netObjs) {
					if netObjs[string(text[m[2]:m[3]])] {
						r.add(flowFinding{code: CodeDataExfiltration, at: s.start + m[2], stmtStart: s.start,
							stmtEnd: s.end, what: label, sink: string(text[m[2]:m[1]]), srcLine: at}, last)
					}
				}
				for _, id := range ids {
					if i := bytes.Index(text, id); sinkFuncs[string(id)] && i >= 0 && s.start+i+len(id) < len(d) &&
						bytes.HasPrefix(bytes.TrimLeft(text[i+len(id):], " "), []byte("(")) {
						r.add(flowFinding{code: CodeDataExfiltration, at: s.start + i, stmtStart: s.start, stmtEnd: s.end,
							what: label, sink: string(id), srcLine: at}, last)
					}
				}
			}
			// A download run as a program.
			if val.bits == 0 || true {
				if p, how := runsPath(text, paths, namesTainted); p != "" {
					t := paths[p]
					lone := !bytes.ContainsAny(bytes.TrimSpace(text), " \t")
					if t.bits&taintDownload != 0 && !t.verified && !(lone && !f.is(classScript)) &&
						(how == "interpreter" || t.suspect || suspectRun(text)) {
						label, at := t.of(taintDownload)
						r.add(flowFinding{code: CodeRemoteCode, at: s.start, stmtStart: s.start, stmtEnd: s.end, what: label,
							sink: how, srcLine: at}, last)
					}
				} else if last && bytes.ContainsAny(text, "/\\") {
					if p := commandPath(text); p != "" && fileLike(p) {
						r.runs = append(r.runs, pathFact{path: p, at: s.start, label: "runs"})
					}
				}
			}
			// Checking a digest verifies the download it names.
			if namesTainted && checksDigest(text) {
				for _, tok := range toks {
					for p, t := range paths {
						if pathMatch(tok, p) {
							t.verified = true
							paths[p] = t
						}
					}
				}
			}
			// What the statement assigns takes its value.
			net := slices.ContainsFunc(evs, func(e event) bool { return e.role == flowNet })
			var lhs []string
			alias := aliasesSink(text)
			if !s.minified && (net || val.bits != 0 || len(val.files) > 0 || alias) {
				lhs = assigned(text)
			}
			adds := len(lhs) > 0 && mutates(text)
			for _, n := range lhs {
				if len(stack) > 0 {
					top := &stack[len(stack)-1]
					top.locals = append(top.locals, n)
				} else {
					outer[n] = struct{}{}
				}
				// An assignment replaces the name's value (x.append(...)
				// adds to it).
				switch {
				case val.bits != 0 || len(val.files) > 0:
					t := val
					if adds {
						t = names[n]
						t.merge(val)
					}
					names[n] = t
				case !adds:
					delete(names, n)
				}
				if net {
					netObjs[n] = true
				}
				if alias {
					sinkFuncs[n] = true
				}
			}
			if len(stack) > 0 {
				top := stack[len(stack)-1].name
				// A function sends what it is given when a parameter
				// reaches a sink in its body.
				if net && slices.ContainsFunc(stack[len(stack)-1].params, func(p string) bool {
					return slices.ContainsFunc(ids, func(id []byte) bool { return string(id) == p })
				}) {
					sinkFuncs[top] = true
				}
				if (val.bits != 0 || len(val.files) > 0) && (bytes.HasPrefix(bytes.TrimSpace(text), []byte("return")) ||
					bytes.HasPrefix(bytes.TrimSpace(text), []byte("yield"))) {
					t := names[top]
					t.merge(val)
					names[top] = t
				}
			}
			if val.bits != 0 && !s.minified {
				if gitAdd(text) {
					t := names["\x00git"]
					t.merge(val)
					names["\x00git"] = t
				}
				for _, p := range writtenPaths(text, toks, evs) {
					if _, known := paths[p]; !known && len(paths) >= maxPaths {
						break // enough files followed: a long script of downloads
					}
					t := paths[p]
					if t.verified {
						continue
					}
					t.merge(val)
					if hiddenPath(p) && val.bits&taintDownload != 0 {
						t.suspect = true
					}
					paths[p] = t
				}
			}

		}
	}
	for p, t := range paths {
		if t.bits != 0 && !t.verified {
			b := uint8(taintSecret)
			if t.bits&taintSecret == 0 {
				b = taintDownload
			}
			label, at := t.of(b)
			r.writes = append(r.writes, pathFact{path: p, at: at, label: label, bits: t.bits})
		}
	}
	slices.SortFunc(r.writes, func(a, b pathFact) int { return strings.Compare(a.path, b.path) })
	return r
}

// worthFollowing reports whether the sources of a file can reach a sink:
// a secret or the environment always may; decoded data only where
// something runs code; a download only where something runs code or it
// is saved to a file (curl -o, > file, -OutFile, urlretrieve), which a
// command may run. A document of curl examples that print JSON is not
// read statement by statement.
func worthFollowing(f *file, events []event) bool {
	exec := slices.ContainsFunc(events, func(e event) bool { return e.role == flowExec })
	for _, e := range events {
		switch e.role {
		case flowSecret, flowSecretFile:
			return true
		case flowDecode:
			if exec {
				return true
			}
		case flowDownload:
			if exec {
				return true
			}
			ls, le := lineBounds(f.data, e.start)
			line := f.data[ls:le]
			for _, o := range []string{" -o", " -O", "--output", ">", "-outfile", "urlretrieve", "downloadfile",
				"/transfer", "-urlcache", "tee "} {
				if containsFold(line, o) {
					return true
				}
			}
		}
	}
	return false
}

// add records a finding of the last pass, one per statement and code.
func (r *flowResult) add(ff flowFinding, last bool) {
	if !last {
		return
	}
	for _, o := range r.findings {
		if o.code == ff.code && o.stmtStart == ff.stmtStart {
			return
		}
	}
	r.findings = append(r.findings, ff)
}

// onlyAuth reports whether every secret a statement sends is sent as a
// credential (an Authorization header, a Bearer token, an api-key
// header or parameter): how an API is called with the user's key, not a
// leak of the key. A secret read from a file or the environment and put
// anywhere else (a body, a query, another header) is sent as data.
func onlyAuth(text []byte, from int, evs []event, names map[string]taint) bool {
	found := false
	check := func(i int) bool {
		found = true
		// The field the value is in: back to the separator before it
		// (a comma, a ; or a & or ? of a query), at most 48 bytes.
		lo := max(0, i-48)
		if j := bytes.LastIndexAny(text[lo:i], ",;&?"); j >= 0 {
			lo += j
		}
		ctx := strings.ToLower(string(text[lo:i]))
		for _, k := range []string{"authorization", "bearer", "api-key", "x-api-key", "apikey", "api_key", "x-auth",
			"token: ", "--user"} {
			if strings.Contains(ctx, k) {
				return true
			}
		}
		return false
	}
	for _, e := range evs {
		if e.role == flowSecret || e.role == flowSecretFile {
			if !check(e.start - from) {
				return false
			}
		}
	}
	for _, id := range identifiers(text) {
		if names[string(id)].bits&taintSecret != 0 {
			if off := indexWord(text, string(id)); off >= 0 && !check(off) {
				return false
			}
		}
	}
	return found
}

// homeHosts are where a credential is meant to be sent: a GitHub token
// to GitHub is how the gh CLI logs in, not a leak.
var homeHosts = []struct{ source, host string }{
	{"gh auth token", "github.com"}, {".config/gh", "github.com"}, {".git-credentials", "github.com"},
	{".aws", "amazonaws.com"}, {".config/gcloud", "googleapis.com"}, {"application_default_credentials", "googleapis.com"},
	{".npmrc", "npmjs.org"}, {".docker", "docker.io"}, {".pypirc", "pypi.org"}, {".kube", "kubectl"},
}

// homeHost reports whether the statement sends a credential where it
// belongs (and nowhere else: no other host is named).
func homeHost(label, text string) bool {
	l := strings.ToLower(label)
	t := strings.ToLower(text)
	for _, h := range homeHosts {
		if !strings.Contains(l, h.source) {
			continue
		}
		urls := urlHost.FindAllStringSubmatch(t, -1)
		if len(urls) == 0 {
			return false
		}
		for _, u := range urls {
			if u[1] != h.host && !strings.HasSuffix(u[1], "."+h.host) {
				return false
			}
		}
		return true
	}
	return false
}

var urlHost = regexp.MustCompile(`https?://([a-z0-9.-]+)`)

// digestChecks are the commands and calls that check a download.
var digestChecks = []string{"sha256sum", "sha512sum", "shasum", "sha1sum", "md5sum", "get-filehash",
	"certutil -hashfile", "gpg --verify", "gpgv", "cosign verify", "minisign", "openssl dgst", "hashlib.sha256",
	"checksum"}

// checksDigest reports whether a statement checks a file's digest or
// signature.
func checksDigest(text []byte) bool {
	for _, c := range digestChecks {
		if containsFold(text, c) {
			return true
		}
	}
	return false
}

// aliasesSink reports whether a statement names a function that sends
// without calling it (send = requests.post), by sinkAlias.
func aliasesSink(text []byte) bool {
	for _, m := range []string{".post", ".put", ".patch", ".urlopen", ".request", ".send"} {
		for i := 0; ; {
			j := bytes.Index(text[i:], []byte(m))
			if j < 0 {
				break
			}
			k := i + j
			if sinkAlias.Match(text[k:min(len(text), k+len(m)+24)]) {
				return true
			}
			i = k + len(m)
		}
	}
	return false
}

// funcName returns the name of the function a statement defines, or "":
// def f(, async def f(, function f(, func f(, func (r T) f(, sub f, f()
// {, const f = (...) =>, const f = function.
func funcName(text []byte) string {
	t := strings.TrimLeft(string(text[:min(len(text), 200)]), " \t")
	t = strings.TrimPrefix(t, "export ")
	t = strings.TrimPrefix(t, "async ")
	for _, kw := range []string{"def ", "function ", "func ", "sub "} {
		if strings.HasPrefix(t, kw) {
			rest := strings.TrimLeft(t[len(kw):], " ")
			if kw == "func " && strings.HasPrefix(rest, "(") {
				if i := strings.IndexByte(rest, ')'); i >= 0 {
					rest = strings.TrimLeft(rest[i+1:], " ")
				}
			}
			return leadingIdent(rest)
		}
	}
	if n := leadingIdent(t); n != "" && strings.HasPrefix(strings.TrimLeft(t[len(n):], " "), "() {") {
		return n // a shell function
	}
	for _, kw := range []string{"const ", "let ", "var "} {
		if strings.HasPrefix(t, kw) {
			rest := strings.TrimLeft(t[len(kw):], " ")
			n := leadingIdent(rest)
			v := strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(rest[len(n):], " "), "="), " ")
			v = strings.TrimPrefix(v, "async ")
			// const f = function ..., const f = (a, b) => ..., const f = a => ...
			arrow := false
			if strings.HasPrefix(v, "(") {
				if c := strings.IndexByte(v, ')'); c >= 0 {
					arrow = strings.HasPrefix(strings.TrimLeft(v[c+1:], " "), "=>")
				}
			} else if id := leadingIdent(v); id != "" {
				arrow = strings.HasPrefix(strings.TrimLeft(v[len(id):], " "), "=>")
			}
			if n != "" && (strings.HasPrefix(v, "function") || arrow) {
				return n
			}
		}
	}
	return ""
}

// maybeFunc reports whether a statement may define a function (see
// funcDef), by its words.
func maybeFunc(text []byte) bool {
	for _, w := range []string{"def ", "function", "func ", "sub ", "() {", "(){", "=>"} {
		if bytes.Contains(text, []byte(w)) {
			return true
		}
	}
	return false
}

// objCalls returns the calls of a method of a connection (see objCall),
// when the file has connections.
func objCalls(text []byte, netObjs map[string]bool) [][]int {
	if len(netObjs) == 0 || bytes.IndexByte(text, '.') < 0 {
		return nil
	}
	if len(text) > maxRegexText {
		text = text[:maxRegexText]
	}
	return objCall.FindAllSubmatchIndex(text, -1)
}

// fileReads are the calls and commands that read a file given by
// name, or copy it.
var fileReads = []string{"open(", ".read(", "read_text(", "read_bytes(", "readfilesync(", "readfile(",
	"createreadstream(", "get-content", "readalltext", "readallbytes", "file.read", "io.read", "fopen(",
	"file_get_contents(", "sqlite3.connect(", "copy(", "copyfile(", "copy2(", "copyfilesync(", "copy-item",
	"copytree(", ".write(", "tarfile", "zipfile", "base64.b64encode(open", "cat ", "load(", "loads(open",
	"-infile", "@$", "@\"$", "--upload-file", " -t ", " < ", "--data-binary @", "--post-file", "type ", "tar "}

// readsFile reports whether a statement reads or copies a file (and is
// not one that opens a file to write it).
func readsFile(text []byte) bool {
	read := false
	for _, r := range fileReads {
		if containsFold(text, r) {
			read = true
			break
		}
	}
	if !read {
		return false
	}
	for _, w := range []string{`, "w"`, `, 'w'`, `, "a"`, `, 'a'`, `, "wb"`, `, 'wb'`, `mode="w"`, `mode='w'`, `"w+"`} {
		if bytes.Contains(text, []byte(w)) {
			return false
		}
	}
	return true
}

// readsTainted reports whether a read of the statement reads a secret's
// path: open(p), Path(p).read_text(), fs.readFileSync(p) with p a
// tainted name or a secret path in the call, or p.read_text(), f.read()
// on a tainted receiver (not open('log.txt') next to a list of paths).
func readsTainted(text []byte, from int, evs []event, names map[string]taint) bool {
	tainted := func(b []byte, off int) bool {
		for _, id := range identifiers(b) {
			if names[string(id)].bits&(taintSecretPath|taintSecret) != 0 {
				return true
			}
		}
		for _, e := range evs {
			if e.role == flowSecretFile && e.start >= from+off && e.start < from+off+len(b) {
				return true
			}
		}
		return false
	}
	for _, r := range fileReads {
		for i := 0; ; {
			j := indexFold(text[i:], r)
			if j < 0 {
				break
			}
			k := i + j
			i = k + len(r)
			if r[0] == '.' || k > 0 && text[k-1] == '.' {
				// A method: its receiver.
				s := k
				for s > 0 && (isWordByte(text[s-1]) || text[s-1] == '.' || text[s-1] == ')' || text[s-1] == '(') {
					s--
				}
				if tainted(text[s:k], s) {
					return true
				}
			}
			if strings.HasSuffix(r, "(") {
				if arg := firstArg(text[k+len(r)-1:]); tainted(arg, k+len(r)) {
					return true
				}
			} else if tainted(text[k:min(len(text), k+len(r)+120)], k) { // cat ~/.ssh/id_rsa, Get-Content $p
				return true
			}
		}
	}
	return false
}

// identifiers returns the words of text that can be names.
func identifiers(text []byte) [][]byte {
	var out [][]byte
	for i := 0; i < len(text); {
		c := text[i]
		if !(c == '_' || 'a' <= c|0x20 && c|0x20 <= 'z') || i > 0 && isWordByte(text[i-1]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == '_' || 'a' <= text[j]|0x20 && text[j]|0x20 <= 'z' || '0' <= text[j] && text[j] <= '9') {
			j++
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

// callSources are the downloaders and decoders that are calls, whose
// result is a value: inside an exec call they are what it runs
// (exec(requests.get(u).text)). A shell downloader or decoder on the
// line of an exec (bash -c "curl ...") is a command it runs; the phrase
// rules see it piped into a shell.
var callSources = set("requests.get", "httpx.get", "urlopen", "fetch", "https.get", "http.get", "axios.get",
	"downloadstring", "downloaddata", "b64decode", "atob", "base64_decode", "frombase64string", "fromcharcode",
	"decodestring", "decode64", "fromhex", "unhexlify", "buffer.from", "codecs.decode", "zlib.decompress",
	"marshal.loads", "gzinflate", "gzuncompress", "str_rot13", "pack", "base64.stdencoding", "hex.decodestring",
	"bytes([")

// shellDownloaders are the downloaders that are commands rather than
// calls.
var shellDownloaders = set("curl", "wget", "certutil", "bitsadmin", "iwr", "irm", "invoke-webrequest",
	"invoke-restmethod", "start-bitstransfer")

// shellExecs are the exec sinks that take code as text on the command
// line.
var shellExecs = set("sh -c", "bash -c", "zsh -c", "python -c", "python3 -c", "perl -e", "node -e", "ruby -e")

// shellDashC is a shell given code as an argument in an argv list:
// ["sh", "-c", x], ("bash", "-c", x), ["cmd", "/c", x].
var shellDashC = regexp.MustCompile(`(?:sh|bash|zsh|dash|python3?|node|perl|ruby|cmd(?:\.exe)?|powershell|pwsh)["']\s*,\s*["'](?:-c|/c|-e|-command)["']\s*,`)

// argvFamily are the calls that take a program and its arguments, where
// data is code only after -c, or with shell=True (execSync takes a
// command line).
var argvFamily = set("subprocess", "spawn", "exec.command", "popen", "execsync", "child_process")

// quotedArg returns the double-quoted argument rest starts with.
func quotedArg(rest []byte) []byte {
	if k := bytes.IndexByte(rest[1:], '"'); k >= 0 {
		return rest[1 : 1+k]
	}
	return rest[1:]
}

// sinkArg returns the code an exec sink runs, from the statement text
// (its sink ends at off): the first argument of a call (eval(x),
// exec(compile(src, ...)), pickle.loads(b64decode(s))), the code after -c
// or the word after eval or iex in a shell, the command of a subprocess
// call with shell=True or ["sh", "-c", x]. Nil when the sink runs no
// value (python3 -c 'fixed code', subprocess.run(["ffmpeg", f]), a
// template that puts a value into a command).
func sinkArg(text []byte, off int, e event) []byte {
	l := strings.ToLower(e.label)
	rest := text[min(off, len(text)):]
	switch {
	case shellExecs[l] || l == "eval" && !bytes.HasPrefix(bytes.TrimLeft(rest, " "), []byte("(")) ||
		l == "iex" || l == "invoke-expression":
		// The next word: a literal in single quotes, or in double quotes
		// without $, is fixed code.
		rest = bytes.TrimLeft(rest, " \t")
		if len(rest) == 0 || rest[0] == '\'' {
			return nil
		}
		if rest[0] == '"' {
			// Only "$x" or "$(...)" as the whole code: a value put into
			// code of the skill's own is a template, not the download.
			q := bytes.TrimSpace(quotedArg(rest))
			if !wholeExpansion(q) {
				return nil
			}
			return q
		}
		if rest[0] == '(' {
			return firstArg(rest)
		}
		end := bytes.IndexAny(rest, " \t;|&)")
		if end < 0 {
			end = len(rest)
		}
		return rest[:end]
	case argvFamily[l]:
		t := strings.ToLower(string(text))
		if m := shellDashC.FindStringIndex(t); m != nil {
			return firstArg(append([]byte{'('}, text[m[1]:]...))
		}
		if !strings.Contains(t, "shell=true") && l != "execsync" {
			return nil // a program and its arguments: data, not code
		}
		i := bytes.IndexByte(rest, '(')
		if i < 0 {
			return nil
		}
		arg := firstArg(rest[i:])
		// Only the whole command: a template or a concatenation puts a
		// value into a command of the skill's own.
		if bytes.ContainsAny(arg, "`+%{") || bytes.Contains(arg, []byte("f\"")) || bytes.Contains(arg, []byte("f'")) {
			return nil
		}
		return arg
	default:
		i := bytes.IndexByte(rest, '(')
		if i < 0 || len(bytes.TrimSpace(rest[:i])) > 0 {
			return nil
		}
		return firstArg(rest[i:])
	}
}

// wholeExpansion reports whether q is one expansion: $x, ${x}, $(...).
func wholeExpansion(q []byte) bool {
	switch {
	case bytes.HasPrefix(q, []byte("$(")):
		return bytes.HasSuffix(q, []byte(")"))
	case bytes.HasPrefix(q, []byte("${")):
		return bytes.HasSuffix(q, []byte("}")) && bytes.Count(q, []byte("}")) == 1
	case bytes.HasPrefix(q, []byte("$")):
		return len(leadingIdent(string(q[1:]))) == len(q)-1 && len(q) > 1
	}
	return false
}

// firstArgs returns the arguments of the call whose opening bracket
// starts b, up to its closing bracket.
func firstArgs(b []byte) []byte {
	depth := 0
	for i, c := range b {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return b[1:i]
			}
		}
	}
	return b[min(1, len(b)):]
}

// firstArg returns the first argument of the call whose opening bracket
// starts b: up to the first comma or the closing bracket at its depth.
func firstArg(b []byte) []byte {
	depth := 0
	var q byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case q != 0:
			if c == '\\' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '"' || c == '\'' || c == '`':
			q = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				return b[1:i]
			}
		case c == ',' && depth == 1:
			return b[1:i]
		}
	}
	return b[min(1, len(b)):]
}

// callSourcesIn is the taint of the downloaders and decoders that are
// calls (see callSources) inside arg, the argument of an exec sink.
func callSourcesIn(evs []event, _ int, arg []byte, stmtStart int, text []byte) taint {
	var v taint
	base := bytes.Index(text, arg)
	if base < 0 || len(arg) == 0 {
		return v
	}
	lo, hi := stmtStart+base, stmtStart+base+len(arg)
	for _, o := range evs {
		if b := roleTaint(o.role); b&(taintDownload|taintDecode) != 0 && o.start >= lo && o.start < hi &&
			callSources[strings.ToLower(o.label)] {
			v.merge(source(b, o.label, o.start))
		}
	}
	return v
}

// maxRegexText is how much of a statement the name patterns read: a
// statement longer than that (a minified line) is read in part.
const maxRegexText = 4 << 10

// assigned returns the names a statement gives a value: the left side
// of an assignment (x = ..., NAME=..., const x = ..., a, b = ...,
// x[k] = ..., $x = ...), as x, read x, for x in|of, a collection or
// file added to (x.append(...), x.write(...)), and the parameters of a
// callback or a lambda.
func assigned(text []byte) []string {
	if len(text) > maxRegexText {
		text = text[:maxRegexText]
	}
	out := assignedLHS(text)
	out = append(out, wordAfter(text, " as ")...)
	// x += y anywhere (in a callback: (c) => (body += c)).
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte("+="))
		if j < 0 {
			break
		}
		k := i + j
		i = k + 2
		b := bytes.TrimRight(text[:k], " ")
		e := len(b)
		for e > 0 && isWordByte(b[e-1]) && b[e-1] < 0x80 {
			e--
		}
		if n := leadingIdent(string(b[e:])); n != "" {
			out = append(out, n)
		}
	}
	// def load(path=".env"), function f(p = "~/.ssh/id_rsa"): a
	// parameter takes its default.
	if t := bytes.TrimLeft(text, " \t"); bytes.HasPrefix(t, []byte("def ")) || bytes.HasPrefix(t, []byte("function ")) ||
		bytes.HasPrefix(t, []byte("async def ")) {
		if i := bytes.IndexByte(t, '('); i >= 0 {
			for _, p := range bytes.Split(firstArgs(t[i:]), []byte{','}) {
				if k := bytes.IndexByte(p, '='); k >= 0 {
					if n := leadingIdent(string(bytes.TrimSpace(p[:k]))); n != "" {
						out = append(out, n)
					}
				}
			}
		}
	}
	for _, m := range []string{".append(", ".extend(", ".push(", ".update(", ".add(", ".insert(", ".write(",
		".writelines(", ".concat(", ".put(", ".set("} {
		for i := 0; ; {
			j := bytes.Index(text[i:], []byte(m))
			if j < 0 {
				break
			}
			k := i + j
			s := k
			for s > 0 && (text[s-1] == '_' || 'a' <= text[s-1]|0x20 && text[s-1]|0x20 <= 'z' || '0' <= text[s-1] && text[s-1] <= '9') {
				s--
			}
			if s < k {
				out = append(out, string(text[s:k]))
			}
			i = k + len(m)
		}
	}
	if i := bytes.Index(text, []byte("read ")); i >= 0 && (i == 0 || !isWordByte(text[i-1])) {
		for _, f := range strings.Fields(string(text[i+5:])) {
			if strings.HasPrefix(f, "-") {
				continue
			}
			if n := leadingIdent(f); n != "" {
				out = append(out, n)
			}
			break
		}
	}
	// for x in ..., for (const [k, v] of ...)
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte("for"))
		if j < 0 {
			break
		}
		k := i + j + 3
		i = k
		if k-3 > 0 && isWordByte(text[k-4]) || k < len(text) && isWordByte(text[k]) {
			continue
		}
		rest := strings.TrimLeft(string(text[k:min(len(text), k+120)]), " (")
		for _, kw := range []string{"const ", "let ", "var ", "each "} {
			rest = strings.TrimPrefix(rest, kw)
		}
		rest = strings.TrimLeft(rest, " [")
		end := strings.Index(rest, " in ")
		if o := strings.Index(rest, " of "); o >= 0 && (end < 0 || o < end) {
			end = o
		}
		if end < 0 {
			continue
		}
		for _, n := range strings.Split(rest[:end], ",") {
			if n = leadingIdent(strings.TrimSpace(n)); n != "" {
				out = append(out, n)
			}
		}
	}
	// The parameters of callbacks and lambdas: (a, b) => and x =>,
	// function (a, b), lambda a, b:, do |a, b|.
	params := func(list string) {
		for _, n := range strings.Split(list, ",") {
			if n = leadingIdent(strings.TrimLeft(strings.TrimSpace(n), "*&$.")); n != "" {
				out = append(out, n)
			}
		}
	}
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte("=>"))
		if j < 0 {
			break
		}
		k := i + j
		i = k + 2
		b := bytes.TrimRight(text[max(0, k-200):k], " ")
		if len(b) > 0 && b[len(b)-1] == ')' {
			if o := bytes.LastIndexByte(b, '('); o >= 0 {
				params(string(b[o+1 : len(b)-1]))
			}
			continue
		}
		e := len(b)
		for e > 0 && (isWordByte(b[e-1]) && b[e-1] < 0x80) {
			e--
		}
		params(string(b[e:]))
	}
	for _, mark := range []string{"function", "lambda ", "do |", "{ |", "{|"} {
		for i := 0; ; {
			j := bytes.Index(text[i:], []byte(mark))
			if j < 0 {
				break
			}
			k := i + j + len(mark)
			i = k
			rest := string(text[k:min(len(text), k+200)])
			switch mark {
			case "function":
				o, c := strings.IndexByte(rest, '('), strings.IndexByte(rest, ')')
				if o >= 0 && c > o && strings.TrimSpace(leadingIdent(strings.TrimSpace(rest[:o]))) == strings.TrimSpace(rest[:o]) {
					params(rest[o+1 : c])
				}
			case "lambda ":
				if c := strings.IndexByte(rest, ':'); c >= 0 {
					params(rest[:c])
				}
			default:
				if c := strings.IndexByte(rest, '|'); c >= 0 {
					params(rest[:c])
				}
			}
		}
	}
	return out
}

// assignedLHS returns the names on the left of an assignment that starts
// the statement.
func assignedLHS(text []byte) []string {
	i := 0
	skip := func() {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
	}
	skip()
	for _, kw := range []string{"export ", "local ", "readonly ", "declare ", "const ", "let ", "var ", "my ",
		"our ", "final ", "auto "} {
		if bytes.HasPrefix(text[i:], []byte(kw)) {
			i += len(kw)
			skip()
		}
	}
	if i < len(text) && (text[i] == '$' || text[i] == '(' || text[i] == '[') {
		i++
	}
	var names []string
	for {
		skip()
		if i < len(text) && text[i] == '$' {
			i++
		}
		n := leadingIdent(string(text[i:min(len(text), i+128)]))
		if n == "" {
			return nil
		}
		names = append(names, n)
		i += len(n)
		// x[k], x.y
		for i < len(text) && (text[i] == '[' || text[i] == '.') {
			if text[i] == '[' {
				k := bytes.IndexByte(text[i:], ']')
				if k < 0 {
					return nil
				}
				i += k + 1
			} else {
				i++
				i += len(leadingIdent(string(text[i:min(len(text), i+128)])))
			}
		}
		skip()
		if i < len(text) && text[i] == ',' {
			i++
			continue
		}
		break
	}
	if i < len(text) && (text[i] == ')' || text[i] == ']') {
		i++
		skip()
	}
	switch {
	case bytes.HasPrefix(text[i:], []byte("+=")), bytes.HasPrefix(text[i:], []byte(":=")):
		return names
	case i < len(text) && text[i] == '=' && (i+1 == len(text) || text[i+1] != '=' && text[i+1] != '~'):
		return names
	}
	return nil
}

// leadingIdent returns the name s starts with, or "".
func leadingIdent(s string) string {
	i := 0
	for i < len(s) && (s[i] == '_' || 'a' <= s[i]|0x20 && s[i]|0x20 <= 'z' || i > 0 && '0' <= s[i] && s[i] <= '9') {
		i++
	}
	return s[:i]
}

// wordAfter returns the names that follow each occurrence of sep.
func wordAfter(text []byte, sep string) []string {
	var out []string
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte(sep))
		if j < 0 {
			return out
		}
		i += j + len(sep)
		if n := leadingIdent(string(text[i:min(len(text), i+128)])); n != "" {
			out = append(out, n)
		}
	}
}

// mutates reports whether a statement may add to a collection or a
// file (see mutateCall).
func mutates(text []byte) bool {
	for _, m := range []string{".append", ".extend", ".push", ".update", ".add", ".insert", ".write", ".concat", ".put", ".set"} {
		if bytes.Contains(text, []byte(m)) {
			return true
		}
	}
	return false
}

// pathTokens returns the words of a statement that may name files:
// quotes, @ and name= prefixes dropped.
func pathTokens(text []byte) []string {
	var out []string
	for _, w := range bytes.FieldsFunc(text, func(r rune) bool {
		return strings.ContainsRune(" \t\n\"'`(),;<>|&[]", r)
	}) {
		s := string(w)
		if i := strings.LastIndexByte(s, '@'); i >= 0 && !strings.Contains(s[:i], "://") {
			s = s[i+1:]
		}
		if i := strings.IndexByte(s, '='); i >= 0 && !strings.Contains(s[:i], "/") {
			s = s[i+1:]
		}
		if len(s) >= 2 && (strings.ContainsAny(s, "/\\") || strings.HasPrefix(s, "$") || strings.HasPrefix(s, "%")) &&
			!strings.Contains(s, "://") {
			out = append(out, s)
		}
	}
	return out
}

// fileLike reports whether a token names a file rather than a folder
// that everything lives in.
func fileLike(p string) bool {
	p = strings.TrimRight(p, "/\\")
	switch p {
	case "", "/tmp", "~", "$HOME", "${HOME}", "/", ".", "..", "/usr/local", "/usr/local/bin", "$TMPDIR", "%TEMP%", "/dev/null",
		"-", "/dev/stdout", "/dev/stderr":
		return false
	}
	return !strings.HasPrefix(p, "-") && !strings.HasPrefix(p, "/dev/")
}

// pathLike reports whether a word is a file path: it has a slash, a
// dot or a variable in it, and is not an option or a folder everything
// lives in.
func pathLike(w string) bool {
	return w != "" && !strings.HasPrefix(w, "-") && fileLike(w) && strings.ContainsAny(w, `/\.$~%`) &&
		!strings.Contains(w, "://")
}

// pathMatch reports whether the token tok names the tainted path p, a
// file inside it, or a glob that holds it.
func pathMatch(tok, p string) bool {
	tok = strings.Trim(tok, `"'`)
	if tok == p {
		return true
	}
	if strings.HasPrefix(tok, p+"/") || strings.HasPrefix(tok, p+`\`) {
		return true
	}
	if i := strings.IndexAny(tok, "*?"); i >= 0 {
		return strings.HasPrefix(p, tok[:i]) && len(tok[:i]) > 1
	}
	return false
}

// hiddenPath reports whether a path has a hidden part (/.x) outside the
// home folder's well-known ones.
func hiddenPath(p string) bool {
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if len(part) > 1 && part[0] == '.' && part[1] != '.' && !oneOf(part, ".local", ".config", ".cache", ".npm", ".cargo",
			".bun", ".deno", ".venv", ".claude") {
			return true
		}
	}
	return false
}

// writtenPaths returns the files a statement with a tainted value
// writes: what follows >, >>, -o, -O, --output, -OutFile, -d (unzip), -C
// (tar), tee and the last word of cp, mv, copy, certutil, bitsadmin and
// DownloadFile.
func writtenPaths(text []byte, toks []string, evs []event) []string {
	var out []string
	fields := strings.FieldsFunc(string(text), func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '(' || r == ')' || r == ',' || r == ';'
	})
	for i, w := range fields {
		lw := strings.ToLower(w)
		next := ""
		if i+1 < len(fields) {
			next = strings.Trim(fields[i+1], `"'`)
		}
		switch {
		case lw == ">" || lw == ">>" || lw == "-o" || lw == "-O" || lw == "--output" || lw == "-outfile" ||
			lw == "-d" || lw == "-c" && false || lw == "-C" || lw == "tee" || lw == "--output-document" || lw == "-a" && i > 0 && fields[i-1] == "tee":
			if pathLike(next) {
				out = append(out, next)
			}
		case strings.HasPrefix(w, ">") && len(w) > 1 && w[1] != '&' && w[1] != '>' && pathLike(strings.Trim(w[1:], `"'`)):
			out = append(out, strings.Trim(w[1:], `"'`))
		case strings.HasPrefix(lw, "-o") && len(w) > 2 && (strings.Contains(w, "/") || strings.Contains(w, "\\")):
			out = append(out, strings.Trim(w[2:], `"'`)) // 7z -o/out
		}
	}
	if len(fields) > 0 {
		cmd := strings.ToLower(strings.Trim(fields[0], `"'`))
		args := fields[1:]
		if cmd == "sudo" && len(fields) > 1 {
			cmd, args = strings.ToLower(fields[1]), fields[2:]
		}
		var plain []string // the arguments, without options and redirections
		for _, a := range args {
			if a == "" || a[0] == '>' || a[0] == '|' || len(a) > 1 && a[1] == '>' && a[0] >= '0' && a[0] <= '9' || a[0] == '&' {
				break
			}
			if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "/") || strings.Count(a, "/") > 1 || len(a) > 3 {
				if !strings.HasPrefix(a, "-") {
					plain = append(plain, strings.Trim(a, `"'`))
				}
			}
		}
		switch cmd {
		case "cp", "mv", "copy", "move", "certutil", "bitsadmin", "install", "ditto":
			if len(plain) > 1 && fileLike(plain[len(plain)-1]) {
				out = append(out, plain[len(plain)-1])
			}
		case "zip", "tar", "7z", "gzip", "rar":
			for _, a := range plain {
				if strings.ContainsAny(a, `/\.$`) && fileLike(a) && !strings.HasPrefix(a, "~") {
					out = append(out, a)
					break
				}
			}
		}
	}
	if !containsFold(text, "downloadfile") && !containsFold(text, "urlretrieve") {
		return out
	}
	for _, m := range downloadTo.FindAllSubmatch(text, -1) {
		out = append(out, strings.Trim(strings.TrimSpace(string(m[1])), `"'`))
	}
	return out
}

// runsPath returns the tainted file a statement runs, and how: as the
// command, or given to an interpreter.
func runsPath(text []byte, paths map[string]taint, named bool) (string, string) {
	if !named {
		return "", "" // the statement names no tainted file
	}
	ws := commandWords(text)
	for i, w := range ws {
		for p := range paths {
			if pathMatch(w, p) && !strings.HasSuffix(strings.ToLower(w), ".zip") && !strings.HasSuffix(strings.ToLower(w), ".dmg") &&
				!strings.HasSuffix(strings.ToLower(w), ".tar.gz") && !strings.HasSuffix(strings.ToLower(w), ".7z") {
				if i > 0 {
					return p, "interpreter"
				}
				return p, "program"
			}
		}
	}
	return "", ""
}

// commandWords returns the command of a statement and, when it is an
// interpreter or a launcher (sh, bash, python, source, ., start,
// Start-Process, open), the file it is given, skipping sudo, nohup,
// exec, options and variable settings.
func commandWords(text []byte) []string {
	fields := strings.Fields(string(text[:min(len(text), 256)])) // the command is at the start
	var out []string
	interp := false
	for _, f := range fields {
		w := strings.Trim(f, `"'`)
		lw := strings.ToLower(w)
		switch {
		case strings.Contains(w, "=$(") || strings.Contains(w, "=`"):
			return nil // x=$(cmd ...): what runs is the command inside
		case lw == "sudo" || lw == "nohup" || lw == "exec" || lw == "env" || lw == "time" || lw == "call" ||
			lw == "&" || lw == "then" || lw == "do" || w == "" || strings.Contains(w, "=") && !interp && !strings.Contains(w, "/"):
			continue
		case strings.HasPrefix(w, "-") || strings.HasPrefix(w, "/") && len(w) <= 3 && interp:
			if interp {
				continue
			}
		}
		if len(out) == 0 {
			out = append(out, w)
			base := lw[strings.LastIndexAny(lw, `/\`)+1:]
			if interpreters[base] || base == "." || launchers[base] {
				interp = true
				continue
			}
			return out
		}
		if interp {
			if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "/") && len(w) <= 3 || lw == "+x" || lw == "-a" || lw == `""` {
				continue
			}
			out = append(out, w)
			return out
		}
	}
	return out
}

// launchers run the file they are given.
var launchers = set("start", "start-process", "open", "cmd", "python2", "node", "ruby", "perl", "wscript", "cscript",
	"rundll32")

// commandPath returns the script a statement runs, for the facts: the
// command itself when it is a path, or the file given to an interpreter.
func commandPath(text []byte) string {
	ws := commandWords(text)
	if len(ws) == 0 || len(ws) == 1 && !bytes.ContainsAny(bytes.TrimSpace(text), " \t") && !strings.HasPrefix(ws[0], "./") {
		return "" // a path alone (`/etc/hosts`) is named, not run
	}
	p := ws[len(ws)-1]
	if !plainPath.MatchString(p) || strings.Contains(p, "://") {
		return ""
	}
	if strings.ContainsAny(p, `/\`) || len(ws) > 1 && strings.Contains(p, ".") {
		return p
	}
	return ""
}

// suspectRun reports how a statement runs something so that the user
// does not see it: in the background, its output thrown away, silent,
// hidden.
func suspectRun(text []byte) bool {
	t := strings.ToLower(string(text))
	return strings.HasSuffix(strings.TrimSpace(t), "&") || strings.Contains(t, "/dev/null") ||
		strings.Contains(t, "/silent") || strings.Contains(t, "hidden") || strings.Contains(t, "nohup") ||
		strings.Contains(t, "/quiet")
}

// gitAdd reports a git add (or commit -a) of the files a statement names.
func gitAdd(text []byte) bool {
	t := strings.ToLower(string(text))
	return strings.Contains(t, "git add") || strings.Contains(t, "git commit -a")
}

// scriptRefs returns the scripts of the skill a document names by a
// relative path (scripts/x.py, ./run.sh), for the facts.
func scriptRefs(f *file) []pathFact {
	var out []pathFact
	d := f.data
	for i := 0; ; {
		j := bytes.IndexByte(d[i:], '.')
		if j < 0 {
			return out
		}
		dot := i + j
		i = dot + 1
		e := dot + 1
		for e < len(d) && e-dot <= 4 && ('a' <= d[e] && d[e] <= 'z' || '0' <= d[e] && d[e] <= '9') {
			e++
		}
		if e == dot+1 || !scriptExts[string(d[dot+1:e])] || e < len(d) && (isWordByte(d[e]) || d[e] == '-') {
			continue
		}
		s := dot
		for s > 0 && dot-s < 200 && (isWordByte(d[s-1]) && d[s-1] < 0x80 || strings.IndexByte("./\\-", d[s-1]) >= 0) {
			s--
		}
		p := strings.TrimPrefix(string(d[s:e]), "./")
		if strings.ContainsAny(p, `/\`) && !strings.HasPrefix(p, ".") {
			out = append(out, pathFact{path: p, at: s, label: "names"})
		}
	}
}

// scriptExts are the extensions of the scripts a document may name.
var scriptExts = set("sh", "bash", "zsh", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "ps1", "bat", "cmd",
	"go", "lua")

// checkFlow reports the flows of the rule code in the file.
func checkFlow(code string) func(c *fileCheck) {
	return func(c *fileCheck) {
		if !c.f.is(classText) || c.f.is(classLegal) {
			return
		}
		if v, _ := c.codeView(); v != nil {
			return // the view is read instead (see withCodeView): it holds all the file does
		}
		r := c.flow()
		for _, ff := range r.findings {
			if ff.code != code || c.f.is(classMarkdown) && fenceIntroNegated(c.f, ff.at) {
				continue
			}
			line, _ := position(c.f.data, ff.at)
			dup := false
			for _, o := range c.out {
				dup = dup || o.code == code && o.line == line
			}
			if dup {
				continue
			}
			c.add(ff.at, "%s", flowMessage(c.f, ff))
		}
	}
}

// flow returns the analysis of the file, made once.
func (c *fileCheck) flow() *flowResult {
	if c.flowRes == nil {
		c.flowRes = analyseFlow(c.f)
		c.recordFacts(c.flowRes)
	}
	return c.flowRes
}

// flowMessage says what a flow does.
func flowMessage(f *file, ff flowFinding) string {
	src, _ := position(f.data, ff.srcLine)
	where := ""
	if src > 0 {
		where = " (line " + itoa(src) + ")"
	}
	stmt := excerpt(f.data, ff.stmtStart, ff.stmtEnd)
	switch ff.code {
	case CodeDataExfiltration:
		return "sends " + quoteLabel(ff.what) + where + " over the network with " + ff.sink + " (" + stmt +
			"): a skill never needs to move the user's secrets off the machine; remove it"
	case CodeRemoteCode:
		return "runs what " + quoteLabel(ff.what) + where + " downloads, with " + ff.sink + " (" + stmt + "): what runs is whatever the " +
			"server sends, never what was reviewed; bundle the code, or check the download's digest before running it"
	default:
		return "runs what " + quoteLabel(ff.what) + where + " decodes, with " + ff.sink + " (" + stmt + "): code hidden in an encoding " +
			"cannot be reviewed; bundle it as plain source"
	}
}

func quoteLabel(s string) string {
	if strings.HasPrefix(s, "the ") {
		return s
	}
	return excerptString(s)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// fenceIntroNegated reports whether offset i lies in an example of an
// attack in a Markdown document: a fenced code block, a blockquote or a
// list whose introduction (the paragraph before it, up to 400 bytes, and
// a code block's first line when it is a comment) says it shows an
// attack or something to look for ("attackers run:", "indicators you
// will see (examples, not to run):", "# postinstall.js from a malicious
// package (illustrative)"). A skill can dress an attack up as an example
// this way; the phrase rules accept that, as they accept "never ignore
// previous instructions", rather than flag every security guide.
func fenceIntroNegated(f *file, i int) bool {
	if !f.is(classMarkdown) {
		return false
	}
	d := f.data
	start, first := -1, []byte(nil)
	if inFence(f, i) {
		for _, r := range fencesOf(f) {
			if r[0] <= i && i < r[1] {
				start = r[0]
				// The block's first line after the fence, when a comment.
				ls := lineEnd(d, r[0]) + 1
				if ls < r[1] {
					l := bytes.TrimSpace(d[ls:lineEnd(d, ls)])
					if bytes.HasPrefix(l, []byte("#")) || bytes.HasPrefix(l, []byte("//")) || bytes.HasPrefix(l, []byte("<!--")) {
						first = l
					}
				}
			}
		}
	} else {
		// A blockquote or a list: back to the first line of its run.
		ls, _ := lineBounds(d, i)
		kind := quoteOrItem(d[ls:lineEnd(d, ls)])
		if kind == 0 {
			return false
		}
		for ls > 0 {
			ps, _ := lineBounds(d, ls-1)
			if quoteOrItem(d[ps:ls-1]) != kind && !(kind == '-' && len(bytes.TrimSpace(d[ps:ls-1])) > 0 &&
				(d[ps] == ' ' || d[ps] == '\t')) {
				break
			}
			ls = ps
		}
		start = ls
	}
	if start < 0 {
		return false
	}
	j := start
	for j > 0 && (d[j-1] == '\n' || d[j-1] == ' ' || d[j-1] == '\r') {
		j--
	}
	lo := max(0, j-400)
	if k := bytes.LastIndex(d[lo:j], []byte("\n\n")); k >= 0 {
		lo += k + 2
	}
	intro := append(append([]byte(nil), d[lo:j]...), first...)
	return exampleIntro(intro)
}

// quoteOrItem returns '>' for a blockquote line, '-' for a list item, 0
// otherwise.
func quoteOrItem(line []byte) byte {
	t := bytes.TrimLeft(line, " \t")
	switch {
	case len(t) > 0 && t[0] == '>':
		return '>'
	case len(t) > 1 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ':
		return '-'
	}
	n := 0
	for n < len(t) && '0' <= t[n] && t[n] <= '9' {
		n++
	}
	if n > 0 && n < len(t) && (t[n] == '.' || t[n] == ')') {
		return '-'
	}
	return 0
}

// exampleIntro reports whether text introduces an example of an attack.
func exampleIntro(text []byte) bool {
	for _, w := range words(text, 0, len(text)) {
		if attackWords[w] {
			return true
		}
	}
	intro := strings.ToLower(string(text))
	for _, p := range []string{"never run", "do not run", "don't run", "not to run", "never use", "do not use",
		"don't use", "never do", "for example", "such as", "example of", "examples of", "looks like", "look like",
		"bad:", "wrong:", "do not copy", "don't copy", "never paste", "do not paste", "don't paste", "illustrative",
		"red flag", "what to note", "you may find", "grep for", "look for", "hunting for", "seen in",
		"the kind of thing", "might contain", "in the wild"} {
		if strings.Contains(intro, p) {
			return true
		}
	}
	return false
}

// attackWords, in the sentence that introduces a code block, say the
// block shows an attack rather than asks for one.
var attackWords = set("attack", "attacks", "attacker", "attackers", "malicious", "malware", "exploit", "exploits",
	"payload", "payloads", "indicator", "indicators", "ioc", "iocs", "telemetry", "dropper", "droppers", "phishing",
	"injection", "injected", "detect", "detects", "detecting", "flag", "flags", "dangerous",
	"suspicious", "adversary", "adversaries", "threat", "threats", "vulnerable", "insecure", "avoid", "e.g",
	"mitigate", "mitigation", "compromised", "backdoor", "backdoors", "phishing", "red-team", "pentest", "ctf")
