//go:build linux

package shim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGeminiReader stands for Gemini CLI behind the shim: it copies the
// project's .gemini/settings.json as it finds it (what Gemini would load)
// to $OUT/during, records its pid, waits for $OUT/go-agent and exits 0.
const fakeGeminiReader = `#!/bin/sh
cat .gemini/settings.json > "$OUT/during" 2>/dev/null
echo $$ > "$OUT/agent-pid"
while [ ! -e "$OUT/go-agent" ]; do sleep 0.05; done
exit 0
`

// TestGeminiProjectSettings (issue 25): a launch in a repository whose
// .gemini/settings.json is a symlink to a file of the user's elsewhere
// leaves that file alone, writes no backup into the repository and runs
// the agent unhooked, saying why; a launch in a repository with a plain
// settings.json hooks it for the run and then puts its exact bytes back,
// again with no backup left in the repository.
func TestGeminiProjectSettings(t *testing.T) {
	e := start(t)
	if err := os.WriteFile(filepath.Join(e.dir, "fake", "gemini"), []byte(fakeGeminiReader), 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(e.dir, "victim.json")
	const secret = "{\"token\": \"s3cret\"}\n"
	user := "{ \"theme\" :\t\"GitHub\" }  \n"
	if err := os.WriteFile(victim, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		prepare func(settings string) error
	}{
		{"symlink", func(p string) error { return os.Symlink(victim, p) }},
		{"plain", func(p string) error { return os.WriteFile(p, []byte(user), 0o644) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := filepath.Join(e.dir, "repo-"+tc.name)
			out := filepath.Join(e.dir, "out-"+tc.name)
			settings := filepath.Join(project, ".gemini", "settings.json")
			os.MkdirAll(filepath.Dir(settings), 0o755)
			os.MkdirAll(out, 0o755)
			if err := tc.prepare(settings); err != nil {
				t.Fatal(err)
			}
			script := fmt.Sprintf("cd %s && gemini; sleep 600", project)
			if _, err := e.cli("new", "--command", script, "--env", "OUT="+out, "--env", "GEMINI_CLI_TRUST_WORKSPACE=true"); err != nil {
				t.Fatal(err)
			}
			e.waitFor("the agent's start", func() bool {
				b, _ := os.ReadFile(filepath.Join(out, "agent-pid"))
				return len(b) > 0
			})
			var row map[string]any
			e.waitFor("gemini in ps", func() bool {
				row = e.agentRows()["gemini"]
				return row != nil && row["hooked"] != nil
			})
			during, _ := os.ReadFile(filepath.Join(out, "during"))
			if tc.name == "symlink" {
				reason, _ := row["reason"].(string)
				if row["hooked"] != false || !strings.Contains(reason, "symlink") {
					t.Errorf("gemini row = %v; want hooked false and a reason naming the symlink", row)
				}
				if string(during) != secret {
					t.Errorf("the agent saw %q; want the file untouched", during)
				}
			} else if row["hooked"] != true || !strings.Contains(string(during), "paneflow-ai-hook") {
				t.Errorf("gemini row = %v, settings during the run %q; want hooked", row, during)
			}
			os.WriteFile(filepath.Join(out, "go-agent"), nil, 0o644)
			e.waitFor("gemini gone from ps", func() bool {
				rows := e.agentRows()
				return rows != nil && rows["gemini"] == nil
			})
			if got, _ := os.ReadFile(victim); string(got) != secret {
				t.Errorf("the file outside the repository = %q; want %q", got, secret)
			}
			entries, _ := os.ReadDir(filepath.Dir(settings))
			if len(entries) != 1 {
				t.Errorf("the repository's .gemini holds %v; want settings.json alone (no backup)", entries)
			}
			if tc.name == "plain" {
				if got, _ := os.ReadFile(settings); string(got) != user {
					t.Errorf("settings.json after the run = %q; want the exact bytes %q", got, user)
				}
			}
		})
	}
}
