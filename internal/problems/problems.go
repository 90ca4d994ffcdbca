// Package problems is the one vocabulary of problem codes: the codes of
// the diagnostics discovery reports (scan, skillmd) and of the findings
// ccski validate reports. A problem both can find has one code, the one
// docs/validate.md documents, so that a code seen in ccski sources or
// ccski info is the code to look up there and to match in a CI job.
//
// Codes are stable: new ones may be added, none is renamed. The codes a
// provider reports about its own manifests (installed_plugins.json,
// marketplace.json, config.toml, ...) are the provider's, named after the
// file: "<manifest>-invalid", "<manifest>-unreadable" and so on.
package problems

// Framing: how the frontmatter is delimited and encoded. Discovery and
// validate report them alike.
const (
	NoFrontmatter          = "no-frontmatter"
	UnclosedFrontmatter    = "unclosed-frontmatter"
	EmptyFrontmatter       = "empty-frontmatter"
	FrontmatterTooLarge    = "frontmatter-too-large"
	LeadingBlankLine       = "leading-blank-line"
	ByteOrderMark          = "byte-order-mark"
	CRLF                   = "crlf-line-endings"
	DelimiterTrailingSpace = "delimiter-trailing-space"
	TripleDashInValue      = "triple-dash-in-value"
	TripleDashInBody       = "triple-dash-in-body"
	InvalidUTF8            = "invalid-utf8"
	// Unreadable: the skill or command file cannot be read, or a command
	// file is larger than skillmd.MaxCommandSize.
	Unreadable = "unreadable"
)

// YAML: the frontmatter as YAML.
const (
	YAMLSyntax     = "yaml-syntax"
	YAMLTab        = "yaml-tab-indent"
	UnquotedColon  = "unquoted-colon"
	NotAMapping    = "not-a-mapping"
	DuplicateKey   = "duplicate-key"
	YAMLAnchor     = "yaml-anchor"
	FlowCollection = "yaml-flow-collection"
	TypedScalar    = "typed-scalar"
	WrongType      = "wrong-type"
)

// The name field.
const (
	NameMissing        = "name-missing"
	NameEmpty          = "name-empty"
	NameTooLong        = "name-too-long"
	NameUppercase      = "name-uppercase"
	NameInvalidChars   = "name-invalid-chars"
	NameHyphenEdge     = "name-hyphen-edge"
	NameDoubleHyphen   = "name-double-hyphen"
	NameNonASCII       = "name-non-ascii"
	NameWhitespace     = "name-whitespace"
	NameFolderMismatch = "name-folder-mismatch"
)

// The description field.
const (
	DescriptionMissing       = "description-missing"
	DescriptionEmpty         = "description-empty"
	DescriptionTooLong       = "description-too-long"
	DescriptionMultiline     = "description-multiline"
	DescriptionAngleBrackets = "description-angle-brackets"
	DescriptionListingCap    = "description-over-listing-cap"
	// DescriptionPlaceholder: the description still holds the text
	// ccski new writes, to be replaced by what the skill does.
	DescriptionPlaceholder = "description-placeholder"
)

// ControlCharacters: a name or description holds characters a terminal
// acts on (ESC, BEL, CR, backspace, DEL, C1 controls) or bidirectional
// controls that reorder text. Discovery replaces each with U+FFFD, so
// that no listing, id or MCP catalogue carries them.
const ControlCharacters = "control-characters"

// Optional fields and keys.
const (
	CompatibilityLength    = "compatibility-length"
	MetadataValueNotString = "metadata-value-not-string"
	AllowedToolsList       = "allowed-tools-list"
	UnknownKey             = "unknown-key"
	ClaudeExtensionKey     = "claude-extension-key"
)

// The tree: where skill files are and how they are found.
const (
	DuplicateName      = "duplicate-name"
	EnabledAndDisabled = "enabled-and-disabled"
	LowercaseSkillFile = "lowercase-skill-file"
	SymlinkedSkill     = "symlinked-skill"
	NoSkillFound       = "no-skill-found"
	// WalkProblem is validate's one code for a part of a PATH that could
	// not be searched; discovery says which with the walk codes below.
	WalkProblem = "walk-problem"
	DepthLimit  = "depth-limit"
	ManagedTree = "managed-tree"
)

// The walk, as discovery reports it. validate reports each as WalkProblem
// (DepthLimit as itself).
const (
	RootMissing          = "root-missing"
	RootUnreadable       = "root-unreadable"
	RootNotFolder        = "root-not-folder"
	FolderUnreadable     = "folder-unreadable"
	DeclaredSkillMissing = "declared-skill-missing"
	WalkLimit            = "walk-limit"
	HiddenWalkLimit      = "hidden-walk-limit"
	BrokenSymlink        = "broken-symlink"
	SymlinkLoop          = "symlink-loop"
	// HeldPreviousReading: a file caught mid-write kept its last good
	// reading until the next rescan.
	HeldPreviousReading = "held-previous-reading"
)

// The body.
const (
	BrokenLink       = "broken-link"
	LinkOutsideSkill = "link-outside-skill"
	BodyTooLong      = "body-too-long"
)

// Slash commands.
const (
	CommandUnclosedFrontmatter = "command-unclosed-frontmatter"
	CommandYAMLSyntax          = "command-yaml-syntax"
	CommandArgumentHintQuotes  = "command-argument-hint-unquoted"
	CommandDescriptionType     = "command-description-type"
	CommandArgumentHintType    = "command-argument-hint-type"
	CommandAllowedToolsType    = "command-allowed-tools-type"
	CommandHandoffs            = "command-handoffs-invalid"
	CommandUnknownKey          = "command-unknown-key"
	CommandEmpty               = "command-empty"
	CommandNameChars           = "command-name-chars"
	NoCommandFound             = "no-command-found"
)
