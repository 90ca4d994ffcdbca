package scan

import "strings"

// This file holds the one list of folders the walks leave out.

// skipWhen says which walks leave a folder out.
type skipWhen uint8

const (
	// skipAlways: no walk enters the folder.
	skipAlways skipWhen = iota + 1
	// skipInRepository: a repository walk (Options.Hidden) does not enter
	// the folder; discovery keeps its own rules (it never enters a hidden
	// folder anyway).
	skipInRepository
)

// skippedFolders are the folders the walks do not enter, by name, at any
// depth. None of them holds a skill or a command of its own, and some hold
// tens of thousands of folders, which would spend a walk's folder budget
// before it reaches the skills:
//
//   - .git (version-control data) and node_modules (installed packages):
//     never entered;
//   - the folders that tools create in a checkout: virtual environments
//     (.venv, venv, .tox, .nox), caches (.cache, __pycache__ and every
//     hidden folder named *_cache, such as .mypy_cache, .pytest_cache and
//     .ruff_cache, see toolCacheSuffix), build output (.next, .gradle,
//     .terraform) and editor settings (.idea, .vscode): not entered by a
//     repository walk (Options.Hidden, what `ccski validate PATH` runs).
//
// docs/validate.md lists the same folders.
var skippedFolders = map[string]skipWhen{
	".git":         skipAlways,
	"node_modules": skipAlways,
	".venv":        skipInRepository,
	"venv":         skipInRepository,
	".tox":         skipInRepository,
	".nox":         skipInRepository,
	".cache":       skipInRepository,
	"__pycache__":  skipInRepository,
	".next":        skipInRepository,
	".gradle":      skipInRepository,
	".terraform":   skipInRepository,
	".idea":        skipInRepository,
	".vscode":      skipInRepository,
}

// toolCacheSuffix ends the name of a hidden cache folder that a repository
// walk skips (.mypy_cache, .pytest_cache, .ruff_cache, ...).
const toolCacheSuffix = "_cache"

// skipped reports whether a walk leaves out the folder named name;
// repository is set for a repository walk (Options.Hidden).
func skipped(name string, repository bool) bool {
	switch skippedFolders[name] {
	case skipAlways:
		return true
	case skipInRepository:
		return repository
	}
	return repository && strings.HasPrefix(name, ".") && strings.HasSuffix(name, toolCacheSuffix)
}
