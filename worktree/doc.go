// Package worktree gives panes their own git worktrees: a pane that asks for
// branch B of the repository around its directory runs in
// <repo>.worktrees/<slug(B)>, a sibling of the repository, never inside it.
//
// The package plans a worktree without changing anything ([PlanFor]: which
// path, whether to create it or reuse one that already holds the branch),
// creates it ([Create], then [CopyEnv] and [RunSetup]), undoes a creation
// that a failed `paneflow up` no longer needs ([Rollback]), tears it down
// when its panes are gone ([Teardown]: a clean worktree is removed, a dirty
// one is kept and reported, the branch is never deleted) and remembers the
// worktrees Paneflow created ([Registry]) so that orphans left by a crash
// are cleaned up at the next start ([Registry.Prune]).
//
// All git work goes through the user's own `git` binary (os/exec), so
// worktrees behave exactly as the user's git makes them; a git failure is
// reported with git's own message. The package never removes a worktree it
// did not create, never deletes a branch in a teardown, and never passes
// --force to `git worktree remove` except to roll back a worktree it
// created moments before.
//
// # Concurrency
//
// Functions are safe to call from several goroutines for different
// worktrees; git itself serializes changes to one repository's worktree
// list. A [Registry] is safe for concurrent use within one process; two
// processes sharing a registry file last-writer-win on its records.
package worktree
