//go:build unix

package proctest

import (
	"errors"
	"os/exec"
	"testing"
	"time"
)

func TestTerminate(t *testing.T) {
	p, err := Start(exec.Command("sleep", "1000"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Err() != nil {
		t.Errorf("Err before the end = %v, want nil", p.Err())
	}
	late, err := p.Terminate(time.Minute)
	var ee *exec.ExitError
	if late || !errors.As(err, &ee) {
		t.Fatalf("Terminate = %v, %v; want on time, with the SIGTERM exit", late, err)
	}
	<-p.Exited()
	if late, again := p.Terminate(time.Minute); late || again != err {
		t.Errorf("a second Terminate = %v, %v; want the same result, on time", late, again)
	}
}

// TestTerminateLate kills a process that ignores SIGTERM.
func TestTerminateLate(t *testing.T) {
	var out Buffer
	cmd := exec.Command("sh", "-c", "trap '' TERM; echo ready; exec sleep 1000")
	cmd.Stdout = &out
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	// The signal must come after the trap: wait for the shell's word.
	for deadline := time.Now().Add(30 * time.Second); out.String() != "ready\n"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the shell never got ready; output %q", out.String())
		}
	}
	if late, _ := p.Terminate(200 * time.Millisecond); !late {
		t.Error("a process that ignores SIGTERM was not reported late")
	}
	select {
	case <-p.Exited():
	default:
		t.Error("the late process was not reaped")
	}
}

func TestIndent(t *testing.T) {
	for in, want := range map[string]string{"": "    (empty)", "a\nb\n": "    a\n    b", "x": "    x"} {
		if got := Indent(in); got != want {
			t.Errorf("Indent(%q) = %q, want %q", in, got, want)
		}
	}
}
