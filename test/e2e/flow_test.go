//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// flowReport is `paneflow flow run --json`'s report.
type flowReport struct {
	Flow    string  `json:"flow"`
	Status  string  `json:"status"`
	Aborted *string `json:"aborted"`
	Steps   []struct {
		ID        string  `json:"id"`
		Status    string  `json:"status"`
		SurfaceID *uint64 `json:"surface_id"`
		Error     *string `json:"error"`
	} `json:"steps"`
}

func writeSpec(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pipeFlow: impl prints DONE and then echoes what it is sent; two checks
// fan out over foreach items and report PASS; a fake reviewer agent gets
// a prompt built from the captures, submitted; then a send tells impl the
// result, and impl's echo satisfies that step's barrier.
const pipeFlow = `name = "pipe"
[defaults]
timeout_secs = 60

[[step]]
id = "impl"
pane = { command = "echo working; echo 'DONE: built the thing'; exec cat" }
ready = { pattern = "^DONE:" }
capture = { var = "summary", lines = 3 }

[[step]]
id = "check"
needs = ["impl"]
foreach = ["lint", "unit"]
pane = { command = "echo \"PASS $ITEM\"; exec sleep 1000", env = { ITEM = "${item}" } }
ready = { pattern = "^PASS ${item}$" }
capture = { var = "out", lines = 2 }

[[step]]
id = "review"
needs = ["check"]
submit = true
captures = "fenced"
pane = { command = "while read -r l; do echo \"GOT: $l\"; echo REVIEWED; done", prompt = "lint said ${out.lint} and impl said ${summary}" }
ready = { pattern = "^REVIEWED" }

[[step]]
id = "tell"
needs = ["review"]
send = { target = "impl", text = "thanks for ${out.unit}", submit = true }
ready = { pattern = "^thanks for" }
`

func TestFlowRun(t *testing.T) {
	t.Parallel()
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	writeSpec(t, s.dir, "pipe.toml", pipeFlow)

	r := s.mustCLI(nil, "flow", "run", "pipe.toml", "--dry-run")
	if !strings.Contains(r.stdout, "spawn check[unit] (needs impl) \"check-unit\"") || !strings.Contains(r.stdout, "ready     /^PASS unit$/ within 60s") {
		t.Fatalf("dry run:\n%s", r)
	}
	if l := s.ls(); len(l.Surfaces) != 1 {
		t.Fatalf("--dry-run opened panes: %d", len(l.Surfaces))
	}

	var rep flowReport
	r = s.mustCLI(&rep, "flow", "run", "pipe.toml", "--json", "--yes")
	if rep.Status != "ready" || len(rep.Steps) != 5 {
		t.Fatalf("report %+v\n%s", rep, r)
	}
	ids := map[string]uint64{}
	for _, st := range rep.Steps {
		if st.Status != "READY" || st.SurfaceID == nil {
			t.Fatalf("step %s: %s\n%s", st.ID, st.Status, r)
		}
		ids[st.ID] = *st.SurfaceID
	}
	for _, want := range []string{"] impl → RUNNING", "] check[lint] → READY", "] tell → READY"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("no progress line %q on stderr:\n%s", want, r)
		}
	}
	if ids["tell"] != ids["impl"] {
		t.Errorf("tell went to pane %d, impl is %d", ids["tell"], ids["impl"])
	}
	review := s.readRaw(id(ids["review"]))
	for _, want := range []string{"GOT: lint said ", "PASS lint", "DONE: built the thing", "untrusted_terminal_output"} {
		if !strings.Contains(review, want) {
			t.Errorf("the reviewer's pane lacks %q:\n%s", want, review)
		}
	}
	if impl := s.readRaw(id(ids["impl"])); !strings.Contains(impl, "thanks for ") || !strings.Contains(impl, "PASS unit") || strings.Contains(impl, "untrusted_terminal_output") {
		t.Errorf("impl's pane (a program) lacks the send, or got it fenced:\n%s", impl)
	}
	// Every pane is still there: the engine never closes one.
	if l := s.ls(); len(l.Surfaces) != 1+5-1 {
		t.Errorf("want the first pane and the flow's 4 panes, got %d", len(l.Surfaces))
	}
}

// TestFlowGateAndTimeout: a flow that submits is refused (even with
// --dry-run) while the scripting gate is closed; a barrier that never
// matches fails its step with exit 4 and skips its dependents.
func TestFlowGateAndTimeout(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	writeSpec(t, s.dir, "pipe.toml", pipeFlow)
	for _, args := range [][]string{{"flow", "run", "pipe.toml", "--dry-run"}, {"flow", "run", "pipe.toml"}} {
		s.wantCode(1, []string{"this flow submits prompts: relaunch Paneflow with PANEFLOW_IPC_SCRIPTING=1"}, args...)
	}
	if l := s.ls(); len(l.Surfaces) != 1 {
		t.Fatalf("a refused flow opened panes: %d", len(l.Surfaces))
	}

	writeSpec(t, s.dir, "slow.toml", `name = "slow"
[[step]]
id = "a"
pane = { command = "echo NEVER-on-this-line; exec sleep 1000" }
ready = { pattern = "^NEVER$", timeout_secs = 1 }

[[step]]
id = "b"
needs = ["a"]
pane = { command = "echo b" }

[[step]]
id = "c"
pane = { command = "echo ok c; exec sleep 1000" }
ready = { pattern = "ok c", timeout_secs = 60 }
`)
	r := s.cli("flow", "run", "slow.toml", "--json", "--yes")
	if r.code != 4 {
		t.Fatalf("want exit 4:\n%s", r)
	}
	var rep flowReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, r)
	}
	got := map[string]string{}
	for _, st := range rep.Steps {
		got[st.ID] = st.Status
		if st.Error != nil {
			got[st.ID] += ": " + *st.Error
		}
	}
	if got["a"] != "FAILED: timed out after 1s waiting for /^NEVER$/" || got["b"] != "SKIPPED: fail_fast: an earlier step failed" || rep.Status != "failed" {
		t.Fatalf("report %v\n%s", got, r)
	}
	// The human report.
	r = s.cli("flow", "run", "slow.toml", "--yes")
	if r.code != 4 || !strings.Contains(r.stdout, "---\na                        FAILED   timed out after 1s waiting for /^NEVER$/\n") {
		t.Fatalf("human report:\n%s", r)
	}
}

