//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpPrefillNeverSubmits: a spec prompt with line breaks, on shell
// panes (dash, which reads lines; bash, whose readline turns bracketed
// paste on), is typed and not run (issue 25 item 4: it ran as a command,
// with the scripting gate closed). The test opens the gate only to type
// its marker afterwards: once the marker's output shows, anything the
// prefill had submitted would have run before it.
func TestUpPrefillNeverSubmits(t *testing.T) {
	t.Parallel()
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	spec := filepath.Join(s.dir, "prefill.toml")
	const body = `[[panes]]
name = "dash"
command = "PS1='$ ' exec /bin/sh"
prompt = "echo PRE''FILL-RAN\necho SECOND''-RAN\n"

[[panes]]
name = "bash"
command = "PS1='$ ' exec bash --norc --noprofile -i"
prompt = "echo PRE''FILL-RAN\necho SECOND''-RAN\n"
`
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s.mustCLI(nil, "up", spec, "--yes")
	// The keys that empty the typed line: dash's terminal kill character;
	// readline's beginning of line, then kill to the end.
	for _, p := range []struct {
		name  string
		clear []string
	}{{"dash", []string{"ctrl-u"}}, {"bash", []string{"ctrl-a", "ctrl-k"}}} {
		s.waitOutput(p.name, `SECOND''-RAN`)
		for _, k := range p.clear {
			s.mustCLI(nil, "key", p.name, k)
		}
		s.mustCLI(nil, "send", p.name, "echo MARK''ER-DONE", "--submit")
		s.waitOutput(p.name, `(?m)^MARKER-DONE`)
		if text := s.readRaw(p.name); strings.Contains(text, "PREFILL-RAN") || strings.Contains(text, "SECOND-RAN") {
			t.Errorf("pane %s ran the prefilled prompt:\n%s", p.name, text)
		}
	}
}
