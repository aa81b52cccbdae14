//go:build !windows

package terminal

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// ignoringEnv, when set, tells TestPTYProgramSignalsDefault that it runs
// in the copy of the test binary it started with childSignals ignored.
const ignoringEnv = "PANEFLOW_TEST_IGNORING"

func init() {
	// ignored-signals: print the name of every childSignal this process
	// ignores, then "done", and exit 0.
	helpers["ignored-signals"] = func([]string) int {
		for _, s := range childSignals {
			if signal.Ignored(s) {
				fmt.Println("ignored:", unix.SignalName(s.(unix.Signal)))
			}
		}
		fmt.Println("done")
		return 0
	}
}

// TestPTYProgramSignalsDefault checks that a program in a pane starts with
// the default action for hangup and interrupt even when Paneflow was
// started with them ignored (nohup, `cmd &` in a script): it runs this
// test again in a copy of the test binary that a shell started with them
// ignored.
func TestPTYProgramSignalsDefault(t *testing.T) {
	helper := helperCmd(t, "ignored-signals")
	if os.Getenv(ignoringEnv) == "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", `trap "" HUP INT; exec "$@"`, "sh",
			exe, "-test.run=^TestPTYProgramSignalsDefault$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), ignoringEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the test with the signals ignored failed (%v):\n%s", err, out)
		}
		return
	}
	for _, s := range childSignals {
		if !signal.Ignored(s) {
			t.Fatalf("the shell did not start the test binary with %v ignored", s)
		}
	}
	tp := startTestPTY(t, helper)
	out := tp.waitOutput("done")
	if strings.Contains(out, "ignored:") {
		t.Errorf("the program in the PTY started with signals ignored:\n%s", out)
	}
}
