package security

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"sync"
)

// The phrase rules (instruction-override, fake-framing,
// secret-exfiltration, safety-bypass, remote-code, obfuscated-code,
// credential-path) share one pass over each text file: the matcher finds
// every anchor of every rule, and each rule then checks its own anchors'
// surroundings with a verifier.

// anchor is a lower-case literal a rule looks for, and how to tell a real
// finding from an innocent use.
type anchor struct {
	text   string
	code   string
	verify verifier
	// flow is the role of a data flow anchor (see flow.go), which no
	// phrase rule reports itself; code is then empty.
	flow flowRole
}

// verifier looks at an anchor found at data[start:end] and returns the
// message of a finding (with the excerpt's end), or ok false.
type verifier func(f *file, start, end int) (msg string, ok bool)

// anchorsOf makes an anchor of each text, of the rule code, checked by
// verify.
func anchorsOf(code string, verify verifier, texts ...string) []anchor {
	out := make([]anchor, len(texts))
	for i, t := range texts {
		out[i] = anchor{text: t, code: code, verify: verify}
	}
	return out
}

// hit is an anchor found in a file.
type hit struct {
	id, start, end int
}

var (
	anchorsOnce sync.Once
	anchorTable []anchor
	anchorScan  *matcher
)

// anchors returns the table and its matcher, built on first use.
func anchors() ([]anchor, *matcher) {
	anchorsOnce.Do(func() {
		for _, group := range [][]anchor{overrideAnchors(), framingAnchors(), exfiltrationAnchors(),
			safetyAnchors(), remoteAnchors(), obfuscationAnchors(), credentialAnchors(), dataFlowAnchors(), reverseShellAnchors(), persistenceAnchors(),
			remoteInstructionAnchors(), urlExfiltrationAnchors()} {
			anchorTable = append(anchorTable, group...)
		}
		texts := make([]string, len(anchorTable))
		for i, a := range anchorTable {
			texts[i] = a.text
		}
		anchorScan = newMatcher(texts)
	})
	return anchorTable, anchorScan
}

// phraseScope says which files a phrase rule reads.
func phraseScope(code string, f *file) bool {
	if !f.is(classText) || f.is(classLegal) {
		return false
	}
	switch code {
	case CodeCredentialPath:
		return f.is(classDoc | classScript)
	case CodeRemoteInstructions, CodeURLExfiltration:
		return f.is(classDoc)
	case CodeFakeFraming:
		// Scripts build prompts for their own model calls with such tags;
		// the agent reads the documents.
		return f.is(classDoc)
	}
	return true
}

// hitsOf returns the anchors found in f, scanning it on first use.
func hitsOf(f *file) []hit {
	if !f.hitsDone {
		f.hitsDone = true
		_, m := anchors()
		f.hits = m.scan(f.data)
	}
	return f.hits
}

// checkPhrases is the file check of a phrase rule: it verifies the rule's
// anchors found in the file, one finding per line at most.
func checkPhrases(code string) func(c *fileCheck) {
	return func(c *fileCheck) {
		if !phraseScope(code, c.f) {
			return
		}
		table, _ := anchors()
		lineEnd, spent, tries := -1, 0, 0
		for _, h := range hitsOf(c.f) {
			a := table[h.id]
			if a.code != code || h.start < lineEnd {
				continue // another rule's, or on the line of a finding
			}
			ls, le := lineBounds(c.f.data, h.start)
			if spent += le - ls + verifyCost; spent > maxVerify {
				c.addAs(CodeIncompleteScan, h.start, "the %s rule stopped after checking %d matches in this file, "+
					"so the rest of it was not checked: the file repeats what the rule looks for too often "+
					"in too long lines", code, tries)
				return
			}
			tries++
			if msg, ok := a.verify(c.f, h.start, h.end); ok && !fenceIntroNegated(c.f, h.start) &&
				!(injectionCodes[code] && testData(c.f, h.start)) {
				_, lineEnd = lineBounds(c.f.data, h.start)
				c.add(h.start, "%s", msg)
			}
		}
	}
}

