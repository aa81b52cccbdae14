//go:build !windows

package shim

import (
	"fmt"
	"os"
	"syscall"
)

// caughtSignals are the signals the shim handles while the agent runs:
// Ctrl-C (the terminal delivers it to the agent too, so it is not
// forwarded but becomes ai.stop), Ctrl-\ (likewise delivered, ignored
// here), and SIGTERM and SIGHUP, which are forwarded to the agent so that
// `kill <shim>` ends the agent and the shim can still report its exit.
var caughtSignals = []os.Signal{os.Interrupt, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP}

// isInterrupt reports whether sig is Ctrl-C.
func isInterrupt(sig os.Signal) bool { return sig == os.Interrupt }

// forward passes sig on to the agent, except the terminal-generated
// SIGQUIT, which the agent got from the terminal already.
func forward(p *os.Process, sig os.Signal) {
	if sig == syscall.SIGQUIT {
		return
	}
	p.Signal(sig) // it may have exited meanwhile
}

// exitStatus is the agent's raw exit code: its status, or 128+n when
// signal n killed it.
func exitStatus(ps *os.ProcessState, err error) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// execReal replaces the shim with the real binary, untouched: same
// arguments and environment.
func (p Program) execReal(real string) int {
	if p.Dir != "" {
		if err := os.Chdir(p.Dir); err != nil {
			fmt.Fprintf(p.Stderr, "paneflow-shim: %v\n", err)
			return ExitCannot
		}
	}
	err := syscall.Exec(real, p.Args, p.Environ)
	fmt.Fprintf(p.Stderr, "paneflow-shim: %s: %v\n", real, err)
	return ExitCannot
}
