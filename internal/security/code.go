package security

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// interpreters are the programs that run what is piped into them.
var interpreters = set("sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python2", "python3", "perl",
	"ruby", "node", "php", "iex", "invoke-expression", "pwsh", "powershell", "source", "lua", "osascript", "deno",
	"bun")

// pipedToInterpreter reports whether the line rest holds a "|" (not
// "||") whose command is an interpreter, after sudo, env, their options
// and variable settings: "| sh", "| sudo -E bash -", "|iex",
// "| /usr/bin/env python3".
func pipedToInterpreter(rest []byte) bool {
	for i := 0; i < len(rest); i++ {
		if rest[i] != '|' {
			continue
		}
		if i+1 < len(rest) && rest[i+1] == '|' || i > 0 && rest[i-1] == '|' {
			i++
			continue
		}
		seg := rest[i+1:]
		if j := bytes.IndexAny(seg, "|;&)"); j >= 0 {
			seg = seg[:j]
		}
		for _, w := range bytes.Fields(seg) {
			t := strings.ToLower(strings.Trim(string(w), "\"'`"))
			if t == "sudo" || t == "env" || t == "exec" || strings.HasPrefix(t, "-") || strings.Contains(t, "=") ||
				strings.HasSuffix(t, "/env") {
				continue
			}
			if j := strings.LastIndexByte(t, '/'); j >= 0 {
				t = t[j+1:]
			}
			if interpreters[t] {
				// python -c CODE, node -e CODE, python -m json.tool: the
				// code is given, what comes down the pipe is its data.
				return !inlineCode(seg[bytes.Index(seg, w)+len(w):])
			}
			break
		}
	}
	return false
}

// inlineCode reports whether an interpreter's command (the words after
// the pipe) gives the code itself, with -c, -e, -m, -r or --eval, so that
// what is piped in is data: curl ... | python3 -c 'import json, sys; ...'.
func inlineCode(seg []byte) bool {
	for _, w := range bytes.Fields(seg) {
		switch string(w) {
		case "-c", "-e", "-m", "-r", "--eval", "-Command", "-command":
			return true
		case "-", "-s":
			return false
		}
	}
	return false
}

// Remote code: a downloader whose output goes straight to an interpreter.
var downloaders = []string{"curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod",
	"downloadstring", "net.webclient", "urlopen", "requests.get", "fetch(", "http.get(", "urllib"}

func remoteAnchors() []anchor {
	return slices.Concat(
		anchorsOf(CodeRemoteCode, verifyRemote, downloaders...),
		anchorsOf(CodeKnownInstaller, verifyKnownInstaller, downloaders...),
		anchorsOf(CodeRemoteCode, verifyRemoteLauncher, "mshta", "regsvr32", "rundll32", "msiexec", "installutil",
			"regasm", "cmstp"),
		anchorsOf(CodeRemoteCode, verifyDropper, ".exe", ".msi", ".dmg", ".pkg", ".zip", ".7z", ".rar", ".scr",
			".appimage", ".bin", ".apk"),
		anchorsOf(CodeRemoteCode, verifyPasteSite, "paste it into", "paste it in", "paste into", "paste them into",
			"paste the script into", "paste the command into", "paste this into"))
}

// verifyRemoteLauncher: a Windows program that runs what it fetches
// from a URL itself (mshta https://..., regsvr32 /i:https://...
// scrobj.dll, msiexec /i https://...).
func verifyRemoteLauncher(f *file, start, end int) (string, bool) {
	d := f.data
	if !wordStart(d, start) || !wordEnd(d, end) && !bytes.HasPrefix(d[end:], []byte(".exe")) ||
		f.is(classMarkdown) && (tableRow(d, start) || fenceIntroNegated(f, start)) {
		return "", false
	}
	ls, le := lineBounds(d, start)
	rest := d[end:le]
	if !containsFold(rest, "http://") && !containsFold(rest, "https://") && !bytes.Contains(rest, []byte(`\\`)) ||
		knownInstaller(d[ls:le]) {
		return "", false
	}
	return "has " + string(d[start:end]) + " run code it fetches from the network (" + excerpt(d, ls, le) + "): " +
		"what runs is whatever the server sends, never what was reviewed; remove it", true
}