// injectionCodes are the rules about text aimed at the agent.
var injectionCodes = map[string]bool{CodeInstructionOverride: true, CodeFakeFraming: true, CodeSecretExfiltration: true,
	CodeSafetyBypass: true, CodeRemoteInstructions: true}

// dataKeys are the keys of a data file (YAML, JSON, TOML) whose values
// are test inputs and examples: a red-team suite's attack strings, a
// classifier's samples. Text there is data the skill sends or checks,
// not an instruction to the agent (an assistant_directive or a note is).
var dataKeys = set("attack", "attacks", "prompt", "prompts", "input", "inputs", "payload", "payloads", "example",
	"examples", "sample", "samples", "test", "tests", "case", "cases", "jailbreak", "jailbreaks", "injection",
	"injections", "query", "queries", "question", "questions", "utterance", "utterances", "pattern", "patterns",
	"string", "strings", "expected", "positive", "negative", "adversarial")

// testData reports whether offset i of a data file lies in the value of
// a data key (see dataKeys): key: "...", or a block scalar (key: >-) or
// list below such a key.
func testData(f *file, i int) bool {
	switch strings.ToLower(path.Ext(f.rel)) {
	case ".yaml", ".yml", ".json", ".jsonl", ".toml":
	default:
		return false
	}
	d := f.data
	ls, le := lineBounds(d, i)
	indent := func(l []byte) int { return len(l) - len(bytes.TrimLeft(l, " \t-")) }
	key := func(l []byte) string {
		t := bytes.TrimLeft(l, " \t-{,")
		k := bytes.IndexAny(t, ":=")
		if k <= 0 {
			return ""
		}
		return strings.ToLower(strings.Trim(string(bytes.TrimSpace(t[:k])), `"'`))
	}
	if k := key(d[ls:le]); k != "" && bytes.IndexAny(d[ls:i], ":=") >= 0 {
		return dataKeys[k]
	}
	// The nearest line above with less indentation names the key.
	in := indent(d[ls:le])
	for n, s := 0, ls; n < 40 && s > 0; n++ {
		ps, _ := lineBounds(d, s-1)
		l := d[ps : s-1]
		if len(bytes.TrimSpace(l)) > 0 && indent(l) < in {
			return dataKeys[key(l)]
		}
		s = ps
	}
	return false
}

// maxVerify caps the work of a phrase rule in one file, in bytes looked
// at: a match costs its line (up to a window either way) and about
// verifyCost for its sentence, so that a file of one anchor repeated on a
// long line stops after some 16,000 matches instead of costing its size
// times the window, while ordinary text affords some 100,000 matches.
const (
	maxVerify  = 128 << 20
	verifyCost = 1 << 10
)

// words lists.
var (
	overrideVerbs  = []string{"ignore", "disregard", "forget", "override", "overrule"}
	overrideFiller = set("all", "any", "every", "the", "your", "these", "those", "my", "of", "its", "our", "earlier",
		"of", "whatever")
	overrideWhen = set("previous", "prior", "above", "earlier", "preceding", "former", "original", "foregoing",
		"initial", "system", "developer", "existing", "safety", "previously", "old", "default", "core", "content",
		"ethical", "usage", "moral", "anthropic's", "openai's", "earlier", "given")
	overrideWhat = []string{"instruction", "prompt", "rule", "directive", "guideline", "message", "context",
		"constraint", "polic", "guardrail", "programming", "training", "command", "order", "task"}
	jailbreakWords = set("dan", "jailbroken", "unrestricted", "unfiltered", "uncensored", "developer", "god",
		"evil", "free", "unbound", "unlocked")
)

func overrideAnchors() []anchor {
	const code = CodeInstructionOverride
	return slices.Concat(
		anchorsOf(code, verifyOverride, overrideVerbs...),
		anchorsOf(code, verifyJailbreak, "you are now ", "you're now ", "from now on you are "),
		anchorsOf(code, verifyLiteral("tells the agent its instructions are replaced", false),
			"new system prompt", "new instructions:", "updated system prompt", "real instructions:"),
		hijackAnchors())
}

