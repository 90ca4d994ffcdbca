package providers

// This file defines how a provider writes its host's own skill switches:
// the settings a host reads to turn a skill or a plugin off (Claude
// Code's skillOverrides and enabledPlugins, Codex's [[skills.config]] and
// [plugins."p@m"], Gemini CLI's skills.disabled). The provider that reads
// a host's switches (Plan.Switches) also writes them, so that what ccski
// writes is what it reads back.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// Host describes an agent whose skill switches a provider reads and
// writes (see HostOwner).
type Host struct {
	// Name is the host's agent label ("claude"): the label of the records
	// it reads (pipeline.Record.Hosts) and the value of --agent.
	Name string
	// Title names it for people ("Claude Code").
	Title string
	// Switcher writes its switches.
	Switcher Switcher
	// Home returns the host's own folder (~/.claude or CLAUDE_CONFIG_DIR,
	// CODEX_HOME, ~/.gemini): a host whose folder is missing is not set
	// up on this machine, and a disable that does not name it makes no
	// file for it. nil means the host is always taken as set up.
	Home func(env Env) string
	// Created, when not nil, runs after ccski made the settings file
	// path of the host, which was not there: Claude Code's git-ignores
	// .claude/settings.local.json as Claude Code does when it makes the
	// file. It returns a note for the user, or why it failed.
	Created func(env Env, path string) (string, error)
	// Clients are the names the host's MCP client gives itself in
	// initialize's clientInfo ("claude-code"), each also matching when
	// followed by "-" and more: a server started by that client serves
	// the host's view (see ClientHost).
	Clients []string
	// Instructions is the host's instructions file (CLAUDE.md,
	// AGENTS.md, GEMINI.md) at scope "user" or "project" (in
	// env.Workspace), where `ccski install-workflow` writes.
	Instructions func(env Env, scope string) string
}

// Switcher writes a host's switches. Its methods edit files through a
// Files set, in memory: nothing is written until the caller writes the
// set (Files.Write), and a file that does not parse is never edited.
type Switcher interface {
	// Modes lists the modes a skill's switch takes besides on, off
	// first.
	Modes() []string
	// Scopes lists the scopes it writes at; the first is the default
	// when the skill gives no better one.
	Scopes() []string
	// SetSkill switches the skill req.Record to req.Mode (pipeline.ModeOn
	// turns it on) and says which settings it changed or found already
	// so.
	SetSkill(req SkillRequest) ([]Edit, error)
	// SetPlugin turns a whole plugin on or off.
	SetPlugin(req PluginRequest) ([]Edit, error)
}

// SkillRequest asks a Switcher to switch one skill.
type SkillRequest struct {
	Env   Env
	Files *Files
	// Record is a skill the host reads (its Hosts name the host).
	Record *pipeline.Record
	// Mode is on, off, or another of the Switcher's Modes.
	Mode string
	// Scope is where to write: one of the Switcher's Scopes, or "" for
	// the skill's own default. Turning a skill on with no scope clears
	// the host's switches for it wherever they are.
	Scope string
	// All is every record of the scan: a host that names skills in its
	// switches uses it to tell skills of the same name apart.
	All []*pipeline.Record
}

// PluginRequest asks a Switcher to turn a plugin on or off.
type PluginRequest struct {
	Env   Env
	Files *Files
	// Key is the plugin, "<plugin>@<marketplace>".
	Key string
	On  bool
	// Scope is where to write, or "" for the file that decides today.
	Scope string
	// Settings is the settings file that turns the plugin off today
	// (pipeline.DisabledPlugin.Settings), or "".
	Settings string
}

// Edit is one setting a Switcher changed, or found as asked.
type Edit struct {
	// File is the settings file, Scope its level.
	File  string
	Scope string
	// Setting says which setting, as the host's documentation names it:
	// `skillOverrides "pdf"`, `[[skills.config]] name = "pdf"`.
	Setting string
	// Changed is false when the file already said so.
	Changed bool
}

