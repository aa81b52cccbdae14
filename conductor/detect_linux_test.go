package conductor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/exefile"
)

// TestDetectRealProcess runs `sleep` under the name claude (a symlink),
// two shells below a pane-like shell, and finds it in the real /proc: by
// name, with its start time, and back up to the pane from its pid.
func TestDetectRealProcess(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	dir := t.TempDir()
	if err := os.Symlink(sleep, filepath.Join(dir, "claude")); err != nil {
		t.Fatal(err)
	}
	root := startGroup(t, "/bin/sh", `sh -c "claude 300; true"; true`, dir)
	pt := systemProcs()

	var found []detected
	deadline := time.Now().Add(testDeadline)
	for len(found) == 0 {
		tree, err := pt.Descendants(root, maxScanPIDs)
		if err != nil {
			t.Fatalf("Descendants(%d): %v", root, err)
		}
		found = detect(tree, "")
		if time.Now().After(deadline) {
			t.Fatalf("claude never appeared under pid %d; tree %+v", root, tree)
		}
		time.Sleep(5 * time.Millisecond)
	}
	d := found[0]
	if len(found) != 1 || d.Tool != "claude" {
		t.Fatalf("detected %+v, want one claude", found)
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(d.PID) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if want, _ := strconv.ParseUint(fields[19], 10, 64); d.Start != want || want == 0 {
		t.Errorf("start time = %d, want %d (stat field 22)", d.Start, want)
	}
	if got, ok := ancestorIn(pt, d.PID, func(pid int) bool { return pid == root }); !ok || got != root {
		t.Errorf("ancestorIn(%d) = %d, %v, want the pane-like shell %d", d.PID, got, ok, root)
	}

	// The conductor sees it as an agent without hooks, then a hook frame
	// with only its pid lands in the right pane, and when it is killed the
	// next scan notices.
	h := newHarness(t, Options{procs: pt})
	h.panes.add(Pane{SurfaceID: 9, WorkspaceID: 3, Workspace: 2, Name: "real", PID: root})
	h.event(bus.SurfaceCreated{SurfaceID: 9, WorkspaceID: 3, Name: "real"})
	h.clock.Advance(h.c.scanDelay)
	if st := h.status(9); st.State != UnknownRunning || st.PID == nil || *st.PID != d.PID {
		t.Fatalf("pane 9 = %+v, want unknown_running claude pid %d", st, d.PID)
	}
	a := h.mustSend(MethodPromptSubmit, `{"pid":`+strconv.Itoa(d.PID)+`,"tool":"claude"}`)
	if a.SurfaceID == nil || *a.SurfaceID != 9 {
		t.Errorf("frame with pid %d placed in %v, want pane 9", d.PID, a.SurfaceID)
	}
	p, _ := os.FindProcess(d.PID)
	p.Kill()
	for {
		h.activity(9)
		if _, ok := h.c.Status(9); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane 9 still reports %+v after its agent was killed", h.status(9))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDetectRealShim runs a stand-in of the launch shim as the kernel sees
// the real one (a file named paneflow-shim, run through a symlink named
// claude; here a copy of sh) with a stand-in agent below it (sleep run
// as claude): the real /proc gives the shim's exe, the shim is no agent,
// and the agent under it is found.
func TestDetectRealShim(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	shimDir, agentDir := t.TempDir(), t.TempDir()
	raw, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	if err := exefile.Write(filepath.Join(shimDir, shimBinary), raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shimBinary, filepath.Join(shimDir, "claude")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sleep, filepath.Join(agentDir, "claude")); err != nil {
		t.Fatal(err)
	}
	root := startGroup(t, sh, `claude -c "PATH=`+agentDir+` claude 300; true"; true`, shimDir)
	pt := systemProcs()
	deadline := time.Now().Add(testDeadline)
	for {
		tree, err := pt.Descendants(root, maxScanPIDs)
		if err != nil {
			t.Fatalf("Descendants(%d): %v", root, err)
		}
		var shim, agent process
		for _, p := range tree {
			if p.Comm == "claude" && p.PPID == root {
				shim = p
			}
			if p.Comm == "claude" && shim.PID != 0 && p.PPID == shim.PID && p.Exe != shim.Exe {
				agent = p
			}
		}
		if agent.PID != 0 {
			if want := filepath.Join(shimDir, shimBinary); shim.Exe != want {
				t.Errorf("the shim's Exe = %q, want %q", shim.Exe, want)
			}
			if found := detect(tree, ""); len(found) != 1 || found[0].PID != agent.PID {
				t.Errorf("detect = %+v, want only the agent, pid %d (the shim is %d)", found, agent.PID, shim.PID)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shim and its agent never appeared under pid %d; tree %+v", root, tree)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// killGroup kills cmd's process group (its shells' children too, which
// would otherwise outlive the test) and reaps cmd.
// startGroup runs `sh -c script` in a process group of its own with dir
// first in PATH, killed with its group when the test ends, and returns
// its pid.
func startGroup(t *testing.T, sh, script, dir string) int {
	t.Helper()
	cmd := exec.Command(sh, "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killGroup(cmd) })
	return cmd.Process.Pid
}

func killGroup(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
}
