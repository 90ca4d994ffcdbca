package validate

import (
	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/report"
)

// Rule describes one finding code: what it means, how to fix it and how
// serious it is under each profile. Codes are stable: they may be added,
// never renamed.
type Rule struct {
	Code string
	// Group is framing, yaml, name, description, fields, tree, body or
	// command.
	Group string
	// Summary says in one line what is wrong.
	Summary string
	// Help says how to fix it.
	Help string
	// Fixable is true when --fix can repair the finding (some cases of it
	// may still need a person; the finding's message says so).
	Fixable bool
	// Severities under each profile.
	Spec, Claude, Codex, Strict report.Severity
}

// Severity returns the rule's severity under p.
func (r Rule) Severity(p Profile) report.Severity {
	switch p {
	case ProfileClaude:
		return r.Claude
	case ProfileCodex:
		return r.Codex
	case ProfileStrict:
		return r.Strict
	}
	return r.Spec
}

// The finding codes, from the vocabulary discovery shares (package
// problems).
const (
	CodeNoFrontmatter          = problems.NoFrontmatter
	CodeUnclosedFrontmatter    = problems.UnclosedFrontmatter
	CodeEmptyFrontmatter       = problems.EmptyFrontmatter
	CodeFrontmatterTooLarge    = problems.FrontmatterTooLarge
	CodeLeadingBlankLine       = problems.LeadingBlankLine
	CodeByteOrderMark          = problems.ByteOrderMark
	CodeCRLF                   = problems.CRLF
	CodeDelimiterTrailingSpace = problems.DelimiterTrailingSpace
	CodeTripleDashInValue      = problems.TripleDashInValue
	CodeTripleDashInBody       = problems.TripleDashInBody
	CodeInvalidUTF8            = problems.InvalidUTF8
	CodeUnreadable             = problems.Unreadable

	CodeYAMLSyntax     = problems.YAMLSyntax
	CodeYAMLTab        = problems.YAMLTab
	CodeUnquotedColon  = problems.UnquotedColon
	CodeNotAMapping    = problems.NotAMapping
	CodeDuplicateKey   = problems.DuplicateKey
	CodeYAMLAnchor     = problems.YAMLAnchor
	CodeFlowCollection = problems.FlowCollection
	CodeTypedScalar    = problems.TypedScalar
	CodeWrongType      = problems.WrongType

	CodeNameMissing        = problems.NameMissing
	CodeNameEmpty          = problems.NameEmpty
	CodeNameTooLong        = problems.NameTooLong
	CodeNameUppercase      = problems.NameUppercase
	CodeNameInvalidChars   = problems.NameInvalidChars
	CodeNameHyphenEdge     = problems.NameHyphenEdge
	CodeNameDoubleHyphen   = problems.NameDoubleHyphen
	CodeNameNonASCII       = problems.NameNonASCII
	CodeNameWhitespace     = problems.NameWhitespace
	CodeNameFolderMismatch = problems.NameFolderMismatch

	CodeDescriptionMissing       = problems.DescriptionMissing
	CodeDescriptionEmpty         = problems.DescriptionEmpty
	CodeDescriptionTooLong       = problems.DescriptionTooLong
	CodeDescriptionMultiline     = problems.DescriptionMultiline
	CodeDescriptionAngleBrackets = problems.DescriptionAngleBrackets
	CodeDescriptionListingCap    = problems.DescriptionListingCap
	CodeDescriptionPlaceholder   = problems.DescriptionPlaceholder

	CodeCompatibilityLength    = problems.CompatibilityLength
	CodeMetadataValueNotString = problems.MetadataValueNotString
	CodeAllowedToolsList       = problems.AllowedToolsList
	CodeUnknownKey             = problems.UnknownKey
	CodeClaudeExtensionKey     = problems.ClaudeExtensionKey
	CodeControlCharacters      = problems.ControlCharacters

	CodeDuplicateName      = problems.DuplicateName
	CodeEnabledAndDisabled = problems.EnabledAndDisabled
	CodeLowercaseSkillFile = problems.LowercaseSkillFile
	CodeSymlinkedSkill     = problems.SymlinkedSkill
	CodeNoSkillFound       = problems.NoSkillFound
	CodeWalkProblem        = problems.WalkProblem
	CodeDepthLimit         = problems.DepthLimit

	CodeBrokenLink       = problems.BrokenLink
	CodeLinkOutsideSkill = problems.LinkOutsideSkill
	CodeBodyTooLong      = problems.BodyTooLong

	CodeManagedTree = problems.ManagedTree

	CodeCommandUnclosedFrontmatter = problems.CommandUnclosedFrontmatter
	CodeCommandYAMLSyntax          = problems.CommandYAMLSyntax
	CodeCommandArgumentHintQuotes  = problems.CommandArgumentHintQuotes
	CodeCommandDescriptionType     = problems.CommandDescriptionType
	CodeCommandArgumentHintType    = problems.CommandArgumentHintType
	CodeCommandAllowedToolsType    = problems.CommandAllowedToolsType
	CodeCommandHandoffs            = problems.CommandHandoffs
	CodeCommandUnknownKey          = problems.CommandUnknownKey
	CodeCommandEmpty               = problems.CommandEmpty
	CodeCommandNameChars           = problems.CommandNameChars
	CodeNoCommandFound             = problems.NoCommandFound
)