// dropperSigns are what turns a download link into a dropper: an
// archive with a password (which keeps scanners out), a warning to be
// clicked through, an install that hides or starts with the system.
var dropperSigns = []string{"password", "run anyway", "antivirus", "anti-virus", "defender", "smartscreen",
	"exclusion", "unknown publisher", "silently", "starts with windows", "start with windows", "at every logon",
	"at login", "disable your", "turn off your"}

// archivePassword is a password given for an archive in short: "pass:
// openclaw", "with pass `x`", "pwd: x".
var archivePassword = regexp.MustCompile(`(?i)\b(?:pass|pwd|passcode|passphrase)\b\s*[:=]?\s*[*` + "`" + `"']`)

// pasteSites serve anyone's text under a random name.
var pasteSites = []string{"pastebin.com", "glot.io", "paste.ee", "rentry.co", "rentry.org", "hastebin", "ghostbin",
	"controlc.com", "justpaste.it", "dpaste.", "paste.rs", "privatebin", "termbin.com", "ix.io", "sprunge.us",
	"pastes.dev", "pastie.", "0bin.net", "paste.mozilla.org", "bpa.st", "pastecode.io", "jsfiddle.net"}

// verifyPasteSite: a page of a paste site whose script the text says to
// copy into a terminal ("visit https://glot.io/snippets/x, copy the
// installation script and paste it into Terminal").
func verifyPasteSite(f *file, start, end int) (string, bool) {
	d := f.data
	if !f.is(classDoc) || f.is(classMarkdown) && tableRow(d, start) {
		return "", false
	}
	ps, pe := paragraphBounds(d, start)
	para := d[ps:pe]
	site := ""
	for _, p := range pasteSites {
		if containsFold(para, p) {
			site = p
			break
		}
	}
	if site == "" || !containsFold(para, "terminal") && !containsFold(para, "powershell") &&
		!containsFold(para, "command prompt") && !containsFold(para, "console") && !containsFold(para, "shell") {
		return "", false
	}
	s, e := sentenceBounds(d, start, end)
	if negated(d, s, start) {
		return "", false
	}
	return "has the user or the agent paste a script from a paste site (" + site + ") into a terminal (" +
		excerpt(d, s, e) + "): what runs is whatever that page says that day; remove it", true
}

// verifyDropper: a link to a program or an archive, in a paragraph that
// tells to run it and gives a dropper's sign ("extract it with the
// password openclaw and run the .exe", "Defender may warn: choose Run
// anyway", "it installs silently and starts with Windows").
func verifyDropper(f *file, start, end int) (string, bool) {
	d := f.data
	if !f.is(classDoc) || end < len(d) && isWordByte(d[end]) || f.is(classMarkdown) && tableRow(d, start) {
		return "", false
	}
	// Part of a link: a URL on the line before it, or after it when it
	// is a Markdown link's text ([agent.zip](https://...)).
	ls, le := lineBounds(d, start)
	tok, _ := pathToken(d, start, end)
	if !containsFold(d[max(ls, tok-200):start], "http") && !bytes.HasPrefix(d[end:le], []byte("](http")) {
		return "", false
	}
	ps, pe := paragraphBounds(d, start)
	para := d[ps:pe]
	run := false
	for _, v := range []string{"run ", "run it", "execute", "launch", "open ", "double-click", "install", "extract"} {
		run = run || containsFold(para, v)
	}
	sign := ""
	for _, s := range dropperSigns {
		if containsFold(para, s) {
			sign = s
			break
		}
	}
	if m := archivePassword.Find(para); sign == "" && m != nil {
		sign = string(m) // "extract with pass openclaw"
	}
	if !run || sign == "" {
		return "", false
	}
	s, _ := sentenceBounds(d, start, end)
	if negated(d, s, start) {
		return "", false
	}
	return "has the user or the agent download and run a program (" + excerpt(d, tok, min(len(d), end+20)) + ") " +
		"with a dropper's sign (" + strconv.Quote(sign) + "): what runs is whatever the server sends, and an " +
		"archive with a password or a warning to click through keeps it from being checked; remove it", true
}

