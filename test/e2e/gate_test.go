//go:build linux

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestGateOff checks that a server started without PANEFLOW_IPC_SCRIPTING
// refuses send and key with exit 1 and a hint, and reports the gate closed.
func TestGateOff(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	first := s.ls().Surfaces[0].ID
	hint := []string{"writing into panes is disabled", "-32601", "PANEFLOW_IPC_SCRIPTING=1"}
	s.wantCode(1, hint, "send", id(first), "echo hi", "--submit")
	s.wantCode(1, hint, "send", id(first), "x", "--broadcast")
	s.wantCode(1, hint, "key", id(first), "ctrl-c")
	// Selectors are resolved first: a bad target is still exit 3.
	s.wantCode(3, []string{"no pane matches"}, "send", "nobody", "x")

	if got := capabilities(t, s); got {
		t.Errorf("system.capabilities scripting = true on a server without PANEFLOW_IPC_SCRIPTING")
	}
	if text := s.readRaw(id(first)); strings.Contains(text, "echo hi") {
		t.Errorf("a refused send reached the pane:\n%s", text)
	}
}

// capabilities returns system.capabilities' scripting flag.
func capabilities(t *testing.T, s *server) bool {
	t.Helper()
	f := parseFrame(t, s.rpc(`{"jsonrpc":"2.0","id":1,"method":"system.capabilities"}`))
	var c struct {
		Scripting bool     `json:"scripting"`
		Methods   []string `json:"methods"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &c) != nil || len(c.Methods) == 0 {
		t.Fatalf("system.capabilities: got %s", f.raw)
	}
	return c.Scripting
}

// TestGateOn drives a shell through send and key on a server started with
// PANEFLOW_IPC_SCRIPTING=1: typing without and with --submit, waiting for
// the output of a sent command, Ctrl-C interrupting sleep, the refused
// Enter key, a resize the program sees, and watch seeing sent output.
func TestGateOn(t *testing.T) {
	t.Parallel()
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	if !capabilities(t, s) {
		t.Errorf("system.capabilities scripting = false with PANEFLOW_IPC_SCRIPTING=1")
	}
	sh := s.split("v", "--name", "sh")

	t.Run("send", func(t *testing.T) {
		s := s.with(t)
		// The shell's first prompt: text typed before it is echoed by the
		// terminal and then run after the prompt, so ONE-1 would follow
		// "# " on the prompt's line (seen once in CI).
		s.waitOutput("sh", `\S`)
		var res struct {
			Sent      bool    `json:"sent"`
			Length    int     `json:"length"`
			Submitted bool    `json:"submitted"`
			Mode      *string `json:"submit_mode"`
		}
		s.mustCLI(&res, "send", "sh", "echo ONE-$((0+1))")
		if !res.Sent || res.Length != len("echo ONE-$((0+1))") || res.Submitted || res.Mode != nil {
			t.Errorf("send without --submit: got %+v, want sent, length %d, not submitted", res, len("echo ONE-$((0+1))"))
		}
		s.waitOutput("sh", `echo ONE-\$\(\(0\+1\)\)`) // typed, not run
		if text := s.readRaw("sh"); strings.Contains(text, "\nONE-1") {
			t.Fatalf("send without --submit ran the command:\n%s", text)
		}
		s.mustCLI(&res, "send", "sh", "", "--submit")
		if !res.Submitted || res.Mode == nil || *res.Mode != "inline_cr" {
			t.Errorf("send '' --submit: got %+v, want submitted inline_cr", res)
		}
		s.waitOutput("sh", `(?m)^ONE-1$`)
	})

	t.Run("send then wait", func(t *testing.T) {
		s := s.with(t)
		// The wait starts at an unknown moment, so the command is sent
		// until the wait sees its output. The command line echoes as
		// "echo DONE-$((3+4))", which ^DONE-7$ must not match.
		type waited struct {
			r   result
			res waitResult
		}
		done := make(chan waited, 1)
		go func() {
			var w waited
			w.r = runCLI(t, s.clientEnv(), s.dir, "wait", "--match", "sh", "--pattern", `^DONE-7$`, "--timeout", "60")
			if w.r.code == 0 {
				json.Unmarshal([]byte(w.r.stdout), &w.res)
			}
			done <- w
		}()
		var w waited
	loop:
		for {
			s.mustCLI(nil, "send", "sh", "echo DONE-$((3+4))", "--submit")
			select {
			case w = <-done:
				break loop
			case <-time.After(500 * time.Millisecond):
			}
		}
		if w.r.code != 0 {
			t.Fatalf("wait for ^DONE-7$:\n%s", w.r)
		}
		if !w.res.Matched || len(w.res.Matches) != 1 || w.res.Matches[0].SurfaceID != sh {
			t.Fatalf("wait for ^DONE-7$: got %+v, want a match in pane %d", w.res, sh)
		}
		for _, l := range w.res.Matches[0].Lines {
			if l != "DONE-7" {
				t.Errorf("wait matched line %q, want only DONE-7 (the echoed command line must not match)", l)
			}
		}
	})

	t.Run("key", func(t *testing.T) {
		s := s.with(t)
		s.mustCLI(nil, "send", "sh", "sleep 1234", "--submit")
		s.eventually("sleep 1234 to run in the foreground", func() (bool, string) {
			sf, _ := s.surface(sh)
			return sf.Cmd != nil && *sf.Cmd == "sleep 1234", deref(sf.Cmd)
		})
		var res struct {
			Sent bool `json:"sent"`
		}
		s.mustCLI(&res, "key", "sh", "ctrl-c")
		if !res.Sent {
			t.Errorf("key ctrl-c: got %+v, want sent", res)
		}
		s.eventually("ctrl-c to end sleep", func() (bool, string) {
			sf, _ := s.surface(sh)
			return sf.Cmd != nil && !strings.Contains(*sf.Cmd, "sleep"), deref(sf.Cmd)
		})
		// Other named keys are written (to a pane that ignores its input,
		// so the shell's line editor is left alone).
		sink := s.command("exec sleep 1000")
		for _, k := range []string{"escape", "up", "f5", "alt-b", "shift-tab", "pageup"} {
			s.mustCLI(nil, "key", id(sink), k)
		}
		for _, k := range []string{"enter", "ctrl-m", "ctrl-j"} {
			s.wantCode(1, []string{"would submit"}, "key", "sh", k)
		}
		s.wantCode(1, []string{"-32602", "Invalid keystroke"}, "key", "sh", "hyper-q")
	})

	t.Run("resize reaches the program", func(t *testing.T) {
		s := s.with(t)
		s.mustCLI(nil, "resize", "sh", "100x30")
		s.mustCLI(nil, "send", "sh", "stty size", "--submit")
		s.waitOutput("sh", `(?m)^30 100$`)
	})

	t.Run("watch sees sent output", func(t *testing.T) {
		s := s.with(t)
		w := s.startWatch("--surface", "sh")
		if ack := w.next(); ack["type"] != "subscribed" {
			t.Fatalf("watch: first frame %v, want subscribed", ack)
		}
		s.mustCLI(nil, "send", "sh", "echo watched", "--submit")
		for {
			f := w.next()
			if f["type"] == "surface_changed" {
				if f["surface_id"] != float64(sh) {
					t.Errorf("watch --surface sh: frame for another pane: %v", f)
				}
				break
			}
		}
		w.interrupt()
	})

	t.Run("send limits", func(t *testing.T) {
		s := s.with(t)
		s.wantCode(1, []string{"64 KiB"}, "send", "sh", strings.Repeat("x", 64<<10+1))
		s.wantCode(2, []string{"missing <text>"}, "send", "sh")
	})
}
