package conductor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
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
	cmd := exec.Command("/bin/sh", "-c", `sh -c "claude 300; true"; true`)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	root := cmd.Process.Pid
	pt := systemProcs()

	var found []detected
	deadline := time.Now().Add(testDeadline)
	for len(found) == 0 {
		tree, err := pt.Descendants(root, maxScanPIDs)
		if err != nil {
			t.Fatalf("Descendants(%d): %v", root, err)
		}
		found = detect(tree)
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
