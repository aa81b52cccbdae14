package proto

// This file holds review.*: the user's comments on a worktree's diff, kept
// by the server per worktree until resolved, and sent to the agent working
// in that worktree as one prompt (package review).

// ReviewComment is one comment on a line or range of a file of a
// worktree. Lines are 1-based and inclusive, in the file as it is now:
// review.list re-anchors every open comment against the current file
// (the quoted code found again, nearest its last place, its context
// breaking ties) and moves StartLine/EndLine with it; a comment whose
// code is gone is Outdated (its lines are then the last ones it had).
// The same type is the server's file on disk.
type ReviewComment struct {
	// ID names the comment within its worktree ("c1", "c2", …).
	ID string `json:"id"`
	// Path is the file, relative to the worktree's root, with slashes.
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// Code is the commented lines as they read when the comment was made.
	Code []string `json:"code"`
	// Before and After are up to 3 lines around Code then: context that
	// tells two places holding the same code apart.
	Before []string `json:"context_before"`
	After  []string `json:"context_after"`
	// Body is the comment itself.
	Body string `json:"body"`
	// CreatedAt is when it was made (RFC 3339, the server's clock).
	CreatedAt string `json:"created_at"`
	// Outdated: the code is no longer in the file (or the file is gone).
	Outdated bool `json:"outdated"`
	// Resolved comments are kept, listed only with review.list's all,
	// and never sent again.
	Resolved bool `json:"resolved"`
	// Sent counts the review.send calls that delivered it.
	Sent int `json:"sent"`
}

// ReviewCommentParams are review.comment's params.
type ReviewCommentParams struct {
	// Worktree is an absolute directory inside the worktree (required);
	// the server resolves its root with git.
	Worktree string `json:"worktree"`
	// Path is the file, relative to Worktree's root or absolute inside it
	// (required).
	Path string `json:"path"`
	// StartLine is the first commented line (required, from 1).
	StartLine int `json:"start_line"`
	// EndLine is the last (nil: StartLine).
	EndLine *int `json:"end_line,omitempty"`
	// Body is the comment (required).
	Body string `json:"body"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ReviewCommentParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.str("path", p.Path)
	o.int("start_line", int64(p.StartLine))
	o.intPtr("end_line", p.EndLine)
	o.str("body", p.Body)
	return o.close()
}

// ReviewCommentResult is review.comment's result: the worktree's root and
// the comment made.
type ReviewCommentResult struct {
	Worktree string        `json:"worktree"`
	Comment  ReviewComment `json:"comment"`
}

// ReviewListParams are review.list's params.
type ReviewListParams struct {
	// Worktree is an absolute directory inside the worktree (required).
	Worktree string `json:"worktree"`
	// All lists resolved comments too (nil: false).
	All *bool `json:"all,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ReviewListParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.boolPtr("all", p.All)
	return o.close()
}

// ReviewListResult is review.list's result: the comments, re-anchored
// against the files as they are now, in the order they were made.
type ReviewListResult struct {
	Worktree string          `json:"worktree"`
	Comments []ReviewComment `json:"comments"`
}

// ReviewResolveParams are review.resolve's params: IDs, or All of the
// open comments.
type ReviewResolveParams struct {
	Worktree string   `json:"worktree"`
	IDs      []string `json:"ids,omitempty"`
	All      *bool    `json:"all,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ReviewResolveParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.strsOmit("ids", p.IDs)
	o.boolPtr("all", p.All)
	return o.close()
}

// ReviewResolveResult is review.resolve's result: the ids it resolved
// (an id already resolved is not listed again).
type ReviewResolveResult struct {
	Worktree string   `json:"worktree"`
	Resolved []string `json:"resolved"`
}

// ReviewSendParams are review.send's params (and checks.send's, with
// Check).
type ReviewSendParams struct {
	Worktree string `json:"worktree"`
	// SurfaceID is the agent pane to send to (nil: the one pane whose
	// directory is inside the worktree and runs a known agent).
	SurfaceID *uint64 `json:"surface_id,omitempty"`
	// InputWaitMS is surface.send_text's input_wait_ms (nil: 30 s).
	InputWaitMS *int64 `json:"input_wait_ms,omitempty"`
	// Check names the failing check checks.send sends (required there;
	// ignored by review.send).
	Check string `json:"check,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ReviewSendParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.uintPtr("surface_id", p.SurfaceID)
	o.int64Ptr("input_wait_ms", p.InputWaitMS)
	o.strOmit("check", p.Check)
	return o.close()
}

