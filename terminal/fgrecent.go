package terminal

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// fgMaxAge bounds how long a [Terminal] reuses a description of its
// foreground process while nothing happens on the terminal (see
// recentFg). Each description is kept for between three quarters of it
// and all of it, chosen at random, so that the descriptions of many
// panes read in one call (surface.list) do not all expire together and
// make every fgMaxAge-th call read them all again.
const fgMaxAge = time.Second

// recentFg is a [Terminal]'s last description of its foreground process,
// reused while it still describes what runs as far as the terminal can
// tell without asking: nothing happened on the terminal since it was
// read (no output read, no input sent, no resize: the terminal's
// activity count is the same) and it is younger than fgMaxAge. Not even
// the foreground group is asked for then (TIOCGPGRP): surface.list
// describes every pane on every call, and with 200 idle panes reading
// each leader's cwd from /proc was half the server's CPU under a fleet of
// agents and the ioctl a third of what was left (it takes the tty's
// lock, which is dear on a virtual machine); an idle pane now costs a
// clock read.
//
// What it misses for up to fgMaxAge: a program that changes directory
// or execs another one without printing anything, a new foreground job
// that starts without any output or input (the next command of a
// `a; b` list), and a job whose leader exits while the group lives on.
// A shell's cd prints its prompt, a job typed or sent is input, and an
// OSC 7 directory comes with the output, so those are seen at once.
// Asking for no fields (is anything but the program in the foreground?)
// always asks the terminal.
//
// The zero value is empty; it is safe for concurrent use.
type recentFg struct {
	mu    sync.Mutex
	ok    bool
	pgrp  int
	act   uint64    // the terminal's activity count when it was read
	have  Fields    // the fields read
	until time.Time // when it expires
	pr    Process
	// reads counts the descriptions kept (for tests).
	reads uint64
	// now is the clock; nil is time.Now (a test sets its own).
	now func() time.Time
}

// clock returns the time; r.mu must be held.
func (r *recentFg) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// reuse returns the kept description with the fields own (when the group
// it describes is the program's, pid) or other ask for, when it still
// holds at activity count act, taken before the terminal was asked
// anything.
func (r *recentFg) reuse(pid int, own, other Fields, act uint64) (Process, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	want := other
	if r.pgrp == pid {
		want = own
	}
	if !r.ok || want == 0 || r.act != act || r.have&want != want || !r.clock().Before(r.until) {
		return Process{}, false
	}
	return r.pr.only(want), true
}

// keep records pr, the description of process group pgrp with the fields
// have, read at activity count act.
func (r *recentFg) keep(pgrp int, have Fields, act uint64, pr Process) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ok, r.pgrp, r.act, r.have, r.pr = true, pgrp, act, have, pr.only(have)
	r.until = r.clock().Add(fgMaxAge - rand.N(fgMaxAge/4))
	r.reads++
}

// only returns a copy of pr holding only the fields want (and the pid),
// its argv not shared with pr.
func (pr Process) only(want Fields) Process {
	out := Process{Pid: pr.Pid}
	if want&FieldArgv != 0 {
		out.Argv = slices.Clone(pr.Argv)
	}
	if want&FieldCwd != 0 {
		out.Cwd = pr.Cwd
	}
	return out
}