// verifyOverride: ignore|disregard|forget ... [fillers] previous|prior|...
// instructions|prompts|rules..., or ignore everything above.
func verifyOverride(f *file, start, end int) (string, bool) {
	d := f.data
	// A phrase glued to the word before it (formatting.Ignore,
	// textignore all previous instructions) counts as well: the words
	// after it must then make the whole phrase.
	if !wordEnd(d, end) || quoted(d, start) && !introduced(d, start) {
		return "", false
	}
	s, e := sentenceBounds(d, start, end)
	ws := wordsAfter(d, end, e, 6)
	i := 0
	owned := false // "your instructions", "all instructions": the agent's own
	for i < len(ws) && i < 3 && overrideFiller[ws[i]] {
		owned = owned || ws[i] == "your" || ws[i] == "all"
		i++
	}
	matched := false
	switch {
	case owned && i < len(ws) && hasPrefixIn(ws[i], "instruction", "prompt", "directive", "guideline", "guardrail",
		"programming", "training"):
		matched = true
	case i < len(ws) && (ws[i] == "everything" || ws[i] == "anything" || ws[i] == "all") && i+1 < len(ws) &&
		oneOf(ws[i+1], "above", "before", "previously", "prior", "earlier"):
		matched = true
	case i < len(ws) && (ws[i] == "everything" || ws[i] == "anything" || ws[i] == "all" || ws[i] == "what") &&
		i+2 < len(ws) && (ws[i+1] == "you" || ws[i+1] == "you've" || ws[i+1] == "you're") &&
		oneOf(ws[i+2], "were", "have", "had", "ve", "been", "told", "know", "learned", "are"):
		// forget everything you were told, forget all you know
		matched = true
	case i < len(ws) && hasPrefixIn(ws[i], overrideWhat...) && i+1 < len(ws) &&
		(oneOf(ws[i+1], "above", "before", "earlier", "previously", "so") ||
			ws[i+1] == "you" && i+2 < len(ws) && oneOf(ws[i+2], "were", "have", "had", "received", "got", "ve")):
		// disregard the instructions above, the rules you were given
		matched = true
	case i < len(ws) && overrideWhen[ws[i]]:
		i++
		if i < len(ws) && overrideWhen[ws[i]] {
			i++
		}
		matched = i < len(ws) && hasPrefixIn(ws[i], overrideWhat...)
	}
	if !matched || negatedAt(d, s, start) {
		return "", false
	}
	return "tells the agent to drop the instructions it was given (" + excerpt(d, start, e) +
		"): remove it; a skill adds to the agent's instructions, it never replaces them", true
}

// verifyJailbreak: you are now DAN|unrestricted|in developer mode ...
func verifyJailbreak(f *file, start, end int) (string, bool) {
	d := f.data
	if !wordStart(d, start) || quoted(d, start) && !introduced(d, start) {
		return "", false
	}
	s, e := sentenceBounds(d, start, end)
	ws := wordsAfter(d, end, e, 4)
	for _, w := range ws {
		if jailbreakWords[w] {
			if negatedAt(d, s, start) {
				return "", false
			}
			return "tells the agent it is now another, unrestricted assistant (" + excerpt(d, start, e) +
				"): remove it", true
		}
	}
	return "", false
}

// verifyLiteral accepts an anchor at a word start, outside quotes and
// negation (and, with skipTables, outside Markdown table rows), with the
// message what.
func verifyLiteral(what string, skipTables bool) verifier {
	return func(f *file, start, end int) (string, bool) {
		d := f.data
		if !wordStart(d, start) || quoted(d, start) || skipTables && f.is(classMarkdown) && tableRow(d, start) {
			return "", false
		}
		s, e := sentenceBounds(d, start, end)
		if negated(d, s, start) {
			return "", false
		}
		return what + " (" + excerpt(d, start, min(e, end+60)) + "): remove it", true
	}
}

// Fake framing: tags and markers of the host's own messages.
var framingTags = []string{"system", "system-reminder", "system_reminder", "system-prompt", "system_prompt",
	"available_skills", "function_calls", "function_results", "tool_call", "tool_calls", "tool_result",
	"tool_results", "tool_use", "tool_response", "antml:invoke", "antml:function_calls", "skill_content"}

