package cli

import (
	"bytes"
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paneflow-go/paneflow/proto"
)

func TestVerbHelp(t *testing.T) {
	for _, v := range verbs {
		for _, args := range [][]string{{v.name, "--help"}, {v.name, "-h"}, append(append([]string{v.name}, v.params...), "--help")} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				f := &fakeServer{t: t}
				code, stdout, stderr := runFake(context.Background(), f, args...)
				if code != ExitOK {
					t.Errorf("exit code = %d, want %d (stderr %q)", code, ExitOK, stderr)
				}
				if stdout != v.help() {
					t.Errorf("stdout = %q, want the help text %q", stdout, v.help())
				}
				if stderr != "" || len(f.timeouts) != 0 {
					t.Errorf("stderr %q, %d dials; want none", stderr, len(f.timeouts))
				}
			})
		}
	}
}

func TestHelpTextContents(t *testing.T) {
	for _, v := range verbs {
		t.Run(v.name, func(t *testing.T) {
			h := v.help()
			want := []string{strings.TrimSuffix("Usage: paneflow "+v.name+" "+v.synopsis, " ") + "\n", v.summary, "-h, --help", "Exit codes:"}
			for _, f := range v.flags {
				want = append(want, "--"+f.name, f.usage)
			}
			for _, a := range v.aliases {
				want = append(want, a)
			}
			if len(v.params) > 0 && v.params[0] == "<target>" {
				want = append(want, "cwd:PATH")
			}
			for _, w := range want {
				if !strings.Contains(h, w) {
					t.Errorf("help of %s does not contain %q:\n%s", v.name, w, h)
				}
			}
			for _, line := range strings.Split(h, "\n") {
				if len(line) > 120 {
					t.Errorf("help of %s has a line of %d characters: %q", v.name, len(line), line)
				}
			}
		})
	}
}

func TestDispatchErrors(t *testing.T) {
	tests := []struct {
		args       []string
		wantStderr string
	}{
		{nil, "paneflow: no verb given"},
		{[]string{"frobnicate"}, "paneflow: unknown verb 'frobnicate'; see `paneflow --help` for the verb list\n"},
		{[]string{"read", "--lines=5", "--json=maybe", "x"}, "read: flag --json takes no value, or true/false; got 'maybe'"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runFake(context.Background(), &fakeServer{t: t}, tt.args...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, tt.wantStderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and stderr containing %q", tt.args, code, stdout, stderr, ExitUsage, tt.wantStderr)
		}
	}
}

func TestBoolFlagValues(t *testing.T) {
	h := map[string]handlerFunc{"surface.read": answer(map[string]any{"text": "x"})}
	runVerbCases(t, []verbCase{
		{name: "raw=false", args: []string{"read", "claude", "--raw=false"}, handlers: h,
			wantCalls: []string{listCall, `surface.read {"surface_id":2}`}, wantStdout: "x"},
		{name: "raw=true", args: []string{"read", "claude", "--raw=true"}, handlers: h,
			wantCalls: []string{listCall, `surface.read {"fenced":false,"surface_id":2}`}, wantStdout: "x"},
	})
}

func TestVerbsAndIsVerb(t *testing.T) {
	var names, long []string
	for _, v := range Verbs() {
		names = append(names, v.Name)
		names = append(names, v.Aliases...)
		if v.Interruptible {
			long = append(long, v.Name)
		}
	}
	if diff := cmp.Diff([]string{"wait", "watch", "up", "flow"}, long); diff != "" {
		t.Errorf("interruptible verbs differ (-want +got):\n%s", diff)
	}
	want := []string{"ls", "list_panes", "read", "read_pane", "search", "search_pane", "new", "select", "workspace", "split", "focus",
		"resize", "rename", "close", "reopen", "send", "key", "interrupt", "wait", "watch", "ps", "status", "usage", "up", "flow", "trust", "untrust", "history", "replay", "kill-server", "review", "checks", "land", "web"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Verbs() names differ (-want +got):\n%s", diff)
	}
	for _, n := range want {
		if !IsVerb(n) {
			t.Errorf("IsVerb(%q) = false, want true", n)
		}
	}
	for _, n := range []string{"", "help", "serve", "version", "LS"} {
		if IsVerb(n) {
			t.Errorf("IsVerb(%q) = true, want false", n)
		}
	}
}

// TestRunUnreachable drives the exported Run with a real ipc client against
// a socket path where nothing listens.
func TestRunUnreachable(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	env := map[string]string{"PANEFLOW_SOCKET_PATH": sock}
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"ls"}, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	if code != ExitFailure {
		t.Errorf("exit code = %d, want %d", code, ExitFailure)
	}
	if want := "paneflow: paneflow IPC unreachable at " + sock; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to start with %q", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want it empty", stdout.String())
	}
}

