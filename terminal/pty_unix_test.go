//go:build !windows

package terminal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestPTYSignaledStatus(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want ExitStatus
	}{
		{syscall.SIGKILL, ExitStatus{Code: 137, Signal: "killed", Signaled: true}},
		{syscall.SIGHUP, ExitStatus{Code: 129, Signal: "hangup", Signaled: true}},
		{syscall.SIGTERM, ExitStatus{Code: 143, Signal: "terminated", Signaled: true}},
	} {
		t.Run(tc.want.Signal, func(t *testing.T) {
			tp := startTestPTY(t, helperCmd(t, "hang"))
			tp.waitOutput("ready")
			if err := syscall.Kill(tp.Pid(), tc.sig); err != nil {
				t.Fatalf("kill: %v", err)
			}
			if got := tp.wait(); got != tc.want {
				t.Errorf("status = %+v, want %+v", got, tc.want)
			}
			if got, want := tp.wait().String(), "signal: "+tc.want.Signal; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
		})
	}
}

// TestPTYKillEscalates checks that a program ignoring SIGHUP and SIGTERM
// is SIGKILLed after the grace period and that Kill returns.
func TestPTYKillEscalates(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "hang", "-ignore-term"))
	tp.waitOutput("ready")
	killReturns(t, tp, 300*time.Millisecond)
	want := ExitStatus{Code: 137, Signal: "killed", Signaled: true}
	if got := tp.wait(); got != want {
		t.Errorf("status = %+v, want %+v", got, want)
	}
}

// TestPTYKillGrandchild checks that Kill reaches what the program started:
// a grandchild that dies with its parent on SIGTERM, and one that ignores
// SIGTERM and outlives its parent until the SIGKILL after the grace period.
func TestPTYKillGrandchild(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"polite", nil},
		{"ignores SIGTERM", []string{"-ignore-term"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := startTestPTY(t, helperCmd(t, "spawn-child-and-hang", tc.args...))
			out := tp.waitFor(`"child PID" and "ready"`, func(out string) bool {
				return strings.Contains(out, "ready") && childPid(out) > 0
			})
			child := childPid(out)
			killReturns(t, tp, 300*time.Millisecond)
			waitProcessGone(t, child)
		})
	}
}

// childPid extracts PID from a "child PID" line, or returns 0.
func childPid(out string) int {
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "child "); ok {
			if pid, err := strconv.Atoi(rest); err == nil {
				return pid
			}
		}
	}
	return 0
}

// killReturns calls Kill(grace) and fails the test unless it returns nil
// (within testTimeout, a hang guard) with the process reaped.
func killReturns(t *testing.T, tp *testPTY, grace time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		err = tp.Kill(grace)
	}()
	waitGroupOrFail(t, &wg, "Kill")
	if err != nil {
		t.Fatalf("Kill(%v): %v", grace, err)
	}
	select {
	case <-tp.Done():
	default:
		t.Fatalf("Done not closed after Kill returned")
	}
}

// waitProcessGone waits until pid no longer runs: it does not exist or is
// a zombie nobody reaped (orphans in a container whose init does not reap).
func waitProcessGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		gone := unix.Kill(pid, 0) == unix.ESRCH
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
				gone = b[i+2] == 'Z' || b[i+2] == 'X'
			}
		}
		if gone {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running %v after Kill", pid, testTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPTYResize(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cols, rows int      // initial size in Cmd
		want       string   // first report
		resizes    [][2]int // then each of these must be reported
	}{
		{"default size", 0, 0, "80x24", [][2]int{{120, 40}}},
		{"given size", 100, 30, "100x30", [][2]int{{33, 7}, {250, 70}}},
		{"only cols", 132, 0, "132x24", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := helperCmd(t, "size")
			c.Cols, c.Rows = tc.cols, tc.rows
			tp := startTestPTY(t, c)
			tp.waitOutput(tc.want + "\r\n")
			for _, sz := range tc.resizes {
				if err := tp.Resize(sz[0], sz[1]); err != nil {
					t.Fatalf("Resize(%d, %d): %v", sz[0], sz[1], err)
				}
				tp.waitOutput(fmt.Sprintf("%dx%d\r\n", sz[0], sz[1]))
			}
		})
	}
}