// TestFlowManyBarriers: a flow whose 24 barriers are all waiting at once,
// more than the server's 16 connections: no pane can print its line
// before all 24 panes exist, so every earlier barrier is still waiting
// when the last pane opens. The engine's waits share one concurrent
// connection (ipc.Mux), so none is refused "server busy".
func TestFlowManyBarriers(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	const n = 24
	gate := tempDir(t)
	var items []string
	for i := range n {
		items = append(items, fmt.Sprintf(`"i%02d"`, i))
	}
	spec := fmt.Sprintf(`name = "wide"
[defaults]
timeout_secs = 120

[[step]]
id = "root"
pane = { command = "echo rooted; exec sleep 1000" }
ready = { pattern = "^rooted$" }

[[step]]
id = "fan"
needs = ["root"]
foreach = [%s]
pane = { command = 'touch "$D/up-$ITEM"; while [ "$(ls "$D" | grep -c ^up-)" -lt %d ]; do sleep 0.05; done; echo "GO $ITEM"; exec sleep 1000', env = { D = %q, ITEM = "${item}" } }
ready = { pattern = "^GO ${item}$" }
`, strings.Join(items, ", "), n, gate)
	writeSpec(t, s.dir, "wide.toml", spec)
	var rep flowReport
	r := s.mustCLI(&rep, "flow", "run", "wide.toml", "--json", "--yes")
	if rep.Status != "ready" || len(rep.Steps) != n+1 {
		t.Fatalf("report %+v\n%s", rep, r)
	}
	for _, st := range rep.Steps {
		if st.Status != "READY" {
			t.Errorf("step %s: %s\n%s", st.ID, st.Status, r)
		}
	}
}

// TestFlowLiveProgress runs `paneflow flow run` in a pane, so on a real
// terminal (a pty): the progress is a table redrawn in place, so the
// pane's screen ends with each unit once in it with its final state (and
// once more in the report), and no per-transition lines.
func TestFlowLiveProgress(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	writeSpec(t, s.dir, "live.toml", `name = "live"
[defaults]
timeout_secs = 60

[[step]]
id = "first"
pane = { command = "echo one-done; exec sleep 1000" }
ready = { pattern = "^one-done$" }

[[step]]
id = "fan"
needs = ["first"]
foreach = ["x", "y"]
pane = { command = "echo \"fan-$ITEM\"; exec sleep 1000", env = { ITEM = "${item}" } }
ready = { pattern = "^fan-${item}$" }
`)
	pane := s.command(fmt.Sprintf("cd '%s' && '%s' flow run --yes live.toml; echo flow-exit-$?; exec sleep 1000", s.dir, bin))
	if code := s.waitOutput(id(pane), `flow-exit-(\d+)`); code != "0" {
		t.Fatalf("flow run in a pane exited %s:\n%s", code, s.readRaw(id(pane)))
	}
	text := s.readRaw(id(pane))
	if strings.Contains(text, "→") {
		t.Errorf("per-transition lines on a terminal:\n%s", text)
	}
	for _, u := range []string{"first", "fan[x]", "fan[y]"} {
		if n := len(regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(u)+` +READY`).FindAllString(text, -1)); n != 2 {
			t.Errorf("%s READY appears %d times, want twice (the live table, the report):\n%s", u, n, text)
		}
	}
}

// TestFlowCapturePlainForPrograms: "capture a value, pass it to a
// command": a capture fed to `cat` arrives as the value itself (issue 25
// item 9: it arrived as "got <untrusted_terminal_output …>RESULT-77</…>",
// so this barrier never matched).
func TestFlowCapturePlainForPrograms(t *testing.T) {
	t.Parallel()
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	writeSpec(t, s.dir, "value.toml", `name = "value"
[defaults]
timeout_secs = 60

[[step]]
id = "src"
pane = { command = "echo RESULT-77; exec sleep 1000" }
ready = { pattern = "^RESULT-77$" }
capture = { var = "v", lines = 1 }

[[step]]
id = "sink"
needs = ["src"]
submit = true
pane = { command = "cat", prompt = "got ${v}" }
ready = { pattern = "^got RESULT-77$" }
`)
	r := s.mustCLI(nil, "flow", "run", "value.toml", "--dry-run")
	if !strings.Contains(r.stdout, "captures  plain text") {
		t.Errorf("the plan does not say the capture goes in plain:\n%s", r)
	}
	var rep flowReport
	r = s.mustCLI(&rep, "flow", "run", "value.toml", "--json", "--yes")
	if rep.Status != "ready" {
		t.Fatalf("report %+v\n%s", rep, r)
	}
}