func framingAnchors() []anchor {
	const code = CodeFakeFraming
	var tags []string
	for _, t := range framingTags {
		tags = append(tags, "<"+t, "</"+t)
	}
	return slices.Concat(
		anchorsOf(code, verifyTag, tags...),
		anchorsOf(code, verifyTurn, "<|im_start|>", "<|start_header_id|>", "<start_of_turn>"),
		anchorsOf(code, verifyMarker, "<<sys>>", "[inst]", "<|system|>"),
		anchorsOf(code, verifySystemLine, "system:"))
}

// shownAsCode reports whether offset i lies in a code span or, in
// Markdown, a fenced code block: text that shows a tag rather than uses
// it.
func shownAsCode(f *file, i int) bool {
	return inCodeSpan(f.data, i) || f.is(classMarkdown) && inFence(f, i)
}

// verifyTag: <system> and friends, as a whole tag name (followed by >,
// white space or /), not shown as code. A closing tag always counts; an
// opening one at the start of a line or with its closing tag in the file
// (an inline "<system>" is more often a placeholder, as in "/audit
// <system>").
func verifyTag(f *file, start, end int) (string, bool) {
	d := f.data
	if end < len(d) && !(d[end] == '>' || d[end] == ' ' || d[end] == '\t' || d[end] == '\n' || d[end] == '/') {
		return "", false
	}
	if shownAsCode(f, start) {
		return "", false
	}
	if d[start+1] != '/' {
		ls, _ := lineBounds(d, start)
		name := strings.ToLower(string(d[start+1 : end]))
		if len(bytes.TrimLeft(d[ls:start], " \t>-*")) > 0 && !f.hasClosing(name) {
			return "", false
		}
	}
	close := bytes.IndexByte(d[end:min(len(d), end+200)], '>')
	stop := end
	if close >= 0 {
		stop = end + close + 1
	}
	return "imitates the host's framing with the tag " + excerpt(d, start, stop) + ", which the agent may take " +
		"for a message of the system or a tool: remove it, or put it in a code span if the skill documents it", true
}

// verifyMarker: chat-template markers at the start of a line, not shown
// as code (in running text they are named, not used).
func verifyMarker(f *file, start, end int) (string, bool) {
	ls, _ := lineBounds(f.data, start)
	if shownAsCode(f, start) || len(bytes.TrimLeft(f.data[ls:start], " \t\"'")) > 0 {
		return "", false
	}
	return "imitates a chat template's turn marker " + excerpt(f.data, start, end) + ", which can make the " +
		"agent read what follows as a system turn: remove it, or put it in a code span if the skill documents it", true
}

// verifyTurn: a chat template's turn opener followed by a role
// (<|im_start|>system), not shown as code.
func verifyTurn(f *file, start, end int) (string, bool) {
	ws := wordsAfter(f.data, end, min(len(f.data), end+40), 1)
	if len(ws) == 0 || !oneOf(ws[0], "system", "user", "assistant", "developer", "tool", "model", "ipython") ||
		shownAsCode(f, start) {
		return "", false
	}
	return "opens a chat template turn " + excerpt(f.data, start, min(len(f.data), end+len(ws[0]))) + ", which " +
		"can make the agent read what follows as another speaker's turn: remove it, or put it in a code span if " +
		"the skill documents it", true
}

// verifySystemLine: a line starting SYSTEM: (upper case), after Markdown
// markers.
func verifySystemLine(f *file, start, end int) (string, bool) {
	d := f.data
	if string(d[start:end]) != "SYSTEM:" || shownAsCode(f, start) {
		return "", false
	}
	ls, le := lineBounds(d, start)
	for _, b := range d[ls:start] {
		if !strings.ContainsRune(" \t#>*-_", rune(b)) {
			return "", false
		}
	}
	return "starts a line with SYSTEM:, framing what follows as a system message (" + excerpt(d, start, le) +
		"): remove it, or reword it as the skill's own instruction", true
}

