//go:build linux

package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// ticker is a pane command that prints a numbered pair of lines five times
// a second, so a wait started at any moment sees new output soon. As each
// TICK line follows another line, ^TICK-\d+$ only matches when ^ and $
// anchor at line boundaries inside the new text.
const ticker = `i=0; while [ $i -lt 3000 ]; do printf 'tock %d\nTICK-%d\n' $i $i; i=$((i+1)); sleep 0.2; done; exec sleep 1000`

// waitResult is surface.wait's result as `paneflow wait` prints it.
type waitResult struct {
	Matched bool     `json:"matched"`
	Idle    bool     `json:"idle"`
	Panes   []uint64 `json:"panes"`
	Matches []struct {
		SurfaceID uint64   `json:"surface_id"`
		Lines     []string `json:"lines"`
	} `json:"matches"`
}

// TestWait covers wait --pattern (per-line anchors, old text never
// matching, timeout exit 4), --any and --all over two panes, and --idle.
func TestWait(t *testing.T) {
	t.Parallel()
	s := startServer(t)

	t.Run("old output never matches", func(t *testing.T) {
		s := s.with(t)
		p := s.command("echo MARK-$((40+2)); exec sleep 1000")
		s.waitOutput(id(p), `MARK-42`)
		s.wantCode(4, []string{"timeout after 1.5s waiting for /MARK-42/"}, "wait", "--match", id(p), "--pattern", "MARK-42", "--timeout", "1.5")
	})

	t.Run("pattern anchored per line", func(t *testing.T) {
		s := s.with(t)
		p := s.command(ticker, "--name", "tick-solo")
		var res waitResult
		s.mustCLI(&res, "wait", "--match", "tick-solo", "--pattern", `^TICK-[0-9]+$`, "--timeout", "60")
		if !res.Matched || !slices.Equal(res.Panes, []uint64{p}) || len(res.Matches) != 1 || len(res.Matches[0].Lines) == 0 {
			t.Fatalf("wait ^TICK-[0-9]+$: got %+v, want a match in pane %d with its lines", res, p)
		}
		for _, l := range res.Matches[0].Lines {
			if !regexpMatch(`^TICK-[0-9]+$`, l) {
				t.Errorf("matched line %q does not match ^TICK-[0-9]+$", l)
			}
		}
		// ^ still anchors: "ICK-" follows a "T" on every line.
		s.wantCode(4, []string{"timeout"}, "wait", "--match", id(p), "--pattern", `^ICK-`, "--timeout", "1")
	})

	t.Run("any and all", func(t *testing.T) {
		s := s.with(t)
		tick := s.command(ticker, "--name", "grp-tick")
		s.command("exec sleep 1000", "--name", "grp-quiet")
		var res waitResult
		s.mustCLI(&res, "wait", "--match", "grp", "--pattern", `^TICK-\d+$`, "--any", "--timeout", "60")
		if !res.Matched || !slices.Equal(res.Panes, []uint64{tick}) {
			t.Errorf("wait --any over grp-tick and grp-quiet: got %+v, want a match in %d only", res, tick)
		}
		// --all cannot finish while one pane stays quiet.
		s.wantCode(4, []string{"timeout"}, "wait", "--match", "grp", "--pattern", `^TICK-\d+$`, "--all", "--timeout", "1")
		// Without --any/--all a prefix matching two panes is ambiguous.
		s.wantCode(3, []string{"ambiguous target 'grp'"}, "wait", "--match", "grp", "--pattern", "x", "--timeout", "1")

		a := s.command(ticker, "--name", "duo-a")
		b := s.command(ticker, "--name", "duo-b")
		s.mustCLI(&res, "wait", "--match", "duo", "--pattern", `^TICK-\d+$`, "--all", "--timeout", "60")
		got := slices.Clone(res.Panes)
		slices.Sort(got)
		if !res.Matched || !slices.Equal(got, []uint64{a, b}) || len(res.Matches) != 2 {
			t.Errorf("wait --all over duo-a and duo-b: got %+v, want matches in %d and %d", res, a, b)
		}
	})

	t.Run("idle", func(t *testing.T) {
		s := s.with(t)
		q := s.command("exec sleep 1000", "--name", "quiet")
		var res waitResult
		s.mustCLI(&res, "wait", "--match", "quiet", "--idle", "--for", "200ms", "--timeout", "60")
		if !res.Idle || res.Matched || !slices.Equal(res.Panes, []uint64{q}) {
			t.Errorf("wait --idle on a quiet pane: got %+v, want idle in %d", res, q)
		}
		s.wantCode(3, []string{"no pane matches"}, "wait", "--match", "nobody", "--idle")
	})

	t.Run("interrupted", func(t *testing.T) {
		s := s.with(t)
		q := s.command("exec sleep 1000")
		// Ctrl-C ends a wait with 130, like a shell command killed by
		// SIGINT.
		cmd := exec.Command(bin, "wait", "--match", id(q), "--pattern", "never", "--timeout", "300")
		cmd.Env, cmd.Dir = s.clientEnv(), s.dir
		var out, errb proctest.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// Signal only once the CLI has dialled the server (a socket shows
		// in its own fds): main installs the signal handling before that.
		// (Counting the server's fds instead is racy: parallel subtests
		// open and close connections to the same server.)
		s.eventually("the wait to dial the server", func() (bool, string) {
			n := socketFDs(cmd.Process.Pid)
			return n > 0, fmt.Sprintf("%d sockets open in the CLI", n)
		})
		cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("interrupted wait: got %v, want exit 130; stdout %q stderr %q", err, out.String(), errb.String())
			}
		case <-time.After(stopTimeout):
			cmd.Process.Kill()
			<-done
			t.Errorf("wait did not end within %v of SIGINT", stopTimeout)
		}
	})

	t.Run("usage", func(t *testing.T) {
		s := s.with(t)
		s.wantCode(2, []string{"--match <target> is required"}, "wait", "--pattern", "x")
		s.wantCode(2, []string{"give --pattern"}, "wait", "--match", "1")
		s.wantCode(2, []string{"cannot be used together"}, "wait", "--match", "1", "--pattern", "x", "--any", "--all")
		s.wantCode(2, []string{"--timeout"}, "wait", "--match", "1", "--pattern", "x", "--timeout", "soon")
		s.wantCode(1, []string{"invalid regex"}, "wait", "--match", "1", "--pattern", "(")
	})
}