// ReviewSendResult is review.send's (and checks.send's) result: what was
// sent where, surface.send_text's answer, and the pane's surface.status
// just before the text, against which a client confirms the turn start
// as `paneflow send --submit` does.
type ReviewSendResult struct {
	Worktree  string `json:"worktree"`
	SurfaceID uint64 `json:"surface_id"`
	// Comments are the ids of the comments sent (review.send).
	Comments []string `json:"comments,omitempty"`
	// Check is the check sent (checks.send).
	Check string `json:"check,omitempty"`
	// Text is the prompt as sent.
	Text         string                `json:"text"`
	Send         SurfaceSendTextResult `json:"send"`
	StatusBefore SurfaceStatusResult   `json:"status_before"`
}

// Scopes of review.diff: what the diff compares.
const (
	// DiffScopeBranch is the work tree against the point where its
	// branch left its base: committed, staged, unstaged and untracked
	// changes.
	DiffScopeBranch = "branch"
	// DiffScopeUnstaged is the work tree against the index, untracked
	// files included: what git add would stage.
	DiffScopeUnstaged = "unstaged"
	// DiffScopeStaged is the index against HEAD: what git commit would
	// record.
	DiffScopeStaged = "staged"
)

// ReviewDiffParams are review.diff's params.
type ReviewDiffParams struct {
	// Worktree is an absolute directory inside the work tree (required).
	Worktree string `json:"worktree"`
	// Scope is what is compared: DiffScopeBranch ("": the same),
	// DiffScopeUnstaged or DiffScopeStaged.
	Scope string `json:"scope,omitempty"`
}

// ReviewWatchParams are review.watch's.
type ReviewWatchParams struct {
	// Worktree is an absolute directory inside the work tree (required).
	Worktree string `json:"worktree"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ReviewWatchParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	return o.close()
}

// The frame types of review.watch.
const (
	// FrameWatching is the first frame: the watch is in place.
	FrameWatching = "watching"
	// FrameChanged says the worktree's files, index or HEAD changed.
	FrameChanged = "changed"
)

// ReviewWatchFrame is a frame of review.watch.
type ReviewWatchFrame struct {
	Type string `json:"type"` // FrameWatching or FrameChanged
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ReviewDiffParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.strOmit("scope", p.Scope)
	return o.close()
}

// ReviewDiffResult is review.diff's result: a repository's changes as
// the Diff view shows them (with DiffScopeBranch: committed, staged,
// unstaged and untracked, against the point where its branch left its
// base). The window's
// own Diff view reads the same value from git on its machine.
type ReviewDiffResult struct {
	// Root is the work tree's top directory.
	Root string `json:"root"`
	// Branch is the checked-out branch ("" when detached).
	Branch string `json:"branch"`
	// Scope is what was compared (a DiffScope… value).
	Scope string `json:"scope"`
	// BaseRef is the ref compared with ("main"; "" when none).
	BaseRef string `json:"base_ref"`
	// Base is the commit compared with (the merge base), "HEAD" when no
	// base ref exists, or git's empty tree in a repository without
	// commits.
	Base string `json:"base"`
	// Files are the changed files, then the untracked ones.
	Files []ReviewDiffFile `json:"files"`
	// Text is the unified diff, uncoloured, untracked files' content as
	// new files (the first few of them).
	Text string `json:"text"`
	// Truncated: Text was cut at its limit (2 MiB).
	Truncated bool `json:"truncated"`
}

// ReviewDiffFile is one changed file of a [ReviewDiffResult]: git's
// status letter (M, A, D, R, …; "?" untracked) and its path relative to
// the root, with slashes.
type ReviewDiffFile struct {
	Status string `json:"status"`
	Path   string `json:"path"`
}
