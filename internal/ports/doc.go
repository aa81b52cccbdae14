// Package ports finds the TCP ports a process tree listens on: the
// window's port chips for its own panes, and a server's surface.ports
// answer for a window on another machine (issue 30), which forwards them
// over ssh.
//
// It reads the kernel's tables (sock_diag over netlink, else
// /proc/net/tcp{,6}) and /proc; it needs no other program. Only Linux is
// supported: elsewhere every answer is empty. It does not look at UDP,
// nor at Unix sockets, nor at sockets of processes the user may not read.
//
// # Concurrency
//
// [Listening] is safe for concurrent use; a [Cache] is not (its owner
// guards it).
package ports