// Short names for the severity table.
const (
	sE = report.SeverityError
	sW = report.SeverityWarning
	sI = report.SeverityInfo
	sO = report.SeverityOff
)

// rules is the catalog in documentation order. The severities follow one
// scheme: under claude and codex, what that agent rejects or mangles is an
// error and a spec rule it tolerates is a warning; strict takes the
// highest severity of the other three and raises portability notes to
// warnings.
var rules = []Rule{
	// Framing.
	{CodeNoFrontmatter, "framing", "the file does not start with a --- line opening the YAML frontmatter",
		"start the file with ---, then name: and description:, then a closing ---", false, sE, sW, sE, sE},
	{CodeUnclosedFrontmatter, "framing", "the frontmatter has no closing --- line",
		"add a line holding only --- after the last field", false, sE, sE, sE, sE},
	{CodeEmptyFrontmatter, "framing", "the frontmatter holds no fields",
		"add name: and description: between the --- lines", false, sE, sW, sE, sE},
	{CodeFrontmatterTooLarge, "framing", "the frontmatter is larger than 64 KiB",
		"keep the frontmatter short; move long text into the body", false, sE, sE, sE, sE},
	{CodeLeadingBlankLine, "framing", "blank lines come before the opening ---",
		"delete them: the file must start with ---", true, sE, sW, sE, sE},
	{CodeByteOrderMark, "framing", "the file starts with a UTF-8 byte order mark",
		"save the file as UTF-8 without BOM", true, sE, sW, sE, sE},
	{CodeCRLF, "framing", "the frontmatter has Windows (CRLF) line endings",
		"save the file with LF line endings", true, sW, sW, sW, sW},
	{CodeDelimiterTrailingSpace, "framing", "a --- delimiter line has trailing white space",
		"make the delimiter lines exactly ---", true, sW, sW, sW, sW},
	{CodeTripleDashInValue, "framing", "a frontmatter value contains ---, where naive readers cut the frontmatter",
		"reword the value without ---", false, sW, sO, sO, sW},
	{CodeTripleDashInBody, "framing", "the body has a line holding only ---, where naive readers cut the file",
		"use *** for a thematic break, or a # heading instead of a --- underline", false, sI, sO, sO, sW},
	{CodeInvalidUTF8, "framing", "the file is not valid UTF-8",
		"save the file as UTF-8", false, sE, sE, sE, sE},
	{CodeUnreadable, "framing", "the skill or command file cannot be read (or a command file is larger than 1 MiB)",
		"fix the file's permissions or type; split a very long command", false, sE, sE, sE, sE},

	// YAML.
	{CodeYAMLSyntax, "yaml", "the frontmatter is not valid YAML",
		"fix the syntax at the line given; quote values that hold \": \" or start with @ or a backquote", false, sE, sE, sE, sE},
	{CodeYAMLTab, "yaml", "the frontmatter is indented with tabs, which YAML forbids",
		"indent with spaces", false, sE, sE, sE, sE},
	{CodeUnquotedColon, "yaml", "an unquoted value holds \": \", which makes the YAML invalid",
		"put the value in double quotes", true, sE, sW, sW, sE},
	{CodeNotAMapping, "yaml", "the frontmatter is not a mapping of keys to values",
		"write key: value lines, such as name: my-skill", false, sE, sE, sE, sE},
	{CodeDuplicateKey, "yaml", "a key appears twice in one mapping; parsers disagree on which value wins",
		"keep one of them", false, sE, sE, sE, sE},
	{CodeYAMLAnchor, "yaml", "the frontmatter uses a YAML anchor or alias",
		"write the value out in full", false, sW, sW, sW, sW},
	{CodeFlowCollection, "yaml", "the frontmatter uses a flow collection ([...] or {...}), which strict YAML readers such as the reference validator reject",
		"write the list or mapping in block style, one item per line", false, sW, sO, sO, sW},
	{CodeTypedScalar, "yaml", "a field that must be text is read as a number, boolean, date or null",
		"quote the value", false, sE, sW, sW, sE},
	{CodeWrongType, "yaml", "a field has the wrong type (a list or mapping where text is expected, or the reverse)",
		"give the field the type the spec defines", false, sE, sE, sE, sE},

	// name.
	{CodeNameMissing, "name", "name is missing",
		"add name: with the skill folder's name", false, sE, sO, sW, sE},
	{CodeNameEmpty, "name", "name is empty",
		"set name: to the skill folder's name", false, sE, sW, sW, sE},
	{CodeNameTooLong, "name", "name is longer than 64 characters",
		"shorten it, and rename the folder to match", false, sE, sW, sE, sE},
	{CodeNameUppercase, "name", "name has uppercase letters",
		"use lowercase", false, sE, sW, sW, sE},
	{CodeNameInvalidChars, "name", "name has characters other than lowercase letters, digits and hyphens",
		"use only lowercase letters, digits and hyphens", false, sE, sW, sW, sE},
	{CodeNameHyphenEdge, "name", "name starts or ends with a hyphen",
		"remove the leading or trailing hyphen", false, sE, sW, sW, sE},
	{CodeNameDoubleHyphen, "name", "name has two hyphens in a row",
		"use single hyphens", false, sE, sW, sW, sE},
	{CodeNameNonASCII, "name", "name has non-ASCII letters, which uploads and some tools reject",
		"use a-z, 0-9 and -", false, sI, sW, sO, sW},
	{CodeNameWhitespace, "name", "name has leading or trailing white space",
		"remove the white space", false, sW, sW, sW, sW},
	{CodeNameFolderMismatch, "name", "name differs from the skill folder's name (compared after NFKC normalisation)",
		"rename the folder or change name: so that they match", false, sE, sW, sW, sE},

	// description.
	{CodeDescriptionMissing, "description", "description is missing",
		"add description: saying what the skill does and when to use it", false, sE, sW, sE, sE},
	{CodeDescriptionEmpty, "description", "description is empty or only white space",
		"say what the skill does and when to use it", false, sE, sW, sE, sE},
	{CodeDescriptionTooLong, "description", "description is longer than 1024 characters",
		"shorten it; move detail into the body", false, sE, sW, sW, sE},
	{CodeDescriptionMultiline, "description", "description spans several lines; Codex joins it into one",
		"write it on one line, or as a folded block scalar (>-)", false, sO, sO, sW, sW},
	{CodeDescriptionAngleBrackets, "description", "description contains < or >, which claude.ai uploads reject",
		"rephrase without angle brackets", false, sI, sI, sO, sW},
	{CodeDescriptionListingCap, "description", "description (with when_to_use) is longer than the 1536 characters Claude Code lists",
		"shorten it so the model sees all of it", false, sO, sW, sO, sW},
	{CodeDescriptionPlaceholder, "description", "description is still the placeholder ccski new wrote",
		"say what the skill does and when to use it; agents choose skills by it", false, sW, sW, sW, sW},

	// Optional fields and keys.
	{CodeCompatibilityLength, "fields", "compatibility is empty or longer than 500 characters",
		"give 1 to 500 characters, or remove the field", false, sE, sW, sW, sE},
	{CodeMetadataValueNotString, "fields", "a metadata key or value is not a string",
		"quote numbers and booleans; flatten lists and mappings into a string", false, sE, sW, sW, sE},
	{CodeAllowedToolsList, "fields", "allowed-tools is a YAML list; the spec defines a space-separated string",
		"write allowed-tools: Read Grep Bash(git:*)", false, sE, sO, sW, sE},
	{CodeUnknownKey, "fields", "a top-level key that neither the spec nor Claude Code defines",
		"rename a misspelt key; move anything else under metadata", true, sE, sW, sW, sE},
	{CodeClaudeExtensionKey, "fields", "a Claude Code field that is not part of the Agent Skills spec",
		"keep it only for skills meant for Claude Code; uploads and other agents reject or ignore it", false, sE, sO, sW, sE},
	{CodeControlCharacters, "fields", "a name, description or argument-hint holds control characters (ESC, BEL, CR, backspace, DEL, C1) or bidirectional controls",
		"delete them; discovery shows each as U+FFFD", false, sE, sE, sE, sE},

	// The tree.
	{CodeDuplicateName, "tree", "two validated skills have the same name",
		"rename one of them", false, sE, sW, sW, sE},
	{CodeEnabledAndDisabled, "tree", "a folder holds both SKILL.md and .SKILL.md",
		"delete or merge .SKILL.md; SKILL.md is the one used", false, sW, sW, sW, sW},
	{CodeLowercaseSkillFile, "tree", "the skill file is named skill.md, not SKILL.md",
		"rename it to SKILL.md", false, sW, sE, sE, sE},
	{CodeSymlinkedSkill, "tree", "the skill file or folder is a symlink, which some Codex versions skip",
		"copy the skill instead of linking it", false, sO, sO, sW, sW},
	{CodeNoSkillFound, "tree", "a PATH given to validate holds no skill",
		"point at a SKILL.md, a skill folder or a folder with skills below it", false, sE, sE, sE, sE},
	{CodeWalkProblem, "tree", "part of a PATH could not be searched (unreadable folder, broken symlink, too many folders)",
		"fix the folder or symlink, or validate a smaller folder", false, sW, sW, sW, sW},
	{CodeDepthLimit, "tree", "folders deeper than the search limit were not searched",
		"validate a deeper folder directly", false, sI, sI, sI, sI},
	{CodeManagedTree, "tree", "--fix left a file alone: it lies in a folder an agent manages and overwrites",
		"fix the skill where it comes from, such as the plugin's repository", false, sI, sI, sI, sI},

	// The body.
	{CodeBrokenLink, "body", "a relative link or image points at a file missing from the skill folder",
		"create the file or fix the path", false, sE, sE, sE, sE},
	{CodeLinkOutsideSkill, "body", "a link or image points outside the skill folder, which is not installed with the skill",
		"copy the file into the skill folder and link it relatively", false, sW, sW, sW, sW},
	{CodeBodyTooLong, "body", "the body is longer than the 500 lines the spec recommends",
		"move detail into files under references/ and link them", false, sW, sW, sW, sW},

	// Slash commands (--kind command or all). Their frontmatter is
	// optional and they are outside the Agent Skills spec, so the
	// profiles differ only where Codex ignores a Claude Code field.
	{CodeCommandUnclosedFrontmatter, "command", "the command opens a frontmatter with --- that is never closed (or is larger than 64 KiB)",
		"add a line holding only --- after the last field, or remove the opening --- if the file has no frontmatter", false, sE, sE, sE, sE},
	{CodeCommandYAMLSyntax, "command", "the command's frontmatter is not a valid YAML mapping in UTF-8",
		"fix the syntax at the line given; quote values that hold \": \" or start with [, { or @", false, sE, sE, sE, sE},
	{CodeCommandArgumentHintQuotes, "command", "argument-hint: [a] [b] is not valid YAML; lenient readers take it as text, strict ones reject the file",
		"quote the value: argument-hint: \"[a] [b]\"", false, sW, sW, sW, sW},
	{CodeCommandDescriptionType, "command", "the command's description is a list or a mapping, not text",
		"write the description as one string", false, sE, sE, sE, sE},
	{CodeCommandArgumentHintType, "command", "the command's argument-hint is a mapping or a multi-line list, not text",
		"write the hint as one string, such as argument-hint: \"[file] [mode]\"", false, sE, sE, sE, sE},
	{CodeCommandAllowedToolsType, "command", "the command's allowed-tools is neither a string nor a list of strings",
		"write allowed-tools: Read, Grep, Bash(git:*) or a list of tool names", false, sE, sE, sW, sE},
	{CodeCommandHandoffs, "command", "the command's handoffs cannot be read as data (an alias cycle, or too large)",
		"write the handoffs out in full, without YAML aliases", false, sW, sW, sW, sW},
	{CodeCommandUnknownKey, "command", "a frontmatter key of the command looks like a misspelt known key, which agents ignore",
		"rename it to the key suggested", false, sW, sW, sW, sW},
	{CodeCommandEmpty, "command", "the command has neither a description nor a body, so it sends an empty prompt",
		"write the prompt in the body", false, sW, sW, sW, sW},
	{CodeCommandNameChars, "command", "the command's file name holds white space or a colon, so it cannot be typed as /name",
		"rename the file with letters, digits, - and _ only", false, sW, sW, sW, sW},
	{CodeNoCommandFound, "command", "a PATH given to validate --kind command holds no command",
		"point at a command file, a commands folder or a folder with commands folders below it", false, sE, sE, sE, sE},
}

