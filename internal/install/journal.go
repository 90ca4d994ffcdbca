package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
)

// This file makes the change of one skill on disk a transaction. A change
// (put: install, update or restore; remove) touches two things no single
// step can change together: the skill's folders and the lock. Before it
// touches either, it writes a journal (JournalFile): what it does, the
// lock entry it puts or removes, and its staging folder. The journal goes
// once the change is complete. A run that dies in between leaves it, and
// the next run on the scope (Installer.Recover, under the run lock)
// finishes or undoes the change before anything else.
//
// The journal is kept in ccski's user state folder, never beside a
// project's lock: a project's folder comes with its clone, and a journal
// shipped in it could make ccski turn a folder the clone ships into a
// skill. Nothing in the project is trusted to say that a change was in
// progress; the project's lock still says what ccski installed there.
//
// The commit point is the one step that makes the change visible to
// agents: moving the new copy into the skill's folder (put), or moving the
// copy out of it (remove). The next run finishes a change that passed it
// (it records the entry in the lock, makes the missing links, or removes
// the rest) and undoes one that did not (it puts back a copy moved aside,
// and deletes the staging folder): agents may already have read a copy
// that was in place, so it stays and the lock names it; a change they
// could not have seen is dropped, leaving the skill and the lock as they
// were. The staged copy was validated and hashed, and checked against the
// lock's digests when restoring, before the journal was written, so
// finishing a change installs nothing unchecked. Which side of the commit
// point the run died on is read from the disk: the skill's folder holds
// exactly the journal's files (put), or is gone (remove).

// The operations of a journal.
const (
	opPut    = "put"
	opRemove = "remove"
)

// journalVersion is the version of the journal format.
const journalVersion = 1

// journal is the record of one change in progress.
type journal struct {
	Version int `json:"version"`
	// Op is opPut or opRemove.
	Op string `json:"op"`
	// Stage is the change's staging folder, in the folder of the skill's
	// copy (Entry.Targets[0].Dir); "" for a remove that found no copy.
	// In the file it is relative to the lock's base folder like the
	// lock's paths.
	Stage string `json:"stage,omitempty"`
	// Entry is the lock entry the change puts in place, or removes.
	Entry Entry `json:"entry"`
	// Old is the lock entry a put replaces; nil for a new skill.
	// Finishing the put replaces, in the targets after the first, only
	// the links and copies Old records (see Installer.link).
	Old *Entry `json:"old,omitempty"`
	// Lock is the lock file of the change's scope, links resolved: a
	// journal belongs to one lock (JournalFile), and says which.
	Lock string `json:"lock"`
}

// JournalFile is where the journal of the scope whose lock is lockFile
// goes: in ccski's user state folder stateDir (userdirs.StateDir), named
// by the lock's path with its links resolved (safefile.Resolve), so that
// each lock has one journal, whatever way it is reached, and no project
// can ship one.
func JournalFile(stateDir, lockFile string) (string, error) {
	return lockStateFile(stateDir, lockFile, "journal", ".json")
}

// RunLockFile is the file whose lock a run on the scope whose lock is
// lockFile holds (LockRun): in ccski's user state folder stateDir, named
// like the journal by the lock's path with its links resolved, so that
// every way of reaching one lock takes the same turn and nothing of it is
// left in the project (where `git add -A` would commit it).
func RunLockFile(stateDir, lockFile string) (string, error) {
	return lockStateFile(stateDir, lockFile, "run", ".lck")
}

// lockStateFile is the file stateDir/sub/<name>ext of the lock lockFile,
// named by a digest of its path with its links resolved.
func lockStateFile(stateDir, lockFile, sub, ext string) (string, error) {
	real, err := safefile.Resolve(lockFile)
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", lockFile, err)
	}
	sum := sha256.Sum256([]byte(real))
	return filepath.Join(stateDir, sub, hex.EncodeToString(sum[:16])+ext), nil
}

// asideName is the name, in a staging folder, of a copy moved aside
// while a new one replaces it where the system cannot swap two paths: a
// hidden name, which no skill has (see checkName).
const asideName = ".old"

// begin writes the journal of a change before it touches anything. The
// journal of an earlier change that could not be settled is kept: no
// change starts until it is.
func (in *Installer) begin(j journal) error {
	file := in.Layout.Journal
	if file == "" {
		return errors.New("this run has no journal (its Layout names none), so it changes no skill")
	}
	if _, err := os.Lstat(file); err == nil {
		return fmt.Errorf("an earlier change of this scope is not finished (its journal %s is still there): "+
			"run ccski again to finish it first", file)
	}
	lock, err := safefile.Resolve(in.Layout.LockFile)
	if err != nil {
		return fmt.Errorf("lock %s: %w", in.Layout.LockFile, err)
	}
	j.Version, j.Lock = journalVersion, lock
	j.Entry = j.Entry.toLock(in.Layout.Base)
	if j.Old != nil {
		old := j.Old.toLock(in.Layout.Base)
		j.Old = &old
	}
	if j.Stage != "" {
		j.Stage = toLock(in.Layout.Base, j.Stage)
	}
	data, err := encodeJSON(j)
	if err != nil {
		return err
	}
	// The state folder is the user's own (0o700, as XDG asks).
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("writing the journal %s: %w", file, err)
	}
	if err := safefile.WriteAtomic(file, data, 0o600); err != nil {
		return fmt.Errorf("writing the journal %s: %w", file, err)
	}
	return nil
}