// Exfiltration: a credential, a verb of sending and a destination in one
// sentence.
var (
	// sendVerbs are whole words: the imperative and the -ing form (a
	// past participle, "once the key is leaked", describes).
	sendVerbs = []string{"send", "sending", "upload", "uploading", "post", "posting", "transmit", "transmitting",
		"exfiltrate", "exfiltrating", "leak", "leaking", "forward", "forwarding", "email", "paste", "pasting",
		"beacon", "curl", "wget", "submit", "submitting", "pipe", "piping"}
	destinations = []string{"http://", "https://", "webhook", "pastebin", "ngrok", "requestbin", "pipedream",
		"burpcollaborator", "interact.sh", "attacker", "remote server", "external server", "discord", "telegram",
		"my server", "our server", "this server"}
	ownership = set("all", "any", "every", "user's", "users'", "their", "saved", "stored", "browser", "local",
		"cached", "an", "each", "found")
)

func exfiltrationAnchors() []anchor {
	const code = CodeSecretExfiltration
	return slices.Concat(
		anchorsOf(code, verifyExfiltrate, "exfiltrate"),
		anchorsOf(code, verifySecretSent(false), "environment variable", "env var", "ssh key", "private key",
			"signing key", "id_rsa", "id_ed25519", "~/.ssh", "~/.aws", ".aws/credentials", ".env ", ".env file",
			"keychain", "wallet", "seed phrase", "gh auth token", "printenv", "auth.json", "credentials.json", "~/.codex",
			"~/.claude", "~/.config/gh", "hosts.yml", "~/.kube", "kubeconfig", "~/.docker", "~/.netrc",
			".git-credentials", "~/.gnupg", "wallet.dat", "mnemonic", "recovery phrase", "browser cookies",
			"saved passwords", "session cookies", "shell history", "bash_history", "zsh_history"),
		anchorsOf(code, verifySecretSent(true), "credential", "secret", "password", "cookie", "token", "api key",
			"api_key"))
}

// prose reports whether offset i lies in running text of a document: not
// a script, a code block or a table row.
func prose(f *file, i int) bool {
	return f.is(classDoc) && !(f.is(classMarkdown) && inFence(f, i)) && !tableRow(f.data, i)
}

// verifyExfiltrate: the verb "exfiltrate" as an instruction, at the start
// of a sentence or after you must, should, then or to (the noun, and
// "attackers can exfiltrate", name a threat).
func verifyExfiltrate(f *file, start, end int) (string, bool) {
	d := f.data
	if !wordStart(d, start) || !wordEnd(d, end) || quoted(d, start) || !prose(f, start) {
		return "", false
	}
	s, e := sentenceBounds(d, start, end)
	before := wordsBefore(d, s, start, 2)
	if len(before) > 0 && !oneOf(before[len(before)-1], "must", "should", "then", "to", "and", "please", "now") {
		return "", false
	}
	if negated(d, s, start) {
		return "", false
	}
	return "tells the agent to exfiltrate data (" + excerpt(d, start, e) + "): remove it", true
}

// verifySecretSent accepts a credential named in a sentence of prose
// that sends it: a verb of sending and the credential, then "to" a
// destination. owned asks for an owner or a quantifier right before the
// word ("all credentials", "the user's passwords"), since a bare "token"
// is everyday API talk.
func verifySecretSent(owned bool) verifier {
	return func(f *file, start, end int) (string, bool) {
		d := f.data
		if isWordByte(d[start]) && !wordStart(d, start) || start > 0 && (isWordByte(d[start-1]) || d[start-1] == '.') {
			return "", false
		}
		if !prose(f, start) {
			return "", false
		}
		s, e := sentenceBounds(d, start, end)
		if owned {
			before := wordsBefore(d, s, start, 1)
			if len(before) == 0 || !ownership[before[0]] {
				return "", false
			}
		}
		sentence := d[s:e]
		verb := -1
		for _, v := range sendVerbs {
			if j := indexWord(sentence, v); j >= 0 && (verb < 0 || j < verb) {
				verb = j
			}
		}
		if verb < 0 {
			// "Attach the output of printenv" to a message the paragraph
			// posts somewhere.
			if owned || !attachedToSent(d, s, e) || negated(d, s, start) {
				return "", false
			}
			return "tells the agent to attach " + excerpt(d, start, end) + " to what it sends somewhere (" +
				excerpt(d, s, e) + "): remove it; a skill never needs to move the user's secrets off the machine", true
		}
		// "to" a destination, after both the verb and the credential.
		from := max(verb, end-s)
		to := -1
		for _, w := range []string{"to", "into", "via"} {
			if j := indexWord(sentence[from:], w); j >= 0 && (to < 0 || from+j < to) {
				to = from + j
			}
		}
		dest := false
		for _, t := range destinations {
			if to >= 0 && containsFold(sentence[to:], t) {
				dest = true
				break
			}
		}
		if !dest || negated(d, s, s+verb) || negated(d, s, start) {
			return "", false
		}
		return "tells the agent to send " + excerpt(d, start, end) + " somewhere (" + excerpt(d, s, e) +
			"): remove it; a skill never needs to move the user's secrets off the machine", true
	}
}

