package scan

import "github.com/ccski/ccski/internal/filestamp"

// stamp is what the cache knows of a file or folder from its stat (see
// filestamp): a reading or listing is reused while it is unchanged. Too
// recent a time is judged by the modification time alone (racy), as git
// does, so that trees written a moment ago still use the cache.
type stamp = filestamp.Stamp

// stampOf returns the stamp of a file from its stat.
var stampOf = filestamp.Of