// Files is a set of files being edited in memory: each is read once,
// edited any number of times, and written when the set is. Edits of two
// skills to one file compose. Each file is kept to the folder it belongs
// to (see Env.WriteRoot): an edit of a file that a symbolic link leads out
// of that folder is refused (EditFile), and so is its write.
type Files struct {
	// Notices, when not nil, receives a line when Commit waits for
	// another ccski run to release a folder it locks.
	Notices io.Writer

	files map[string]*FileState
	order []string
	// root returns the folder a file belongs to.
	root func(path string) string
	// held lists the folders a plan asked Commit to lock besides those of
	// its files (Hold).
	held []string
	// waited is set once Commit said it waits.
	waited bool
}

// FileState is one file of a Files set.
type FileState struct {
	Path string
	// Old is the content read, and Existed whether the file was there.
	Old     []byte
	Existed bool
	// New is the content after the edits.
	New []byte
	// Err says, once Write or Commit failed, why this changed file was not
	// written: the error met writing it, or for a file the set would have
	// written after it, that it was not reached. It is nil for a file
	// written.
	Err error
	// Removed is set when the file is to be deleted rather than written
	// (Files.Remove): New is then nil.
	Removed bool
	// links is why the file may not be written where it is (a
	// *safefile.LinkError), or nil.
	links error
}

// Changed reports whether the edits changed the file.
func (f *FileState) Changed() bool {
	if f.Removed {
		return f.Existed
	}
	return string(f.Old) != string(f.New) || (!f.Existed && f.New != nil)
}

// NewFiles returns an empty set whose files are each kept to their own
// folder.
func NewFiles() *Files { return &Files{files: map[string]*FileState{}, root: filepath.Dir} }

// NewFilesIn returns an empty set whose files are each kept to the folder
// env says they belong to (Env.WriteRoot).
func NewFilesIn(env Env) *Files {
	return &Files{files: map[string]*FileState{}, root: env.WriteRoot}
}

// WriteRoot returns the folder that the settings or instructions file
// (or skill folder) path belongs to, which no symbolic link on the way to
// it may lead out of when ccski writes it:
//
//   - a file of a host's own folder (Env.Homes, such as ~/.claude) is the
//     user's: it belongs to the user's home folder (UserDir), so that a
//     file the user links to a dotfiles repository in the home folder is
//     written through; but when that host folder is not reached inside the
//     home folder (it lies elsewhere, or is itself a link to elsewhere) it
//     belongs to the host folder, which the user may keep anywhere;
//   - else a file of the project belongs to the outermost workspace folder
//     (WorkspaceDirs) that holds it: a cloned project's link never leads a
//     write out of it, not even into the user's home folder;
//   - else a file of the home folder belongs to it (~/.gemini, a user
//     skill's folder), under the same proviso as a host folder, taking the
//     file's own folder as the host folder;
//   - else it belongs to its own folder.
//
// The home folder and a host folder may themselves be links. Telling
// whether a host folder is reached inside the home folder reads the disk.
func (env Env) WriteRoot(path string) string {
	host := ""
	for _, home := range env.Homes {
		if safefile.Within(home, path) && len(home) > len(host) {
			host = home
		}
	}
	if host != "" {
		return env.userRoot(host)
	}
	dirs := env.WorkspaceDirs
	if len(dirs) == 0 && env.Workspace != "" {
		dirs = []string{env.Workspace}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if safefile.Within(dirs[i], path) {
			return dirs[i]
		}
	}
	return env.userRoot(filepath.Dir(path))
}

// userRoot is the folder a user file of the folder host belongs to: the
// user's home folder when host is reached inside it, else host.
func (env Env) userRoot(host string) string {
	if safefile.Within(env.UserDir, host) && safefile.CheckLinks(env.UserDir, host) == nil {
		return env.UserDir
	}
	return host
}

// Read returns the current content of path: as edited so far, else as
// on disk (nil, with existed false, for a missing file).
func (fs *Files) Read(path string) (data []byte, existed bool, err error) {
	if f, ok := fs.files[path]; ok {
		return f.New, f.Existed || f.New != nil, nil
	}
	data, found, err := hostfile.Read(path)
	if err != nil {
		return nil, found, fmt.Errorf("%s: %w", path, err)
	}
	fs.files[path] = &FileState{Path: path, Old: data, Existed: found, New: data,
		links: safefile.CheckLinks(fs.root(path), path)}
	fs.order = append(fs.order, path)
	return data, found, nil
}

// Set replaces the current content of path, which Read must have read.
func (fs *Files) Set(path string, data []byte) {
	if f, ok := fs.files[path]; ok {
		f.New, f.Removed = data, false
	}
}