func TestSubmitConfirmation(t *testing.T) {
	sentAgent := map[string]any{"sent": true, "length": 2, "submitted": true, "paste": true, "submit_mode": "deferred_paste_cr", "agent_target": true}
	// status answers the given snapshots in turn, repeating the last.
	status := func(states ...map[string]any) handlerFunc {
		i := 0
		return func(map[string]any) (any, error) {
			s := states[min(i, len(states)-1)]
			i++
			return s, nil
		}
	}
	// st is a surface.status answer: state, hooked, output_generation,
	// turn_seq, enter_count, enter_generation.
	st := func(state string, hooked bool, gen, turn, enters, enterGen int) map[string]any {
		return map[string]any{"surface_id": 2, "state": state, "hooked": hooked, "output_generation": gen,
			"turn_seq": turn, "enter_count": enters, "enter_generation": enterGen}
	}
	idle := st("idle", true, 5, 3, 1, 4)
	sendCall := `surface.send_text {"input_wait_ms":30000,"submit":true,"surface_id":2,"text":"go"}`
	statusCall := `surface.status {"surface_id":2}`
	cpuCall := `surface.status {"cpu":true,"surface_id":2}`
	// polls is the calls of n confirmation polls: the CPU demand asked
	// for on the first and then once per proto.BusyWindow.
	polls := func(n int) []string {
		var out []string
		var last time.Duration
		for i := 1; i <= n; i++ {
			at := time.Duration(i) * proto.SubmitPollInterval
			if i == 1 || at-last >= proto.BusyWindow {
				out, last = append(out, cpuCall), at
			} else {
				out = append(out, statusCall)
			}
		}
		return out
	}
	unread := map[string]any{"sent": true, "submitted": true, "agent_target": true, "input_ready": false, "output_generation": 5}
	unreadJSON := "{\n  \"agent_target\": true,\n  \"input_ready\": false,\n  \"output_generation\": 5,\n  \"sent\": true,\n  \"submitted\": true,\n"
	withStartOf := func(head, reason string) string {
		return head + "  \"started\": true,\n  \"start_reason\": \"" + reason + "\"\n}\n"
	}
	withStart := func(reason string) string {
		// the fake server's keys are sorted; the CLI appends its own after them
		return "{\n  \"agent_target\": true,\n  \"length\": 2,\n  \"paste\": true,\n  \"sent\": true,\n  \"submit_mode\": \"deferred_paste_cr\",\n  \"submitted\": true,\n" +
			"  \"started\": true,\n  \"start_reason\": \"" + reason + "\"\n}\n"
	}
	noHookTurn := "paneflow: submit was written to agent pane 2, but no turn start was confirmed within 10000ms (no_hook_turn_start: its hooks reported no new turn)\n"
	noOutput := "submit was written to agent pane 2, but no turn start was confirmed within 3000ms (no_output_after_enter: it printed nothing after the Enter)"
	tests := []verbCase{
		{name: "a hooked agent's turn start", args: []string{"send", "claude", "go", "--submit"},
			handlers:   map[string]handlerFunc{"surface.send_text": answer(sentAgent), "surface.status": status(idle, idle, st("thinking", true, 9, 4, 2, 7))},
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(2)...),
			wantStdout: withStart("hook_turn_started")},
		{name: "a turn that started and ended between two polls", args: []string{"send", "claude", "go", "--submit"},
			handlers:   map[string]handlerFunc{"surface.send_text": answer(sentAgent), "surface.status": status(st("finished", true, 5, 3, 1, 4), st("finished", true, 9, 4, 2, 7))},
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(1)...),
			wantStdout: withStart("hook_turn_started")},
		{name: "a hooked agent's output and state are no turn start", args: []string{"send", "claude", "go", "--submit"},
			// Gemini CLI took the Enter for a newline: it redrew its
			// input box (output after the Enter) and started nothing; a
			// question answered by our reading of a key is no start either.
			handlers: map[string]handlerFunc{"surface.send_text": answer(sentAgent),
				"surface.status": status(idle, st("idle", true, 9, 3, 2, 7), st("thinking", true, 12, 3, 2, 7))},
			wantCode: ExitFailure,
			// 10 s from its last output (the second poll's): 169 polls.
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(169)...),
			wantStderr: noHookTurn},
		{name: "a hooked agent still redrawing is waited for", args: []string{"send", "claude", "go", "--submit"},
			// opencode at load 26: its input box cleared 6.5 s after the
			// Enter (poll 109), its hook spoke at 11 s (poll 184): within
			// 10 s of its last output, so a start.
			handlers: map[string]handlerFunc{"surface.send_text": answer(sentAgent),
				"surface.status": status(append(append(append([]map[string]any{idle}, repeatStatus(idle, 108)...),
					repeatStatus(st("idle", true, 9, 3, 2, 7), 75)...), st("thinking", true, 9, 4, 2, 7))...)},
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(184)...),
			wantStdout: withStart("hook_turn_started")},
		{name: "a hooked agent busy without printing is waited for", args: []string{"send", "claude", "go", "--submit"},
			// opencode held to 15 % of a CPU: silent for 15 s after the
			// Enter, its processes at a full CPU's demand (run plus run
			// queue), its hook at poll 251: a start.
			handlers: map[string]handlerFunc{"surface.send_text": answer(sentAgent),
				"surface.status": status(append(append([]map[string]any{idle}, busyStatus(idle, 250)...), st("thinking", true, 9, 4, 2, 7))...)},
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(251)...),
			wantStdout: withStart("hook_turn_started")},
		{name: "a hooked agent idle at a little CPU is no start", args: []string{"send", "claude", "go", "--submit"},
			// 6 ms a poll: a tenth of a CPU, a TUI's timers.
			handlers: map[string]handlerFunc{"surface.send_text": answer(sentAgent),
				"surface.status": status(append([]map[string]any{idle}, busyStatusAt(idle, 400, 6)...)...)},
			wantCode:   ExitFailure,
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(167)...),
			wantStderr: noHookTurn},
		{name: "output after the Enter, without hooks", args: []string{"send", "claude", "go", "--submit"},
			// the echo of the text (7), the Enter at 7, then the answer
			handlers: map[string]handlerFunc{"surface.send_text": answer(sentAgent),
				"surface.status": status(st("unknown_running", false, 5, 0, 1, 4), st("unknown_running", false, 7, 0, 1, 4), st("unknown_running", false, 7, 0, 2, 7), st("unknown_running", false, 8, 0, 2, 7))},
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(3)...),
			wantStdout: withStart("output_after_enter")},
		{name: "the echo of the text is no start", args: []string{"send", "claude", "go", "--submit"},
			handlers: map[string]handlerFunc{"surface.send_text": answer(sentAgent),
				"surface.status": status(st("unknown_running", false, 5, 0, 1, 4), st("unknown_running", false, 7, 0, 1, 4), st("unknown_running", false, 9, 0, 2, 9))},
			wantCode:   ExitFailure,
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(52)...), // 3 s from the last output (poll 2)
			wantStderr: "paneflow: " + noOutput + "\n"},
		{name: "output before the Enter came, without hooks", args: []string{"send", "claude", "go", "--submit"},
			handlers: map[string]handlerFunc{"surface.send_text": answer(sentAgent),
				"surface.status": status(st("unknown_running", false, 5, 0, 1, 4), st("unknown_running", false, 30, 0, 1, 4))},
			wantCode:   ExitFailure,
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(51)...), // 3 s from the last output (poll 1)
			wantStderr: "paneflow: " + noOutput + "\n"},
		{name: "a hook that speaks during the wait gives the agent the hooks' time", args: []string{"send", "claude", "go", "--submit"},
			// Unhooked when the text was sent (3 s), hooked at the first
			// poll (10 s): its turn start at the 60th poll (3.6 s) counts.
			handlers: map[string]handlerFunc{"surface.send_text": answer(sentAgent),
				"surface.status": status(append(append([]map[string]any{st("unknown_running", false, 5, 0, 1, 4)},
					repeatStatus(st("idle", true, 9, 0, 2, 7), 59)...), st("thinking", true, 12, 1, 2, 7))...)},
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(60)...),
			wantStdout: withStart("hook_turn_started")},
		{name: "an agent that never reads its input is sent to anyway, with a warning", args: []string{"send", "claude", "go", "--submit"},
			handlers:   map[string]handlerFunc{"surface.send_text": answer(unread), "surface.status": status(idle, st("thinking", true, 9, 4, 2, 7))},
			wantCalls:  append([]string{listCall, statusCall, sendCall}, polls(1)...),
			wantStdout: withStartOf(unreadJSON, "hook_turn_started"),
			wantStderr: "paneflow: warning: the agent in pane 2 had not read its input (bracketed paste still off) after 30s; the text was typed anyway\n"},
		{name: "broadcast records an unconfirmed pane as sent and failed", args: []string{"send", "2", "go", "--submit", "--broadcast"},
			handlers:  map[string]handlerFunc{"surface.send_text": answer(sentAgent), "surface.status": status(st("unknown_running", false, 5, 0, 1, 4))},
			wantCode:  ExitFailure,
			wantCalls: append([]string{listCall, statusCall, sendCall}, polls(50)...),
			wantStdout: "{\n  \"sent\": [\n    2\n  ],\n  \"failed\": [\n    {\n      \"surface_id\": 2,\n" +
				"      \"error\": \"" + strings.ReplaceAll(noOutput, `"`, `\"`) + "\"\n" +
				"    }\n  ],\n  \"submitted\": true\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { checkVerbCase(t, tt) })
		})
	}
}

