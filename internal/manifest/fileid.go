package manifest

import "github.com/ccski/ccski/internal/filestamp"

// fileID is what a stat says about a file's content (see filestamp): when
// any part of it changes, the file is hashed again.
type fileID = filestamp.Stamp

// idOf returns the stamp of a file from its stat.
var idOf = filestamp.Of

// changeTimesRead reports whether stamps hold change times here.
const changeTimesRead = filestamp.ChangeTimesRead