// end removes the journal of a change that is complete. A journal that
// stays is finished again by the next run, which then changes nothing.
func (in *Installer) end() {
	if in.Layout.Journal != "" {
		os.Remove(in.Layout.Journal)
	}
}

// readJournal reads the scope's journal; ok is false when there is none.
// Its paths are checked as the lock's are, and it must be the journal of
// this scope's lock.
func (in *Installer) readJournal() (j journal, ok bool, err error) {
	file := in.Layout.Journal
	if file == "" {
		return j, false, nil
	}
	data, err := safefile.Read(file, maxLockBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return j, false, nil
	}
	if err != nil {
		return j, true, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return j, true, err
	}
	if j.Version != journalVersion || (j.Op != opPut && j.Op != opRemove) {
		return j, true, fmt.Errorf("version %d, operation %q: not one this ccski writes", j.Version, j.Op)
	}
	if lock, err := safefile.Resolve(in.Layout.LockFile); err != nil || j.Lock != lock {
		return j, true, fmt.Errorf("it is the journal of the lock %s, not of %s", j.Lock, in.Layout.LockFile)
	}
	if err := j.Entry.fromLock(in.Layout.Base, in.Layout.Scope == ScopeProject); err != nil {
		return j, true, err
	}
	if j.Old != nil {
		if err := j.Old.fromLock(in.Layout.Base, in.Layout.Scope == ScopeProject); err != nil {
			return j, true, err
		}
	}
	if j.Stage == "" && j.Op == opPut {
		return j, true, errors.New("it names no staging folder")
	}
	if j.Stage != "" {
		j.Stage = fromLock(in.Layout.Base, j.Stage)
		st, err := os.Lstat(j.Stage)
		if filepath.Dir(j.Stage) != j.Entry.Targets[0].Dir || !strings.HasPrefix(filepath.Base(j.Stage), stagePrefix) ||
			err == nil && !st.IsDir() {
			return j, true, fmt.Errorf("its staging folder %s is not one ccski makes for %s", j.Stage, j.Entry.Name)
		}
	}
	return j, true, nil
}

// recoverJournal finishes or undoes the change of the scope's journal,
// if any, and removes the journal; it returns what it did, for the run's
// report, and the folders of the change's targets. A journal whose
// staging folder a running ccski holds is left alone.
func (in *Installer) recoverJournal() (note string, dirs []string) {
	j, ok, err := in.readJournal()
	if !ok {
		return "", nil
	}
	if err != nil {
		in.end()
		return fmt.Sprintf("deleted %s, which is no journal of ccski's (%v): an interrupted change it may have "+
			"recorded is not finished; `ccski install` shows what differs from the lock", in.Layout.Journal, err), nil
	}
	// Runs on a scope take turns (LockRun), so no run writes in the
	// journal's staging folder now, unless its lock says otherwise.
	if j.Stage != "" && safefile.LockedElsewhere(filepath.Join(j.Stage, heldFile)) {
		return "", nil
	}
	for _, t := range j.Entry.Targets {
		dirs = append(dirs, t.Dir)
	}
	note, err = in.settle(j)
	if err != nil {
		in.unsettled = j.Stage
		what := "install"
		if j.Op == opRemove {
			what = "remove"
		}
		return fmt.Sprintf("an interrupted %s of %s could not be finished or undone (%v): no skill changes until it is; "+
			"fix that, then run ccski again", what, j.Entry.Name, err), dirs
	}
	in.end()
	return note, dirs
}

// Unsettled returns an error naming the interrupted change the scope's
// journal records, if there is one, for a run that must not write the
// lock (install --frozen) and so cannot finish or undo it: it says to run
// ccski install without --frozen first.
func (in *Installer) Unsettled() error {
	j, ok, err := in.readJournal()
	switch {
	case !ok:
		return nil
	case err != nil:
		return fmt.Errorf("%s is an interrupted change's journal ccski cannot use (%v): --frozen never writes the "+
			"lock, so it does not settle it; run `ccski install` without --frozen first (it deletes the journal "+
			"and says so), then run --frozen again", in.Layout.Journal, err)
	}
	what := "install"
	if j.Op == opRemove {
		what = "remove"
	}
	return fmt.Errorf("an interrupted %s of %s is not finished (its journal is %s): --frozen never writes the lock, "+
		"so it does not finish or undo it; run `ccski install` without --frozen first (it settles the change and says "+
		"how), then run --frozen again", what, j.Entry.Name, in.Layout.Journal)
}