// Remove asks for path, which Read must have read, to be deleted when the
// set is written: for a settings file ccski made whose last setting an
// edit took out. A file that a symbolic link leads out of the folder it
// belongs to is left as it is.
func (fs *Files) Remove(path string) {
	if f, ok := fs.files[path]; ok && f.links == nil {
		f.New, f.Removed = nil, true
	}
}

// Mark is a state of a Files set that Rollback returns to.
type Mark struct {
	news    map[string][]byte
	removed map[string]bool
	n       int
}

// Mark returns the current state of the set.
func (fs *Files) Mark() Mark {
	m := Mark{news: make(map[string][]byte, len(fs.files)), removed: map[string]bool{}, n: len(fs.order)}
	for p, f := range fs.files {
		m.news[p] = f.New
		m.removed[p] = f.Removed
	}
	return m
}

// Rollback undoes the edits made since m, so that a request that failed
// half-way leaves nothing behind.
func (fs *Files) Rollback(m Mark) {
	for _, p := range fs.order[m.n:] {
		delete(fs.files, p)
	}
	fs.order = fs.order[:m.n]
	for p, data := range m.news {
		fs.files[p].New, fs.files[p].Removed = data, m.removed[p]
	}
}

// Changed lists the files whose content the edits changed, in the order
// they were first read.
func (fs *Files) Changed() []*FileState {
	var out []*FileState
	for _, p := range fs.order {
		if f := fs.files[p]; f.Changed() {
			out = append(out, f)
		}
	}
	return out
}

// maxCommitRuns bounds how many times Commit locks and plans again when
// the folders a plan reads from keep changing.
const maxCommitRuns = 4

// Commit makes the edits of plan and writes them as one change that no
// other ccski run interleaves with, so that two runs editing one file at
// the same time never lose each other's change. plan makes its edits in
// fs, all anew each time it is called (fs is emptied before each call).
// Commit runs it once to learn which files it reads, locks the folders of
// those files and the folders plan asked for (Hold) (safefile.LockDirs; a
// folder a changed file needs is made), and runs it again, so that each
// file is read as it is now, under the lock, and edited as it is; then it
// writes the set (Write), runs then (when not nil: the changes the caller
// makes besides the files, such as renames in the folders it held), and
// releases the locks. Should that run read from a folder not yet locked,
// the locks are released and taken again with that folder too. When
// nothing changes and no folder is held, nothing is locked or written,
// and then runs alone. On failure, every changed file that was not
// written says why (FileState.Err), and then does not run; an error of
// then is Commit's.
func (fs *Files) Commit(plan func(), then func() error) error {
	fs.reset()
	plan()
	var held []string
	release := func() {}
	defer func() { release() }()
	for locks := 0; ; locks++ {
		if len(fs.Changed()) == 0 && len(fs.held) == 0 {
			return fs.then(then)
		}
		need, err := fs.folders()
		if err != nil {
			return fs.fail(err)
		}
		if held != nil && !slices.ContainsFunc(need, func(d string) bool { return !slices.Contains(held, d) }) {
			if err := fs.Write(); err != nil {
				return err
			}
			return fs.then(then)
		}
		if locks == maxCommitRuns {
			return fs.fail(fmt.Errorf("the settings files kept changing while ccski was locking them (in %s); run the command again",
				strings.Join(held, ", ")))
		}
		release()
		release = func() {}
		for _, d := range need {
			if !slices.Contains(held, d) {
				held = append(held, d)
			}
		}
		r, err := safefile.LockDirs(held, fs.wait)
		if err != nil {
			return fs.fail(err)
		}
		release = r
		fs.reset()
		plan()
	}
}

// then runs f, when not nil.
func (fs *Files) then(f func() error) error {
	if f == nil {
		return nil
	}
	return f()
}

// Hold asks Commit to lock the folder dir too, with the folders of the
// files, for a change the caller makes in it besides the files (see
// Commit's then). plan calls it on every run.
func (fs *Files) Hold(dir string) {
	if !slices.Contains(fs.held, dir) {
		fs.held = append(fs.held, dir)
	}
}

