package proto

// WorktreeCreateParams are worktree.create's params: the git work of a
// pane's worktree done by the server, for a client that runs no git (the
// MCP bridge, the desktop app's quick launch).
type WorktreeCreateParams struct {
	// Cwd is an absolute directory inside the repository.
	Cwd string `json:"cwd"`
	// Branch is the worktree's branch (required).
	Branch string `json:"branch"`
	// CopyEnv copies the repository's ignored .env* files into a created
	// worktree; nil means true, as `up`'s copy_env.
	CopyEnv *bool `json:"copy_env,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorktreeCreateParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("cwd", p.Cwd)
	o.str("branch", p.Branch)
	o.boolPtr("copy_env", p.CopyEnv)
	return o.close()
}

// WorktreeCreateResult is worktree.create's result: the managed_worktree
// to pass to surface.split (with teardown "auto"; see [ManagedWorktree]),
// plus what was done.
type WorktreeCreateResult struct {
	Path      string   `json:"path"`
	RepoRoot  string   `json:"repo_root"`
	Branch    string   `json:"branch"`
	Action    string   `json:"action"`
	Teardown  string   `json:"teardown"`
	NewBranch bool     `json:"new_branch"`
	CopiedEnv []string `json:"copied_env"`
}

// ManagedWorktree returns the managed_worktree of r's pane.
func (r WorktreeCreateResult) ManagedWorktree() ManagedWorktree {
	return ManagedWorktree{Path: r.Path, RepoRoot: r.RepoRoot, Branch: r.Branch, Teardown: r.Teardown, Action: r.Action}
}

// GitFailureData is the error data of a worktree.create that failed in
// git: {"git": {"args": [...], "stderr": "..."}}, the command's arguments
// and its whole standard error, as git wrote it.
type GitFailureData struct {
	Git GitFailure `json:"git"`
}

// GitFailure is a failed git command in [GitFailureData].
type GitFailure struct {
	Args   []string `json:"args"`
	Stderr string   `json:"stderr"`
}

// WorktreeRollbackParams are worktree.rollback's params: the path of a
// worktree that worktree.create made and no pane adopted.
type WorktreeRollbackParams struct {
	Path string `json:"path"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorktreeRollbackParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("path", p.Path)
	return o.close()
}

// WorktreeRollbackResult is worktree.rollback's result.
type WorktreeRollbackResult struct {
	Path       string `json:"path"`
	RolledBack bool   `json:"rolled_back"`
}
