// Package review is the server's side of reviewing an agent's work in a
// git worktree (issue 32): the user's comments on lines and ranges of the
// worktree's files, kept until resolved and sent to the agent working in
// the worktree as one prompt.
//
// A comment keeps the code it is about (the lines as they read then) and
// up to three lines around it. Each time the comments are listed or sent
// they are re-anchored against the files as they are now: the code is
// found again by its first line's index, the place whose context still
// matches most winning, then the one nearest its last place; code found
// nowhere (or a file gone) makes the comment outdated, and it comes back
// if the code does. Comments are kept per worktree in
// $XDG_STATE_HOME/paneflow/review/<hash of the worktree's root>.json
// (directory 0700, files 0600, replaced atomically; a file that cannot be
// read is an error naming it, never overwritten).
//
// review.send builds one prompt (each comment's file, lines, the code in
// a Markdown fence, the comment) and types it into the agent pane through
// surface.send_text on the server's own socket ([Options.Dial]), so the
// scripting gate and the wait for the agent's input apply as to any
// client; its result carries the pane's surface.status from just before,
// against which the client confirms the turn start as
// `paneflow send --submit` does.
//
// Each change of a worktree's checks (a run starting, each check starting
// and ending, the run ending) publishes a [bus.ChecksChanged] with the
// worktree's results as this server has them (without their output), in
// the order of the changes; the window shows it as the checks badge of
// the panes working there.
//
// # Concurrency
//
// A [Service]'s methods run on the socket's goroutines and are safe for
// concurrent use: the [Store] serialises every read-modify-write of the
// comment files under one mutex. Only the server writes them.
package review