// wait tells Notices, once, that Commit waits for the folder dir.
func (fs *Files) wait(dir string) {
	if fs.Notices != nil && !fs.waited {
		fs.waited = true
		fmt.Fprintf(fs.Notices, "ccski: waiting for another ccski run that is editing files in %s to finish\n", dir)
	}
}

// reset empties the set.
func (fs *Files) reset() {
	fs.files, fs.order, fs.held = map[string]*FileState{}, nil, nil
}

// folders lists the folders of the files read that exist, and the folders
// held (Hold) that exist, and makes the folder of each changed file that
// may be written.
func (fs *Files) folders() ([]string, error) {
	var dirs []string
	add := func(dir string) {
		if st, err := os.Stat(dir); err == nil && st.IsDir() && !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	for _, p := range fs.order {
		f, dir := fs.files[p], filepath.Dir(p)
		if f.Changed() && f.links == nil {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("cannot make the folder of %s: %w", p, safefile.Cause(err))
			}
		}
		add(dir)
	}
	for _, dir := range fs.held {
		add(dir)
	}
	return dirs, nil
}

// fail gives err to every changed file that has no error yet, and
// returns it.
func (fs *Files) fail(err error) error {
	for _, f := range fs.Changed() {
		if f.Err == nil {
			f.Err = err
		}
	}
	return err
}

// Write writes every changed file atomically (safefile.Write): a new
// file is made with mode 0644, an existing one keeps its mode, and a file
// that a symbolic link leads out of the folder it belongs to is refused
// (*safefile.LinkError). A file that another program changed since it was
// read (Claude Code writes its settings.local.json itself) is not
// overwritten: Write then fails with a *ChangedError, checked for every
// file before the first is written and again for each just before it
// replaces it. It stops at the first failure, which names the file; each
// changed file not written says why (FileState.Err). Write takes no lock:
// a caller that reads and writes files other ccski runs may edit at the
// same time uses Commit.
func (fs *Files) Write() error {
	changed := fs.Changed()
	for _, f := range changed {
		if err := f.unchanged(); err != nil {
			return stop(f, err, changed)
		}
	}
	var written []string
	for i, f := range changed {
		stop := func(err error) error { return stop(f, err, changed[i+1:]) }
		if f.Removed {
			if err := f.unchanged(); err != nil {
				return stop(err)
			}
			if err := os.Remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return stop(fmt.Errorf("cannot remove %s: %w", f.Path, safefile.Cause(err)))
			}
			written = append(written, f.Path)
			continue
		}
		err := safefile.Write(f.Path, f.New, safefile.WriteOptions{Perm: 0o644, Check: f.unchanged, Root: fs.root(f.Path)})
		var ce *ChangedError
		var le *safefile.LinkError
		switch {
		case errors.As(err, &ce):
			ce.Written = written
			return stop(ce)
		case errors.As(err, &le):
			return stop(le)
		case err != nil:
			return stop(fmt.Errorf("cannot write %s: %w", f.Path, safefile.Cause(err)))
		}
		written = append(written, f.Path)
	}
	return nil
}

// stop records err as why failed was not written, and for each other
// file of rest that it was not reached; it returns err.
func stop(failed *FileState, err error, rest []*FileState) error {
	failed.Err = err
	for _, f := range rest {
		if f != failed {
			f.Err = fmt.Errorf("%s was not written, because %s could not be: %w", f.Path, failed.Path, err)
		}
	}
	return err
}

// ChangedError is a file that another program changed between the moment
// ccski read it and the moment it would have replaced it: ccski's edit
// was made on the old content, so the file is left as the other program
// wrote it.
type ChangedError struct {
	File string
	// Written lists the files of the same set written before it.
	Written []string
}

func (e *ChangedError) Error() string {
	msg := fmt.Sprintf("%s changed while ccski was editing it (another program wrote it, perhaps the agent itself); "+
		"ccski left it as it is now: run the command again", e.File)
	if len(e.Written) > 0 {
		msg += fmt.Sprintf(" (already written: %s)", strings.Join(e.Written, ", "))
	}
	return msg
}

// unchanged returns a *ChangedError when the file on disk is no longer
// the one read: other content, or there when it was missing, or the
// reverse.
func (f *FileState) unchanged() error {
	data, found, err := hostfile.Read(f.Path)
	if err != nil {
		return fmt.Errorf("cannot read %s again before writing it: %w", f.Path, err)
	}
	if found != f.Existed || !bytes.Equal(data, f.Old) {
		return &ChangedError{File: f.Path}
	}
	return nil
}

