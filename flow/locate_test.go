package flow

import (
	"context"
	"errors"
	"testing"
)

func TestLocate(t *testing.T) {
	ws := `name = "demo"
layout = "tiled"

[[panes]]
command = "sh"

[[panes]]
name = "two"
agent = "nosuch"
cwd = "."
`
	for _, c := range []struct {
		name, spec string
		flow       bool
		resolve    bool
		line       int
		field      string
	}{
		{"unknown agent at resolve", ws, false, true, 9, "agent"},
		{"toml syntax", "name = \"x\"\nlayout = = 1\n[[panes]]\n", false, false, 2, ""},
		{"unknown key", "[[panes]]\ncommand = \"sh\"\ncolour = \"red\"\n", false, false, 3, "colour"},
		{"agent and command", "[[panes]]\ncommand = \"sh\"\n\n[[panes]]\nagent = \"codex\"\ncommand = \"x\"\n", false, false, 5, "agent"},
		{"bad layout", "layout = \"spiral\"\n[[panes]]\ncommand = \"sh\"\n", false, false, 1, "layout"},
		{"missing cwd", "[[panes]]\ncommand = \"sh\"\ncwd = \"/does/not/exist\"\n", false, true, 3, "cwd"},
		{"flow dependency", "[[step]]\nid = \"a\"\npane = { command = \"sh\" }\n\n[[step]]\nid = \"b\"\nneeds = [\"zz\"]\nsend = { target = \"a\", text = \"x\" }\n", true, false, 7, "needs"},
		{"flow ready", "[[step]]\nid = \"a\"\npane = { command = \"sh\" }\n[step.ready]\npattern = \"(\"\ntimeout_secs = 3\n", true, false, 5, "pattern"},
		{"flow duplicate", "[[step]]\nid = \"a\"\npane = { command = \"sh\" }\n\n[[step]]\nid = \"a\"\npane = { command = \"sh\" }\n", true, false, 6, "id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			h := Host{LookPath: func(string) (string, error) { return "", errors.New("no") }, Getwd: func() (string, error) { return t.TempDir(), nil }}
			if c.flow {
				var f *Flow
				if f, err = ParseFlow([]byte(c.spec)); err == nil && c.resolve {
					_, err = ResolveFlow(context.Background(), f, h)
				}
			} else {
				var w *Workspace
				if w, err = ParseWorkspace([]byte(c.spec)); err == nil && c.resolve {
					_, err = ResolveWorkspace(context.Background(), w, h)
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
			got := Locate([]byte(c.spec), err)
			if got.Line != c.line || got.Field != c.field {
				t.Errorf("%v → %+v, want line %d field %q", err, got, c.line, c.field)
			}
		})
	}
	if l := Locate(nil, nil); l != (Location{}) {
		t.Errorf("nil error → %+v", l)
	}
}

func TestAgentsList(t *testing.T) {
	as := Agents()
	if len(as) == 0 || as[0].Tag != "claude_code" || as[0].Argv[0] != "claude" {
		t.Fatalf("Agents() = %v", as)
	}
	as[0].Argv[0] = "changed"
	if Agents()[0].Argv[0] != "claude" {
		t.Fatal("Agents shares its slices")
	}
	if c, ok := AgentCommand("Kiro"); !ok || c != "kiro-cli chat" {
		t.Fatalf("AgentCommand(Kiro) = %q %v", c, ok)
	}
	if _, ok := AgentCommand("nosuch"); ok {
		t.Fatal("an unknown agent resolved")
	}
}
