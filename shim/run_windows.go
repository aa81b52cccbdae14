//go:build windows

package shim

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// caughtSignals are the signals the shim handles while the agent runs:
// Ctrl-C, which the console delivers to the agent too and which becomes
// ai.stop.
var caughtSignals = []os.Signal{os.Interrupt}

// isInterrupt reports whether sig is Ctrl-C.
func isInterrupt(sig os.Signal) bool { return sig == os.Interrupt }

// forward does nothing: Windows has no signals to pass on, and the
// console already sent Ctrl-C and close events to the agent.
func forward(*os.Process, os.Signal) {}

// exitStatus is the agent's raw exit code as a 32-bit signed value, so
// that STATUS_CONTROL_C_EXIT reads -1073741510.
func exitStatus(ps *os.ProcessState, err error) int {
	if ps == nil {
		return 1
	}
	return int(int32(uint32(ps.ExitCode())))
}

// execReal runs the real binary untouched (Windows has no exec): same
// arguments, environment and console; the shim waits, ignoring Ctrl-C,
// and exits with the agent's code.
func (p Program) execReal(real string) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	cmd := &exec.Cmd{Path: real, Args: p.Args, Env: p.Environ, Dir: p.Dir, Stdin: p.Stdin, Stdout: p.Stdout, Stderr: p.Stderr}
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		fmt.Fprintf(p.Stderr, "paneflow-shim: %s: %v\n", real, err)
		return ExitCannot
	}
	code := exitStatus(cmd.ProcessState, nil)
	if code < 0 || code > 255 {
		return 1
	}
	return code
}
