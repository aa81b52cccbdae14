package terminal

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// openFDs lists this process's open file descriptors with their targets.
func openFDs(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	fds := make(map[string]string, len(entries))
	for _, e := range entries {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		fds[e.Name()] = target
	}
	return fds
}

// TestPTYNoFDLeak starts and closes 50 PTYs, half of them exiting by
// themselves and half killed, plus 50 failed starts, and checks no
// descriptor is left behind.
func TestPTYNoFDLeak(t *testing.T) {
	missingDir := filepath.Join(t.TempDir(), "missing")
	cycle := func(i int) {
		bad := helperCmd(t, "exit", "0")
		bad.Dir = missingDir
		if p, err := StartPTY(bad); err == nil {
			_ = p.Close()
			t.Fatalf("cycle %d: StartPTY in a missing directory succeeded", i)
		}
		var c Cmd
		if i%2 == 0 {
			c = helperCmd(t, "exit", "0", "bye")
		} else {
			c = helperCmd(t, "hang")
		}
		p, err := StartPTY(c)
		if err != nil {
			t.Fatalf("cycle %d: StartPTY: %v", i, err)
		}
		if i%2 == 0 {
			if _, err := io.ReadAll(p); err != nil {
				t.Fatalf("cycle %d: ReadAll: %v", i, err)
			}
		} else if err := p.Kill(time.Second); err != nil {
			t.Fatalf("cycle %d: Kill: %v", i, err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatalf("cycle %d: Wait: %v", i, err)
		}
		if err := p.Close(); err != nil {
			t.Fatalf("cycle %d: Close: %v", i, err)
		}
	}
	// Warm up: the runtime opens some descriptors (netpoller, pidfd
	// probes) the first time they are needed.
	cycle(0)
	cycle(1)
	before := openFDs(t)
	for i := range 50 {
		cycle(i)
	}
	after := openFDs(t)
	for fd, target := range after {
		if _, ok := before[fd]; !ok {
			t.Errorf("fd %s (%s) leaked", fd, target)
		}
	}
	if len(after) != len(before) {
		t.Errorf("open descriptors: %d before, %d after 50 cycles", len(before), len(after))
	}
}

func TestParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     procStat
		wantErr  bool
	}{
		{"plain", "1234 (bash) S 1 1234 1234 34816 1240 4194560 0 0 0 0 0 0 0 0 20 0 1 0 98765 0 0",
			procStat{comm: "bash", state: 'S', ppid: 1, pgrp: 1234, startTime: 98765}, false},
		{"comm with parens and spaces", "77 (a) b (c) Z 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0",
			procStat{comm: "a) b (c", state: 'Z', ppid: 1, pgrp: 70, startTime: 5}, false},
		{"truncated", "77 (x) S 1 2", procStat{}, true},
		{"no comm", "77 x S 1 2 3", procStat{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProcStat(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseProcStat error = %v, want error: %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("parseProcStat = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSplitNUL(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\x00", nil},
		{"sleep\x00100\x00", []string{"sleep", "100"}},
		{"a\x00\x00b\x00", []string{"a", "", "b"}},
		{"rewritten title", []string{"rewritten title"}},
	} {
		if got := splitNUL([]byte(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("splitNUL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPTYForegroundCached checks the foreground cache: a second call
// answers the same argv, a change of directory is seen while the argv is
// reused, and an exec into another binary (same pid, same group, no new
// group for the cache to notice) is seen too.
func TestPTYForegroundCached(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	c := helperCmd(t, "hang")
	exe := c.Argv[0]
	script := `echo started; read x; cd / && echo moved; read y; exec "$0" "$@"`
	c.Argv = []string{sh, "-c", script, exe, "fg-marker"}
	dir := t.TempDir()
	c.Dir = dir
	tp := startTestPTY(t, c)
	tp.waitOutput("started")
	wantDir, _ := filepath.EvalSymlinks(dir)
	shArgv := []string{sh, "-c", script, exe, "fg-marker"}
	for i := range 2 {
		got, err := tp.Foreground()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Argv, shArgv) || got.Cwd != wantDir || got.Pid != tp.Pid() {
			t.Fatalf("call %d: Foreground = %+v, want argv %q in %s", i, got, shArgv, wantDir)
		}
	}
	if _, err := tp.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	tp.waitOutput("moved")
	if got, err := tp.Foreground(); err != nil || !slices.Equal(got.Argv, shArgv) || got.Cwd != "/" {
		t.Fatalf("after cd: Foreground = %+v, %v; want argv %q in /", got, err, shArgv)
	}
	if _, err := tp.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	tp.waitOutput("ready")
	want := []string{exe, "fg-marker"}
	if got, err := tp.Foreground(); err != nil || !slices.Equal(got.Argv, want) || got.Pid != tp.Pid() {
		t.Fatalf("after exec: Foreground = %+v, %v; want argv %q, pid %d", got, err, want, tp.Pid())
	}
}