// attachedToSent reports whether the sentence d[s:e] attaches or
// includes something, and its paragraph sends to a destination.
func attachedToSent(d []byte, s, e int) bool {
	sentence := d[s:e]
	attach := false
	for _, v := range []string{"attach", "attaching", "include", "including", "append", "add"} {
		attach = attach || indexWord(sentence, v) >= 0
	}
	if !attach {
		return false
	}
	ps, pe := paragraphBounds(d, s)
	para := d[ps:pe]
	send := false
	for _, v := range sendVerbs {
		send = send || indexWord(para, v) >= 0
	}
	for _, t := range destinations {
		if send && containsFold(para, t) {
			return true
		}
	}
	return false
}

// Safety bypass.
var (
	bypassFiller  = set("the", "all", "any", "your", "its", "of", "claude's", "agent's", "every", "these", "those")
	bypassTargets = set("safety", "guardrail", "guardrails", "safeguard", "safeguards", "sandbox", "sandboxing",
		"sandboxed")
	bypassPairs = map[string][]string{
		"content":    {"filter", "filters", "filtering", "policy", "policies"},
		"permission": {"check", "checks", "prompt", "prompts", "system", "requests", "dialog", "dialogs"},
		"security":   {"check", "checks", "measures", "restrictions", "controls", "policy", "policies", "guidelines"},
		"approval":   {"prompt", "prompts", "check", "checks", "requirement", "requirements"},
	}
	tellVerbs   = []string{"tell", "inform", "notify", "alert", "warn", "reveal", "disclose", "let"}
	hideVerbs   = set("hide", "conceal", "hidden", "secret", "secretly")
	hideObjects = set("this", "these", "it", "that", "them", "everything", "all", "what", "you", "do", "did",
		"your", "actions", "action", "steps", "step", "changes", "change", "commands", "command", "activity", "the",
		"keep", "output", "from", "part", "line", "rule", "file", "files", "copy", "install", "installation",
		"dependency", "package", "detail", "details", "instruction", "instructions", "request", "requests", "call",
		"calls", "entirely", "completely", "fully", "always")
)

func safetyAnchors() []anchor {
	const code = CodeSafetyBypass
	return slices.Concat(
		anchorsOf(code, verifyBypass, "disable", "bypass", "circumvent", "deactivate", "turn off", "switch off",
			"get around", "evade", "skip", "ignore", "override", "suspend"),
		anchorsOf(code, verifyKeepFromUser, "the user", "the human", "the operator"),
		anchorsOf(code, verifyFlag, "dangerously-skip-permissions", "dangerouslydisablesandbox", "bypasspermissions",
			"dangerously_skip_permissions", "--yolo", "skipdangerousmodepermissionprompt",
			"dangerously-bypass-approvals-and-sandbox"),
		secrecyAnchors())
}