// TestPTYForeground checks Foreground for the program itself, for a
// program a shell exec'd into, and for a job a shell with job control runs
// in its own process group.
func TestPTYForeground(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name      string
		argv      func(exe string) []string
		wantOwner bool // the reported process is the program itself
	}{
		{"program", func(exe string) []string { return []string{exe, "fg-marker", "two words"} }, true},
		{"exec chain", func(exe string) []string {
			return []string{sh, "-c", `exec "$0" "$@"`, exe, "fg-marker", "two words"}
		}, true},
		{"job", func(exe string) []string {
			return []string{sh, "-c", `set -m; "$0" "$@"; exit 0`, exe, "fg-marker", "two words"}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := helperCmd(t, "hang")
			exe := c.Argv[0]
			c.Argv = tc.argv(exe)
			c.Dir = dir
			tp := startTestPTY(t, c)
			tp.waitOutput("ready")
			wantArgv := []string{exe, "fg-marker", "two words"}
			var got Process
			deadline := time.Now().Add(testTimeout)
			for {
				// A job becomes the foreground group a moment after it
				// starts; wait for it rather than for a fixed time.
				got, err = tp.Foreground()
				if err != nil {
					t.Fatalf("Foreground: %v", err)
				}
				if slices.Equal(got.Argv, wantArgv) || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !slices.Equal(got.Argv, wantArgv) {
				t.Errorf("Argv = %q, want %q", got.Argv, wantArgv)
			}
			if isOwner := got.Pid == tp.Pid(); isOwner != tc.wantOwner {
				t.Errorf("Pid = %d with program pid %d; want same pid: %v", got.Pid, tp.Pid(), tc.wantOwner)
			}
			if runtime.GOOS != "linux" {
				return
			}
			wantDir, _ := filepath.EvalSymlinks(dir)
			if got.Cwd != wantDir {
				t.Errorf("Cwd = %q, want %q", got.Cwd, wantDir)
			}
			// ForegroundFields reads what is asked for the case at hand
			// (own for the program, other for a job) and nothing else.
			for _, want := range []Fields{0, FieldArgv, FieldCwd, AllFields} {
				own, other := want, AllFields
				if !tc.wantOwner {
					own, other = AllFields, want
				}
				p, err := tp.ForegroundFields(own, other)
				if err != nil {
					t.Fatalf("ForegroundFields(%b, %b): %v", own, other, err)
				}
				var argv []string
				var cwd string
				if want&FieldArgv != 0 {
					argv = wantArgv
				}
				if want&FieldCwd != 0 {
					cwd = wantDir
				}
				if p.Pid != got.Pid || !slices.Equal(p.Argv, argv) || p.Cwd != cwd {
					t.Errorf("ForegroundFields(%b, %b) = %+v; want pid %d, argv %q, cwd %q", own, other, p, got.Pid, argv, cwd)
				}
			}
		})
	}
}

// TestPTYKillForegroundJob checks that Kill also ends the job a shell with
// job control runs in a process group of its own.
func TestPTYKillForegroundJob(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	c := helperCmd(t, "hang")
	c.Argv = []string{sh, "-c", `set -m; "$0" "$@"; exit 0`, c.Argv[0], "-ignore-term"}
	tp := startTestPTY(t, c)
	tp.waitOutput("ready")
	var job Process
	for deadline := time.Now().Add(testTimeout); ; time.Sleep(10 * time.Millisecond) {
		if job, err = tp.Foreground(); err != nil {
			t.Fatalf("Foreground: %v", err)
		}
		if job.Pid != tp.Pid() || time.Now().After(deadline) {
			break
		}
	}
	if job.Pid == tp.Pid() {
		t.Fatalf("the job never became the foreground process group")
	}
	killReturns(t, tp, 300*time.Millisecond)
	waitProcessGone(t, job.Pid)
}

// TestPTYLookPath checks that Argv[0] is searched in the PATH of Env.
func TestPTYLookPath(t *testing.T) {
	binDir := t.TempDir()
	c := helperCmd(t, "echo", "found it")
	if err := os.Symlink(c.Argv[0], filepath.Join(binDir, "pf-test-helper")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		path    string
		dir     string
		wantErr error
	}{
		{"env PATH", "/nonexistent:" + binDir, "", nil},
		{"relative entry skipped", ".", binDir, exec.ErrNotFound},
		{"not there", "/nonexistent", "", exec.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := c
			c.Argv = []string{"pf-test-helper", "found it"}
			c.Env = append(slices.Clip(c.Env), "PATH="+tc.path)
			c.Dir = tc.dir
			if tc.wantErr != nil {
				p, err := StartPTY(c)
				if err == nil {
					_ = p.Kill(0)
					_ = p.Close()
				}
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("StartPTY error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			tp := startTestPTY(t, c)
			if out, _ := tp.waitEOF(); !strings.Contains(out, "found it") {
				t.Errorf("output = %q, want it to contain %q", out, "found it")
			}
		})
	}
}

// TestPTYWriteUnblocksOnExit fills the terminal's input buffer of a
// program that never reads, then kills it: the blocked Write must return
// with an error.
func TestPTYWriteUnblocksOnExit(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "hang"))
	tp.waitOutput("ready")
	var wg sync.WaitGroup
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		chunk := []byte(strings.Repeat("x", 4096))
		for werr == nil {
			_, werr = tp.Write(chunk)
		}
	}()
	// The writer blocks once the kernel buffers are full; killing the
	// program must release it whether or not it got there yet.
	killReturns(t, tp, 0)
	waitGroupOrFail(t, &wg, "blocked Write")
	if werr == nil {
		t.Fatalf("Write after exit succeeded, want an error")
	}
}
