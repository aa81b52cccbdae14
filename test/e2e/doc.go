// Package e2e runs the built paneflow binary end to end: a headless server
// (`paneflow serve`) on a temporary socket, driven by the CLI verbs and by
// raw socket clients, as a user or script would.
//
// TestMain builds the nogui binary once (with -race when the tests run
// with it). Every test starts its own server in a fresh directory that is
// also the HOME and working directory of its CLI runs, so tests run in
// parallel without sharing state. Failures print the CLI's stdout and
// stderr and the server's stderr. The tests run on Linux only: they read
// /proc for process and file descriptor state, and TestPeerUID needs root
// and setpriv (it skips otherwise).
package e2e
