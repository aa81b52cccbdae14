//go:build linux || darwin

package api

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paneflow-go/paneflow/attach"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

// The attacher helper (TestMain): this test binary, run inside a pane with
// these variables set, attaches to the socket and types into a pane, as an
// agent trying to get around the scripting gate would.
const (
	envAttacherSock   = "PANEFLOW_API_TEST_ATTACHER"
	envAttacherTarget = "PANEFLOW_API_TEST_ATTACH_TARGET"
)

func TestMain(m *testing.M) {
	if sock := os.Getenv(envAttacherSock); sock != "" {
		os.Exit(runAttacher(sock, os.Getenv(envAttacherTarget)))
	}
	if f := os.Getenv(envListenFile); f != "" {
		os.Exit(runListener(f))
	}
	os.Exit(m.Run())
}

// runAttacher attaches to sock and writes a line into pane target,
// printing what the server said to each step.
func runAttacher(sock, target string) int {
	id, err := strconv.ParseUint(target, 10, 64)
	if err != nil {
		fmt.Println("attacher: bad target:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	c, err := attach.Dial(ctx, sock, attach.Options{Surfaces: []uint64{id}})
	if err != nil {
		fmt.Println("attacher: dial:", err)
		return 1
	}
	defer c.Close()
	fmt.Printf("attacher read-only=%q\n", c.ReadOnly())
	if err := c.Pane(id).SendInput([]byte("INJECTED\n")); err != nil {
		code := 0
		if rerr, ok := errors.AsType[*ipc.Error](err); ok {
			code = rerr.Code
		}
		fmt.Printf("attacher input refused (code %d): %v\n", code, err)
		return 0
	}
	fmt.Println("attacher input accepted")
	return 0
}

// TestScreenWriteGate checks that an attachment made from inside a pane
// (here a child of the pane's shell) may watch but not type while the
// scripting gate is closed, and may once it opens; the test process, a
// window outside every pane, types either way. Before the gate covered
// screen.input, the in-pane attacher's line reached the other pane.
func TestScreenWriteGate(t *testing.T) {
	var gate atomic.Bool
	e := newEnv(t, workspace.Options{}, Options{Scripting: gate.Load}).withWorkspace(t.TempDir())
	srv := ipctest.Start(t, e.reg)
	target := e.split("exec cat")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	attacher := func() string {
		t.Helper()
		cmd := fmt.Sprintf("%s=%s %s=%d %s; exec cat", envAttacherSock, shellQuote(srv.Path),
			envAttacherTarget, target.ID(), shellQuote(self))
		return waitText(t, e.split(cmd), "attacher input")
	}

	out := attacher()
	if !strings.Contains(out, "attacher input refused") || !strings.Contains(out, "(code -32601)") ||
		!strings.Contains(out, "inside pane") || !strings.Contains(out, `read-only="attached from pid`) {
		t.Fatalf("an in-pane attacher with the gate closed: %s", out)
	}
	// The window (this process) types; the line it typed arrives, the
	// attacher's never did.
	c := dialAttach(t, srv, attach.Options{Surfaces: []uint64{target.ID()}})
	if ro := c.ReadOnly(); ro != "" {
		t.Fatalf("the test process's attachment is read-only: %s", ro)
	}
	if err := c.Pane(target.ID()).SendInput([]byte("FROM WINDOW\n")); err != nil {
		t.Fatal(err)
	}
	if got := waitText(t, target, "FROM WINDOW"); strings.Contains(got, "INJECTED") {
		t.Fatalf("the refused input reached the pane: %s", got)
	}

	gate.Store(true)
	if out := attacher(); !strings.Contains(out, "attacher input accepted") {
		t.Fatalf("an in-pane attacher with the gate open: %s", out)
	}
	waitText(t, target, "INJECTED")
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