// TestWatch runs `paneflow watch` in the background, lets a pane print and
// reads surface_changed frames for the watched pane only.
func TestWatch(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.command("exec sleep 1000", "--name", "silent")
	tick := s.command(ticker, "--name", "ticking")
	w := s.startWatch("--surface", "ticking", "--type", "surface_changed")
	if ack := w.next(); ack["type"] != "subscribed" {
		t.Fatalf("watch: first frame %v, want {type:subscribed}", ack)
	}
	// Output in another pane must not reach this filtered stream.
	s.command("echo noise; exec sleep 1000")
	for n := 0; n < 3; {
		f := w.next()
		if f["type"] == "heartbeat" {
			continue
		}
		if f["type"] != "surface_changed" || f["surface_id"] != float64(tick) {
			t.Fatalf("watch --surface ticking --type surface_changed: got frame %v, want surface_changed of %d only", f, tick)
		}
		if g, ok := f["output_generation"].(float64); !ok || g == 0 {
			t.Errorf("surface_changed frame %v lacks an output_generation", f)
		}
		n++
	}
	w.interrupt()

	s.wantCode(1, []string{"unknown event type: bogus"}, "watch", "--type", "bogus")
	s.wantCode(3, []string{"no pane matches"}, "watch", "--surface", "nobody")
}

// regexpMatch reports whether s matches the regular expression re.
func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
