package hostview

// The verdict codes doctor adds to a host's view beside the load rules of
// For: the links a host needs and lacks (package linkfix), and the
// listing budgets (package listbudget).
const (
	// LinkIsText: a plain text file holding a path stands where a link to
	// a skill folder belongs (a repository cloned where symlinks are
	// off); the host sees a file, not a skill.
	LinkIsText Code = "link-is-text"
	// LinkMissing: a link ccski install made and recorded in ccski.lock
	// is gone.
	LinkMissing Code = "link-missing"

	// ListingCut: the host loads the skill, and its listing budget cuts
	// the description short.
	ListingCut Code = "listing-cut"
	// ListingNameOnly: the host lists the skill by name alone, its
	// description dropped by the listing budget.
	ListingNameOnly Code = "listing-name-only"
	// ListingDropped: the host's listing budget leaves the skill out of
	// the listing altogether.
	ListingDropped Code = "listing-dropped"
)