// paragraphBounds returns the paragraph around i: from the blank line
// before it to the blank line after it, at most 1,200 bytes either way.
func paragraphBounds(d []byte, i int) (int, int) {
	lo := max(0, i-1200)
	s := bytes.LastIndex(d[lo:i], []byte("\n\n"))
	if s < 0 {
		s = lo
	} else {
		s += lo + 2
	}
	hi := min(len(d), i+1200)
	e := bytes.Index(d[i:hi], []byte("\n\n"))
	if e < 0 {
		e = hi
	} else {
		e += i
	}
	return s, e
}

func verifyRemote(f *file, start, end int) (string, bool) {
	why, ok := remoteRun(f, start, end)
	if !ok {
		return "", false
	}
	ls, le := lineBounds(f.data, start)
	if knownInstaller(f.data[ls:le]) {
		return "", false // known-installer says so
	}
	return why + " (" + excerpt(f.data, ls, le) + "): what runs is whatever the server sends, never what was " +
		"reviewed; bundle the script, or download it, check its digest, then run it", true
}

// remoteRun says how the line of the downloader at [start, end) runs
// what it downloads, or ok false.
func remoteRun(f *file, start, end int) (string, bool) {
	d := f.data
	if !wordStart(d, start) || f.is(classMarkdown) && tableRow(d, start) {
		return "", false // a table lists patterns, it does not run them
	}
	ls, le := lineBounds(d, start)
	line, at := d[ls:le], start-ls
	before := bytes.TrimRight(line[:at], " \t\"'")
	why := ""
	switch {
	case pipedToInterpreter(line[at:]):
		why = "pipes a download into an interpreter"
	case bytes.HasSuffix(before, []byte("<(")) && interpreterBefore(before[:len(before)-2]):
		why = "runs a download through process substitution"
	case evaluated(before, f.is(classScript)):
		why = "evaluates a download"
	case (containsWord(line, "iex") || containsFold(line, "invoke-expression")) &&
		hasPrefixIn(anchorText(d, start, end), "iwr", "irm", "invoke-", "downloadstring", "net.webclient"):
		why = "runs a download with Invoke-Expression"
	case (containsFold(line[:at], "exec(") || containsFold(line[:at], "eval(")) &&
		hasPrefixIn(anchorText(d, start, end), "urlopen", "requests.get", "fetch(", "http.get(", "urllib"):
		why = "evaluates a download"
	}
	return why, why != ""
}

// evaluated reports whether the text before a downloader opens a command
// substitution that a shell evaluates: eval "$(curl, sh -c "$(wget, and
// in scripts the backquote forms (in prose a backquote opens a code span).
func evaluated(before []byte, script bool) bool {
	var rest []byte
	switch {
	case bytes.HasSuffix(before, []byte("$(")):
		rest = before[:len(before)-2]
	case script && bytes.HasSuffix(before, []byte("`")):
		rest = before[:len(before)-1]
	default:
		return false
	}
	rest = bytes.TrimRight(rest, " \t\"'")
	if bytes.HasSuffix(rest, []byte(" -c")) || bytes.HasSuffix(rest, []byte(" -Command")) {
		return true
	}
	ws := words(rest, max(0, len(rest)-40), len(rest))
	return len(ws) > 0 && oneOf(ws[len(ws)-1], "eval", "exec", "source", "iex")
}

// interpreterBefore reports whether the text ends with a shell or source
// command ("bash ", "source ", ". ").
func interpreterBefore(b []byte) bool {
	b = bytes.TrimRight(b, " \t")
	if bytes.HasSuffix(b, []byte(".")) && (len(b) == 1 || b[len(b)-2] == ' ') {
		return true
	}
	ws := words(b, max(0, len(b)-40), len(b))
	return len(ws) > 0 && interpreters[ws[len(ws)-1]]
}

// containsWord reports whether the lower-case word w occurs in b as a
// whole word, ignoring case.
func containsWord(b []byte, w string) bool { return indexWord(b, w) >= 0 }