// abort settles the change of j after err stopped it, as the next run
// would, and returns res failed with err. When the change cannot be
// settled either, its journal and its staging folder stay for the next
// run.
func (in *Installer) abort(res Result, j journal, err error) Result {
	if _, serr := in.settle(j); serr != nil {
		in.unsettled = j.Stage
		return failed(res, fmt.Errorf("%w; finishing or undoing the change failed too (%v): the next ccski run on "+
			"this scope tries again", err, serr))
	}
	in.end()
	return failed(res, err)
}

// settle finishes the change of j if it passed its commit point, else
// undoes it, then deletes the change's staging folder. It runs for the
// journal an interrupted run left, and for a change that failed after its
// journal was written (abort). On an error the staging folder stays: it
// may hold the copy to put back.
func (in *Installer) settle(j journal) (note string, err error) {
	note, err = in.settleDisk(j)
	if err == nil && j.Stage != "" {
		os.RemoveAll(j.Stage)
	}
	return note, err
}

// settleDisk is settle without deleting the staging folder.
func (in *Installer) settleDisk(j journal) (note string, err error) {
	e := j.Entry
	dst := filepath.Join(e.Targets[0].Dir, e.Name)
	if j.Op == opRemove {
		if exists(dst) {
			return fmt.Sprintf("an interrupted remove of %s had changed nothing: it is still installed", e.Name), nil
		}
		// The entry leaves the lock only once every target is gone: an
		// entry the lock no longer names has nothing left to remove. The
		// lock's own entry says what to remove, not the journal.
		l := in.Lock.Find(e.Name)
		if l == nil || l.Targets[0].Dir != e.Targets[0].Dir {
			return "", nil
		}
		for i := len(l.Targets) - 1; i >= 1; i-- {
			if err := removeTarget(filepath.Join(l.Targets[i].Dir, e.Name)); err != nil {
				return "", err
			}
		}
		in.Lock.Drop(e.Name)
		if err := in.save(); err != nil {
			return "", err
		}
		return fmt.Sprintf("finished an interrupted remove of %s", e.Name), nil
	}
	restored := ""
	if aside := filepath.Join(j.Stage, asideName); exists(aside) && !holds(dst, e.Files) {
		// Killed between moving the old copy aside and moving the new
		// one in: the change is undone, so the old copy (the lock's, a
		// copy modified on disk, or a folder of the user's own that
		// --force was replacing) goes back where it was, as visible as
		// it was before the change began. Should something else have
		// taken its place since, it is kept beside it in a hidden
		// folder (which no agent reads as a skill) and named in the
		// note: a copy moved aside is never deleted.
		if !exists(dst) {
			if err := os.Rename(aside, dst); err != nil {
				return "", fmt.Errorf("putting back %s: %w", dst, err)
			}
			if l := in.Lock.Find(e.Name); l == nil || l.Targets[0].Dir != e.Targets[0].Dir {
				restored = "; put back the folder it was replacing, which ccski did not install"
			} else if !holds(dst, l.Files) {
				restored = "; put back the copy it was replacing, which differs from the one the lock records " +
					"(`ccski install --force` puts the locked one back)"
			}
		} else {
			kept, err := keepAside(aside, e.Targets[0].Dir, e.Name)
			if err != nil {
				return "", err
			}
			restored = fmt.Sprintf("; %s is no longer the folder it was replacing, which is kept in %s "+
				"(move it back, or delete it, as you wish)", dst, kept)
		}
	}
	if !holds(dst, e.Files) {
		return fmt.Sprintf("undid an interrupted install of %s: it had not reached %s%s", e.Name, dst, restored), nil
	}
	in.Lock.Put(e)
	if err := in.save(); err != nil {
		return "", err
	}
	if err := in.link(e, true, j.Old); err != nil {
		return "", err
	}
	return fmt.Sprintf("finished an interrupted install of %s: its new copy was in place", e.Name), nil
}

// keptPrefix names the hidden folders that keep a skill's old copy a
// change moved aside when the change is undone and something else has
// taken the skill's place (see settleDisk): .ccski-kept-NAME-TIME-RANDOM,
// holding the copy as NAME. Recover leaves them to the user.
const keptPrefix = ".ccski-kept-"

// keepAside moves the folder aside into a new hidden folder in dir,
// named for the skill name and the time, and returns where the copy now
// is.
func keepAside(aside, dir, name string) (string, error) {
	keep, err := os.MkdirTemp(dir, keptPrefix+name+"-"+time.Now().UTC().Format("20060102T150405Z")+"-")
	if err != nil {
		return "", fmt.Errorf("keeping %s's moved-aside copy in %s: %w", name, dir, err)
	}
	kept := filepath.Join(keep, name)
	if err := os.Rename(aside, kept); err != nil {
		os.Remove(keep)
		return "", fmt.Errorf("keeping %s's moved-aside copy in %s: %w", name, keep, err)
	}
	return kept, nil
}

// holds reports whether dir is a folder (not a link) whose files are
// exactly files.
func holds(dir string, files []manifest.File) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	m, err := manifest.NewCache().Build(dir)
	if err != nil {
		return false
	}
	ch := manifest.Diff(files, m.Files)
	return ch.Empty()
}