// catalog finds the rules by code.
var catalog = report.NewCatalog(rules, func(r Rule) string { return r.Code })

// Rules returns the catalog in documentation order.
func Rules() []Rule { return catalog.Rules() }

// Lookup returns the rule for code.
func Lookup(code string) (Rule, bool) { return catalog.Lookup(code) }

// docsURL is where the catalog is documented; each code is an anchor.
const docsURL = "https://github.com/ccski/ccski/blob/main/docs/validate.md"

// RuleDocs describes the catalog's rules under profile p for a SARIF log
// (report.WriteOptions.Rules), each linked to its row of
// docs/validate.md: every rule when no code is given, else the rules
// named, in that order. An unknown code panics.
func RuleDocs(p Profile, codes ...string) []report.RuleDoc {
	pick := rules
	if len(codes) > 0 {
		pick = make([]Rule, len(codes))
		for i, c := range codes {
			r, ok := Lookup(c)
			if !ok {
				panic("validate: RuleDocs of unknown code " + c)
			}
			pick[i] = r
		}
	}
	out := make([]report.RuleDoc, len(pick))
	for i, r := range pick {
		out[i] = report.RuleDoc{Code: r.Code, Summary: r.Summary, Help: r.Help, Severity: r.Severity(p),
			HelpURI: docsURL + "#" + r.Code}
	}
	return out
}

// PathCodes are the codes of the findings Collect makes about the paths
// themselves rather than a skill: a path that holds no skill, a part that
// could not be searched, folders below the depth limit. ccski scan
// reports them too, with their severity under ProfileSpec.
var PathCodes = []string{CodeNoSkillFound, CodeWalkProblem, CodeDepthLimit}