// busyStatus is n copies of s whose cpu_demand_ms grows by a poll's
// interval each (a full CPU's demand); busyStatusAt by ms a poll.
func busyStatus(s map[string]any, n int) []map[string]any {
	return busyStatusAt(s, n, uint64(proto.SubmitPollInterval.Milliseconds()))
}

func busyStatusAt(s map[string]any, n int, ms uint64) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = maps.Clone(s)
		out[i]["cpu_demand_ms"] = 1000 + uint64(i)*ms
	}
	return out
}

func repeatStatus(s map[string]any, n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestHelp(t *testing.T) {
	for _, name := range []string{"read", "read_pane"} {
		got, ok := Help(name)
		if want := lookupVerb("read").help(); !ok || got != want {
			t.Errorf("Help(%q) = %q, %v; want %q, true", name, got, ok, want)
		}
	}
	if got, ok := Help("serve"); ok || got != "" {
		t.Errorf("Help(\"serve\") = %q, %v; want \"\", false", got, ok)
	}
}

func TestInterruptedVerbIsSilent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeServer{t: t, surfaces: fixture(), handlers: map[string]handlerFunc{"surface.read": func(map[string]any) (any, error) {
		cancel() // Ctrl-C while the call is in flight
		return nil, context.Canceled
	}}}
	code, stdout, stderr := runFake(ctx, f, "read", "claude")
	if code != ExitInterrupted || stdout != "" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and no output", code, stdout, stderr, ExitInterrupted)
	}
}
