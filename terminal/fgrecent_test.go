//go:build !windows

package terminal

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestRecentFgReuse checks when a kept description answers: not for
// other activity, more fields than kept, or once expired; the fields of
// the program's own group or of another, as the kept group is; and a
// caller cannot change what is kept through the argv it got.
func TestRecentFgReuse(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	r := &recentFg{now: clk.now}
	const pid = 7
	vim := Process{Pid: pid, Argv: []string{"vim", "x"}, Cwd: "/src"}
	check := func(what string, own, other Fields, act uint64, want bool) Process {
		t.Helper()
		pr, ok := r.reuse(pid, own, other, act)
		if ok != want {
			t.Errorf("%s: reused %v, want %v", what, ok, want)
		}
		return pr
	}
	check("nothing kept", AllFields, AllFields, 1, false)
	r.keep(pid, AllFields, 1, vim)
	pr := check("same activity and fields", AllFields, 0, 1, true)
	if pr.Pid != pid || !slices.Equal(pr.Argv, vim.Argv) || pr.Cwd != "/src" {
		t.Errorf("reused = %+v, want %+v", pr, vim)
	}
	pr.Argv[0] = "changed"
	if pr := check("fewer fields", FieldArgv, 0, 1, true); pr.Cwd != "" || !slices.Equal(pr.Argv, []string{"vim", "x"}) {
		t.Errorf("argv only = %+v; want the kept argv, no cwd", pr)
	}
	check("no fields", 0, AllFields, 1, false)
	check("new activity", AllFields, AllFields, 2, false)
	clk.t = clk.t.Add(fgMaxAge*3/4 - time.Nanosecond)
	check("less than three quarters of fgMaxAge later", AllFields, AllFields, 1, true)
	clk.t = clk.t.Add(fgMaxAge / 4)
	check("fgMaxAge after the read", AllFields, AllFields, 1, false)

	// A job (another group): the fields other asks for.
	job := Process{Pid: 9, Argv: []string{"make"}}
	r.keep(9, FieldArgv, 3, job)
	check("a job, its argv", 0, FieldArgv, 3, true)
	check("a job, its cwd too (not kept)", 0, AllFields, 3, false)
	check("a job, no fields", AllFields, 0, 3, false)
}

// TestTerminalForegroundReused checks that a Terminal reads its
// foreground process once while nothing happens on it, and again after
// fgMaxAge, a resize and input.
func TestTerminalForegroundReused(t *testing.T) {
	term := startHelper(t, "hang")
	waitScreen(t, term, "ready", func(s string) bool { return strings.Contains(s, "ready") })
	clk := &fakeClock{t: time.Unix(1000, 0)}
	term.fg.mu.Lock()
	term.fg.now = clk.now
	term.fg.mu.Unlock()
	reads := func() uint64 {
		term.fg.mu.Lock()
		defer term.fg.mu.Unlock()
		return term.fg.reads
	}
	describe := func(what string) Process {
		t.Helper()
		pr, err := term.ForegroundFields(AllFields, AllFields)
		if err != nil || pr.Pid != term.Pid() || len(pr.Argv) == 0 {
			t.Fatalf("%s: Foreground = %+v, %v", what, pr, err)
		}
		return pr
	}
	// Two calls with no output, input or resize between: one read. (The
	// output of the helper's start may still be arriving: then again.)
	for i := 0; ; i++ {
		act := term.activity.Load()
		first := describe("first call")
		n := reads()
		second := describe("second call")
		if term.activity.Load() != act {
			if i == 100 {
				t.Fatal("the idle helper's terminal never went quiet")
			}
			continue
		}
		if reads() != n {
			t.Fatalf("second call read the process table again (%d reads after %d)", reads(), n)
		}
		if second.Pid != first.Pid || !slices.Equal(second.Argv, first.Argv) || second.Cwd != first.Cwd {
			t.Fatalf("second call = %+v, first %+v", second, first)
		}
		break
	}
	for _, c := range []struct {
		what string
		do   func()
	}{
		{"fgMaxAge later", func() { clk.t = clk.t.Add(fgMaxAge) }},
		{"a resize", func() {
			if err := term.Resize(100, 30); err != nil {
				t.Fatal(err)
			}
		}},
		{"input", func() {
			if err := term.SendInput([]byte("x")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		n := reads()
		c.do()
		describe(c.what)
		if reads() != n+1 {
			t.Errorf("after %s: %d reads, want %d", c.what, reads(), n+1)
		}
	}
}