// indexWord returns the offset of the first whole-word occurrence of the
// lower-case word w in b, ignoring case, or -1.
func indexWord(b []byte, w string) int {
	for i := 0; ; {
		j := indexFold(b[i:], w)
		if j < 0 {
			return -1
		}
		if wordStart(b, i+j) && wordEnd(b, i+j+len(w)) {
			return i + j
		}
		i += j + 1
	}
}

// Obfuscated code: a decoder whose output is run.
var decoders = []string{"base64 -d", "base64 --decode", "base64 -di", "b64decode", "atob(", "base64_decode(",
	"frombase64string", "xxd -r", "fromcharcode", "-encodedcommand", "-enc ", "openssl enc -d", "openssl base64 -d",
	"zlib.decompress", "marshal.loads", "codecs.decode"}

func obfuscationAnchors() []anchor {
	return anchorsOf(CodeObfuscatedCode, verifyObfuscated, decoders...)
}

func verifyObfuscated(f *file, start, end int) (string, bool) {
	d := f.data
	if f.is(classMarkdown) && tableRow(d, start) {
		return "", false
	}
	ls, le := lineBounds(d, start)
	line, at := d[ls:le], start-ls
	a := anchorText(d, start, end)
	why := ""
	switch {
	case a == "-encodedcommand" || a == "-enc ":
		// With its payload: a base64 literal (a variable or a
		// placeholder shows the flag, it hides nothing).
		arg := bytes.TrimLeft(line[min(len(line), at+len(a)):], " ")
		n := 0
		for n < len(arg) && base64Class[arg[n]] {
			n++
		}
		if (containsWord(line[:at], "powershell") || containsWord(line[:at], "pwsh")) && n >= 16 {
			why = "runs an encoded PowerShell command"
		}
	case pipedToInterpreter(line[at:]):
		why = "pipes decoded data into an interpreter"
	default:
		for _, w := range []string{"eval", "exec", "iex", "invoke-expression", "system", "popen", "function", "spawn",
			"execsync", "compile"} {
			if containsWord(line[:at], w) {
				why = "runs decoded data with " + w
				break
			}
		}
	}
	if why == "" {
		return "", false
	}
	return why + " (" + excerpt(d, ls, le) + "): code hidden in an encoding cannot be reviewed; bundle it as " +
		"plain source", true
}