// FileError is an edit of File that cannot be made: it does not parse,
// or holds the setting in a form that cannot be edited safely. The file is
// left alone.
type FileError struct {
	File string
	// Line is the 1-based line of a syntax error, or 0.
	Line int
	Err  error
}

func (e *FileError) Error() string {
	var se *hostedit.SyntaxError
	if errors.As(e.Err, &se) {
		return fmt.Sprintf("%s:%d:%d: %s; fix the file (ccski changed nothing in it)", e.File, se.Line, se.Column, se.Msg)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// NewFileError returns err, met reading or editing file, as a *FileError
// naming file (and the line of a *hostedit.SyntaxError).
func NewFileError(file string, err error) *FileError {
	fe := &FileError{File: file, Err: err}
	var se *hostedit.SyntaxError
	if errors.As(err, &se) {
		fe.Line = se.Line
	}
	return fe
}

// EditFile applies edit to the current content of path in fs, and
// records the result. An error of edit becomes a *FileError naming path;
// a change of a file that a symbolic link leads out of the folder it
// belongs to is refused with that link's *safefile.LinkError.
func EditFile(fs *Files, path string, edit func(data []byte) ([]byte, error)) (changed bool, err error) {
	data, _, err := fs.Read(path)
	if err != nil {
		return false, err
	}
	out, err := edit(data)
	if err != nil {
		return false, NewFileError(path, err)
	}
	if string(out) == string(data) {
		return false, nil
	}
	if err := fs.files[path].links; err != nil {
		return false, err
	}
	fs.Set(path, out)
	return true, nil
}

// ProjectDir is the project folder whose settings hold a switch of r for
// a host whose project settings are in folder (".claude", ".gemini"): the
// workspace folder r was found in, for a project skill; else the nearest
// workspace folder that has folder; else the workspace.
func ProjectDir(env Env, r *pipeline.Record, folder string) string {
	if r != nil && r.Location == pipeline.LocationProject {
		for _, ws := range env.WorkspaceDirs {
			if rel, err := filepath.Rel(ws, r.Root); err == nil && filepath.Dir(filepath.Dir(rel)) == "." {
				return ws
			}
		}
	}
	for _, ws := range env.WorkspaceDirs {
		if st, err := os.Stat(filepath.Join(ws, folder)); err == nil && st.IsDir() {
			return ws
		}
	}
	return env.Workspace
}

// ClientHost returns the name of the host of hosts whose MCP client calls
// itself client in initialize's clientInfo (Host.Clients), or "".
func ClientHost(hosts []Host, client string) string {
	c := strings.ToLower(strings.TrimSpace(client))
	for _, h := range hosts {
		for _, n := range h.Clients {
			if c == n || strings.HasPrefix(c, n+"-") {
				return h.Name
			}
		}
	}
	return ""
}

// HostTitle names the host called name among hosts for people ("Claude
// Code"), or returns name when no host of hosts has that name.
func HostTitle(hosts []Host, name string) string {
	for _, h := range hosts {
		if h.Name == name && h.Title != "" {
			return h.Title
		}
	}
	return name
}

// CheckScope returns an error unless scope is "" or one of s's scopes.
func CheckScope(h Host, scope string) error {
	if scope == "" || slices.Contains(h.Switcher.Scopes(), scope) {
		return nil
	}
	return fmt.Errorf("%s has no %s scope for its switches; use %s", h.Title, scope, orList(h.Switcher.Scopes()))
}

// CheckMode returns an error unless mode is on or one of s's modes.
func CheckMode(h Host, mode string) error {
	if mode == pipeline.ModeOn || slices.Contains(h.Switcher.Modes(), mode) {
		return nil
	}
	return fmt.Errorf("%s's switch has no %s mode; use %s", h.Title, mode, orList(h.Switcher.Modes()))
}

func orList(list []string) string {
	switch len(list) {
	case 0:
		return "nothing"
	case 1:
		return list[0]
	}
	out := ""
	for i, s := range list {
		switch {
		case i == 0:
		case i == len(list)-1:
			out += " or "
		default:
			out += ", "
		}
		out += s
	}
	return out
}