// verifyBypass: disable|bypass ... safety|sandbox|guardrails|permission
// checks ...
func verifyBypass(f *file, start, end int) (string, bool) {
	d := f.data
	if !wordStart(d, start) || quoted(d, start) || tableRow(d, start) {
		return "", false
	}
	s, e := sentenceBounds(d, start, end)
	ws := wordsAfter(d, end, e, 5)
	i := 0
	for i < len(ws) && i < 3 && bypassFiller[ws[i]] {
		i++
	}
	if i >= len(ws) {
		return "", false
	}
	hit := bypassTargets[ws[i]]
	if next, ok := bypassPairs[ws[i]]; ok && i+1 < len(ws) {
		hit = slices.Contains(next, ws[i+1])
	}
	// "skip" and "ignore" name a step as often as a check: only "skip
	// all safety checks", with a quantifier.
	if v := anchorText(d, start, end); (v == "skip" || v == "ignore") &&
		!slices.ContainsFunc(ws[:i], func(w string) bool { return w == "all" || w == "any" || w == "every" }) {
		hit = false
	}
	if !hit || negated(d, s, start) {
		return "", false
	}
	return "tells the agent to turn off a safety check (" + excerpt(d, start, e) + "): remove it", true
}

// verifyKeepFromUser: "do not tell the user", "without telling the user",
// "don't let the user know", "hide this from the user".
// hideUserSubjects are the anchors of verifyKeepFromUser that can be
// the subject of "does not see".
var hideUserSubjects = []string{"the user", "the human", "the operator"}

func verifyKeepFromUser(f *file, start, end int) (string, bool) {
	d := f.data
	if !wordStart(d, start) || !wordEnd(d, end) && d[end] != '\'' {
		return "", false
	}
	s, e := sentenceBounds(d, start, end)
	before := wordsBefore(d, s, start, 7)
	n := len(before)
	found := false
	// <not> <tell> the user, <without> <telling> the user.
	after := wordsAfter(d, end, e, 4)
	if n == 0 {
		// The subject of the sentence: only "the user does not see".
	} else if v := before[n-1]; hasPrefixIn(v, tellVerbs...) && n >= 2 &&
		(v != "let" || len(after) > 0 && oneOf(after[0], "know", "see", "notice", "find")) {
		switch neg := before[n-2]; {
		case neg == "not" || neg == "never" || neg == "don't" || neg == "dont" || neg == "without":
			found = true
		case n >= 3 && (before[n-3] == "never" || before[n-3] == "not" || before[n-3] == "don't") &&
			oneOf(neg, "to", "ever", "directly", "explicitly"):
			found = true
		}
	}
	// The user must not see, know or notice ("make sure the user does
	// not see this", "the user does not need to know").
	if !found && hasAny(after, "not", "never", "doesn't", "don't", "shouldn't", "mustn't", "won't", "cannot", "can't") &&
		slices.Contains(hideUserSubjects, anchorText(d, start, end)) {
		neg, perceive, must := false, false, false
		for _, w := range wordsAfter(d, end, e, 6) {
			neg = neg || oneOf(w, "not", "never", "doesn't", "don't", "shouldn't", "mustn't", "won't", "needn't", "cannot",
				"can't")
			perceive = perceive || neg && oneOf(w, "see", "know", "notice", "find", "learn", "realize", "realise", "hear",
				"discover", "suspect", "aware")
			must = must || oneOf(w, "should", "must", "shouldn't", "mustn't")
		}
		purpose := hasAny(before, "ensure", "sure", "so")
		found = perceive && (must || purpose)
	}
	// hide|keep ... secret ... from the user.
	if !found && n >= 2 && before[n-1] == "from" {
		for i := n - 2; i >= 0; i-- {
			if hideVerbs[before[i]] {
				found = true
				break
			}
			if !hideObjects[before[i]] {
				break
			}
		}
	}
	if !found || tableRow(d, start) {
		return "", false
	}
	// Advice (do not tell the user to reinstall), a rule about what never
	// to reveal (passwords, keys), a spoiler kept until the user gets
	// there and a phrase quoted are fine.
	if len(after) > 0 && after[0] == "to" || timeBound(d, s, e) || inQuotes(d, start) {
		return "", false
	}
	for _, w := range after {
		if hasPrefixIn(w, "password", "secret", "key", "token", "credential") {
			return "", false
		}
	}
	ws, _ := sentenceBounds(d, start, end)
	return "tells the agent to keep what it does from the user (" + excerpt(d, max(ws, start-40), e) +
		"): remove it; the user must always be able to see what a skill makes the agent do", true
}