// checkExecutable reports compiled programs by their magic number, and
// binary files with an executable bit.
func checkExecutable(c *fileCheck) {
	d := c.f.data
	kind := ""
	switch {
	case bytes.HasPrefix(d, []byte("\x7fELF")):
		kind = "an ELF program (Linux, BSD)"
	case bytes.HasPrefix(d, []byte{0xfe, 0xed, 0xfa, 0xce}), bytes.HasPrefix(d, []byte{0xfe, 0xed, 0xfa, 0xcf}),
		bytes.HasPrefix(d, []byte{0xce, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(d, []byte{0xcf, 0xfa, 0xed, 0xfe}):
		kind = "a Mach-O program (macOS)"
	case bytes.HasPrefix(d, []byte{0xca, 0xfe, 0xba, 0xbe}):
		kind = "a Mach-O universal program (macOS) or a Java class"
	case isPE(d):
		kind = "a PE program (Windows .exe or .dll)"
	case bytes.HasPrefix(d, []byte("\x00asm")):
		kind = "a WebAssembly module"
	case c.f.mode&0o111 != 0 && !c.f.is(classText):
		kind = "a binary file with the executable bit set"
	}
	if kind == "" {
		return
	}
	c.add(-1, "the file is %s, which cannot be reviewed like a script: ship its source, or say in SKILL.md "+
		"where it comes from and how to check it", kind)
}

// isPE reports whether d starts a PE file: "MZ", and "PE\0\0" where the
// DOS header points.
func isPE(d []byte) bool {
	if len(d) < 0x40 || d[0] != 'M' || d[1] != 'Z' {
		return false
	}
	off := int(binary.LittleEndian.Uint32(d[0x3c:]))
	return off > 0 && off+4 <= len(d) && string(d[off:off+4]) == "PE\x00\x00"
}

// Blobs.
const (
	minBlob   = 256 // characters of base64 or hex in one run
	minEscape = 32  // \xHH escapes in a row
)

var base64Class = func() (t [256]bool) {
	for b := 'A'; b <= 'Z'; b++ {
		t[b], t[b+'a'-'A'] = true, true
	}
	for b := '0'; b <= '9'; b++ {
		t[b] = true
	}
	t['+'], t['/'], t['-'], t['_'] = true, true, true, true
	return
}()

// checkBlobs reports long base64 or hex runs and long runs of \x escapes
// in text files.
func checkBlobs(c *fileCheck) {
	f := c.f
	if !f.is(classText) || f.is(classLegal) {
		return
	}
	d := f.data
	longRuns(d, minBlob, func(s, e int) {
		for e < len(d) && e-s < 1<<30 && d[e] == '=' {
			e++
		}
		kind := blobKind(d[s:e])
		if kind == "" || imageData(d, s) {
			return
		}
		c.add(s, "a run of %d %s characters (%s) hides what it holds from review: ship the data as a file of "+
			"its own type, or say what it is", e-s, kind, excerpt(d, s, s+24))
	})
	for i := 0; ; {
		j := bytes.Index(d[i:], []byte(`\x`))
		if j < 0 {
			return
		}
		s := i + j
		n, k := 0, s
		for k+4 <= len(d) && d[k] == '\\' && lower(d[k+1]) == 'x' && isHex(d[k+2]) && isHex(d[k+3]) {
			n++
			k += 4
		}
		if n >= minEscape {
			c.add(s, "%d \\x escapes in a row (%s) spell out bytes that cannot be read in review: write them as "+
				"text, or ship the data as a file", n, excerpt(d, s, s+24))
		}
		i = max(k, s+2)
	}
}

func isHex(b byte) bool { return '0' <= b && b <= '9' || 'a' <= lower(b) && lower(b) <= 'f' }

// longRuns calls fn with every maximal run of base64 characters at least
// min long. It probes one byte in min: a byte outside the class rules out
// every run through it, so plain text is skipped min bytes at a time.
func longRuns(d []byte, min int, fn func(start, end int)) {
	i := 0 // no run of the class continues into i from before
	for i+min <= len(d) {
		p := i + min - 1
		if !base64Class[d[p]] {
			i = p + 1
			continue
		}
		q := p
		for q > i && base64Class[d[q-1]] {
			q--
		}
		if q > i {
			i = q // a run starts at q; probe again at its min-th byte
			continue
		}
		e := p + 1
		for e < len(d) && base64Class[d[e]] {
			e++
		}
		fn(i, e)
		i = e + 1
	}
}

// blobKind says what a run looks like: "hexadecimal", "base64", or ""
// when it is neither (a long word, a line of dashes).
func blobKind(run []byte) string {
	var upper, lowerc, digit, other bool
	hex := true
	if len(run) > 2 && run[0] == '0' && lower(run[1]) == 'x' {
		run = run[2:] // a hexadecimal literal
	}
	for _, b := range bytes.TrimRight(run, "=") {
		switch {
		case 'A' <= b && b <= 'Z':
			upper = true
			hex = hex && b <= 'F'
		case 'a' <= b && b <= 'z':
			lowerc = true
			hex = hex && b <= 'f'
		case '0' <= b && b <= '9':
			digit = true
		default:
			other = true
			hex = false
		}
	}
	switch {
	case hex && digit && (upper != lowerc):
		return "hexadecimal"
	case upper && lowerc && digit:
		return "base64"
	case other && (upper || lowerc) && digit:
		return "base64"
	}
	return ""
}

// imageData reports whether the run at s is an inline image, font or
// source map: a data:image/ URI, or a notebook's "image/png": "...".
func imageData(d []byte, s int) bool {
	lo := max(0, s-64)
	before := d[lo:s]
	return containsFold(before, "data:image/") || containsFold(before, "data:font/") ||
		containsFold(before, "data:application/font") || containsFold(before, "\"image/") ||
		containsFold(before, "data:application/json") // an inline source map
}
