package main

import (
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
)

// accountHome is the home folder of the account this process runs as,
// from the system's user database, never from $HOME: it is where the
// trusted root of `ccski trust-root update` is kept under a managed
// config's signature rule (see action.Config.RootStateDir). It is ""
// when the database does not know it or gives a relative path. On Unix
// it looks the user id up, since os/user.Current falls back to $HOME
// when the lookup fails.
var accountHome = func() string {
	var u *user.User
	var err error
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		u, err = user.Current()
	} else {
		u, err = user.LookupId(strconv.Itoa(os.Getuid()))
	}
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	return u.HomeDir
}
