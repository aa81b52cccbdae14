// Package fidelity holds end-to-end tests that run the same real programs in a
// Paneflow terminal and in a tmux pane (tmux 3.3a is the reference) and compare
// the screen and history text row by row.
//
// The package has no code besides its tests. The tests need tmux and a UTF-8
// locale; they skip with a message when tmux is missing (make test installs
// it). They compare text only (what tmux capture-pane -p prints), not colours
// or attributes, and never assert on timing: each side is waited for until it
// reaches a known state, with generous timeouts.
package fidelity
