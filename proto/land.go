package proto

// This file holds land.*: a worktree's branch put into its base with the
// user's git, and its pull request opened with GitHub's CLI (package
// review).

// Land strategies (LandParams.Strategy).
const (
	LandMerge  = "merge"
	LandSquash = "squash"
	LandRebase = "rebase"
)

// LandParams are land.run's params.
type LandParams struct {
	// Worktree is an absolute directory inside the worktree whose
	// checked-out branch lands (required).
	Worktree string `json:"worktree"`
	// Strategy is LandMerge, LandSquash or LandRebase ("": the [land]
	// strategy of the worktree's .paneflow.toml, else LandMerge).
	Strategy string `json:"strategy,omitempty"`
	// Base is the branch to land into ("": the branch checked out in the
	// repository's main working tree).
	Base string `json:"base,omitempty"`
	// Message is a squash commit's message ("": the branch's name and its
	// commits' subjects).
	Message string `json:"message,omitempty"`
	// Teardown, after a clean land, closes the panes working in the
	// worktree and removes it (only when clean; nil: false).
	Teardown *bool `json:"teardown,omitempty"`
	// DeleteBranch, after a teardown that removed the worktree, deletes
	// the branch (nil: false, the branch is kept).
	DeleteBranch *bool `json:"delete_branch,omitempty"`
	// SendConflicts, when the land stops on a conflict, types a prompt
	// naming the files into the agent working in the worktree (as
	// review.send does; SurfaceID and InputWaitMS as there) so that it
	// resolves them on its branch (nil: false).
	SendConflicts *bool   `json:"send_conflicts,omitempty"`
	SurfaceID     *uint64 `json:"surface_id,omitempty"`
	InputWaitMS   *int64  `json:"input_wait_ms,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p LandParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.strOmit("strategy", p.Strategy)
	o.strOmit("base", p.Base)
	o.strOmit("message", p.Message)
	o.boolPtr("teardown", p.Teardown)
	o.boolPtr("delete_branch", p.DeleteBranch)
	o.boolPtr("send_conflicts", p.SendConflicts)
	o.uintPtr("surface_id", p.SurfaceID)
	o.int64Ptr("input_wait_ms", p.InputWaitMS)
	return o.close()
}

// LandResult is land.run's result. Landed is false after a conflict:
// Conflicts lists the files, the merge or rebase was aborted and the base
// branch is as it was.
type LandResult struct {
	Worktree string `json:"worktree"`
	RepoRoot string `json:"repo_root"`
	Branch   string `json:"branch"`
	Base     string `json:"base"`
	Strategy string `json:"strategy"`
	Landed   bool   `json:"landed"`
	// Commit is the base's new head (absent after a conflict).
	Commit string `json:"commit,omitempty"`
	// Commits is how many commits the branch had over the base.
	Commits   int      `json:"commits"`
	Conflicts []string `json:"conflicts,omitempty"`
	// ClosedPanes are the panes a teardown closed.
	ClosedPanes []uint64 `json:"closed_panes,omitempty"`
	// Teardown is what happened to the worktree: "removed", "kept"
	// (TeardownError says why) or "pruned"; absent without a teardown.
	Teardown      string `json:"teardown,omitempty"`
	TeardownError string `json:"teardown_error,omitempty"`
	// BranchDeleted: the branch was deleted after the teardown.
	BranchDeleted bool `json:"branch_deleted,omitempty"`
	// Sent is the conflict prompt send_conflicts typed into the agent
	// (as review.send answers; absent otherwise).
	Sent *ReviewSendResult `json:"sent,omitempty"`
}

// LandTeardownParams are land.teardown's params: after a clean land.run
// (without teardown), the worktree torn down as land.run's teardown does
// (its panes closed, the worktree removed when clean), the branch kept
// unless DeleteBranch. Its result is a [LandResult] with Landed true and
// the teardown's fields (Commit and Commits absent).
type LandTeardownParams struct {
	// Worktree is an absolute directory inside the landed worktree
	// (required).
	Worktree string `json:"worktree"`
	// Branch, when given, must be the branch checked out there (so that
	// an old answer tears nothing else down).
	Branch string `json:"branch,omitempty"`
	// Strategy is how the branch landed: after LandSquash the base holds
	// its changes, not its commits, so deleting the branch forces it;
	// otherwise git deletes only a branch the base contains ("": merge).
	Strategy string `json:"strategy,omitempty"`
	// DeleteBranch deletes the branch after the worktree is removed (nil:
	// false).
	DeleteBranch *bool `json:"delete_branch,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p LandTeardownParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.strOmit("branch", p.Branch)
	o.strOmit("strategy", p.Strategy)
	o.boolPtr("delete_branch", p.DeleteBranch)
	return o.close()
}

// LandPRParams are land.pr's params: open a pull request of the
// worktree's branch with GitHub's CLI.
type LandPRParams struct {
	Worktree string `json:"worktree"`
	// Base is the pull request's base ("": as land.run's).
	Base string `json:"base,omitempty"`
	// Title ("": the first commit's subject) and Body ("": the last
	// result of the agent working in the worktree, else the commits'
	// subjects).
	Title string `json:"title,omitempty"`
	Body  string `json:"body,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p LandPRParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.strOmit("base", p.Base)
	o.strOmit("title", p.Title)
	o.strOmit("body", p.Body)
	return o.close()
}

// LandPRResult is land.pr's result: the pull request's address as gh
// printed it, and where the branch was pushed.
type LandPRResult struct {
	URL    string `json:"url"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	Remote string `json:"remote"`
}
