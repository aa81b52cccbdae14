package flow

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestParseFlowErrors(t *testing.T) {
	root := "[[step]]\nid = \"a\"\npane = { command = \"x\" }\n"
	for _, c := range []struct{ name, in, want string }{
		{"no steps", `name = "x"`, "flow has no [[step]]"},
		{"unknown key", root + "[[step]]\nid = \"b\"\nneeds = [\"a\"]\npane = { command = \"x\", cmd = \"y\" }\n", "line 7: unknown key `step.pane.cmd`"},
		{"unknown defaults key", "[defaults]\ntimeout = 3\n" + root, "line 2: unknown key `defaults.timeout`"},
		{"empty id", "[[step]]\npane = {}\n", "a [[step]] has an empty `id`"},
		{"brackets", "[[step]]\nid = \"a[1]\"\npane = {}\n", "step 'a[1]': `id` must not contain brackets"},
		{"duplicate id", root + root, "duplicate step id 'a'"},
		{"on_failure", "[defaults]\non_failure = \"stop\"\n" + root, "defaults.on_failure must be \"fail_fast\" or \"continue\", got 'stop'"},
		{"capture var", root + "ready = { pattern = \"x\", timeout_secs = 1 }\ncapture = { var = \"a-b\", lines = 3 }\n", "step 'a': capture var 'a-b' must be [A-Za-z0-9_]+"},
		{"capture lines", root + "ready = { pattern = \"x\", timeout_secs = 1 }\ncapture = { var = \"v\", lines = 501 }\n", "step 'a': capture.lines must be 1..=500"},
		{"capture without ready", root + "capture = { var = \"v\", lines = 3 }\n", "step 'a': `capture` requires `ready` (captured at match time)"},
		{"capture twice", "[defaults]\ntimeout_secs = 5\n" + root + "ready = { pattern = \"x\" }\ncapture = { var = \"v\", lines = 3 }\n[[step]]\nid = \"b\"\npane = {}\nready = { pattern = \"x\" }\ncapture = { var = \"v\", lines = 3 }\n", "capture var 'v' declared by both 'a' and 'b'"},
		{"pane and send", "[[step]]\nid = \"a\"\npane = {}\nsend = { target = \"x\", text = \"y\" }\n", "step 'a': set either `pane` or `send`, not both"},
		{"neither", "[[step]]\nid = \"a\"\n", "step 'a': needs a `pane` or a `send`"},
		{"self", "[[step]]\nid = \"a\"\nneeds = [\"a\"]\npane = {}\n", "step 'a': depends on itself"},
		{"unknown need", root + "[[step]]\nid = \"b\"\nneeds = [\"c\"]\npane = {}\n", "step 'b': unknown dependency 'c' (known: a, b)"},
		{"empty pattern", root + "ready = { pattern = \"\", timeout_secs = 1 }\n", "step 'a': ready.pattern is empty"},
		{"bad pattern", root + "ready = { pattern = \"(\", timeout_secs = 1 }\n", "step 'a': invalid ready.pattern: missing closing ): `(?m)(`"},
		{"no timeout", root + "ready = { pattern = \"x\" }\n", "step 'a': `ready` needs `timeout_secs` (own or [defaults])"},
		{"empty foreach", root + "[[step]]\nid = \"b\"\nforeach = []\npane = {}\n", "step 'b': `foreach` is empty"},
		{"dup item", root + "[[step]]\nid = \"b\"\nforeach = [\"x\", \"x\"]\npane = {}\n", "step 'b': duplicate foreach item 'x'"},
		{"pane rule", "[[step]]\nid = \"a\"\npane = { agent = \"codex\", command = \"x\" }\n", "step 'a': set either `agent` or `command`, not both"},
		{"pane worktree rule", "[[step]]\nid = \"a\"\npane = { worktree = \"b\" }\n", "step 'a': `worktree` requires `cwd` (to locate the git repository)"},
		{"empty target", root + "[[step]]\nid = \"s\"\nneeds = [\"a\"]\nsend = { target = \"\", text = \"y\" }\n", "step 's': send.target is empty"},
		{"send without needs", root + "[[step]]\nid = \"s\"\nsend = { target = \"a\", text = \"y\" }\n", "step 's': a `send` step needs at least one dependency"},
		{"submit outside send", root + "[[step]]\nid = \"s\"\nneeds = [\"a\"]\nsubmit = true\nsend = { target = \"a\", text = \"y\" }\n", "step 's': put `submit` inside `send` for send steps"},
		{"item outside foreach", "[[step]]\nid = \"a\"\npane = { cwd = \"${item}\" }\n", "step 'a': pane.cwd: `${item}` outside a `foreach` step"},
		{"other token in cwd", "[[step]]\nid = \"a\"\nforeach = [\"x\"]\npane = { cwd = \"${HOME}\" }\n", "step 'a': pane.cwd: only `${item}` is allowed here, got '${HOME}'"},
		{"other token in env", "[[step]]\nid = \"a\"\npane = { env = { P = \"${port}\" } }\n", "step 'a': pane.env.P: only `${item}` or `${port_offset}` is allowed here, got '${port}'"},
		{"unclosed", "[[step]]\nid = \"a\"\npane = { prompt = \"${x\" }\n", "step 'a': pane.prompt: unclosed `${`"},
		{"unknown capture", root + "[[step]]\nid = \"s\"\nneeds = [\"a\"]\nsend = { target = \"a\", text = \"${nope}\" }\n", "step 's': send.text: unknown variable '${nope}' (no step captures 'nope')"},
		{"capture in unsubmitted prompt", root + "ready = { pattern = \"x\", timeout_secs = 1 }\ncapture = { var = \"v\", lines = 3 }\n[[step]]\nid = \"b\"\nneeds = [\"a\"]\npane = { prompt = \"${v}\" }\n", "step 'b': pane.prompt: '${v}' is only substituted in a prompt the step submits (set submit = true)"},
		{"foreach capture plain", "[[step]]\nid = \"a\"\nforeach = [\"x\"]\npane = {}\nready = { pattern = \"x\", timeout_secs = 1 }\ncapture = { var = \"v\", lines = 3 }\n[[step]]\nid = \"s\"\nneeds = [\"a\"]\nsend = { target = \"a-x\", text = \"${v}\" }\n", "step 's': send.text: step 'a' captures 'v' per foreach item; use `${v.<item>}`"},
		{"foreach capture bad item", "[[step]]\nid = \"a\"\nforeach = [\"x\"]\npane = {}\nready = { pattern = \"x\", timeout_secs = 1 }\ncapture = { var = \"v\", lines = 3 }\n[[step]]\nid = \"s\"\nneeds = [\"a\"]\nsend = { target = \"a-x\", text = \"${v.y}\" }\n", "step 's': send.text: 'y' is not a foreach item of step 'a'"},
		{"plain capture dotted", root + "ready = { pattern = \"x\", timeout_secs = 1 }\ncapture = { var = \"v\", lines = 3 }\n[[step]]\nid = \"s\"\nneeds = [\"a\"]\nsend = { target = \"a\", text = \"${v.x}\" }\n", "step 's': send.text: 'v' is not a foreach capture; use `${v}`"},
		{"capture not a dependency", root + "[[step]]\nid = \"b\"\npane = {}\nready = { pattern = \"x\", timeout_secs = 1 }\ncapture = { var = \"v\", lines = 3 }\n[[step]]\nid = \"s\"\nneeds = [\"a\"]\nsend = { target = \"a\", text = \"${v}\" }\n", "step 's': send.text: '${v}' is captured by step 'b', which 's' does not depend on (add it to `needs`)"},
		{"budget", "[[step]]\nid = \"a\"\nforeach = [" + strings.Repeat("\"i\",", 0) + items(33) + "]\npane = {}\n", "flow spawns 33 panes, exceeds MAX_PANES (32)"},
		{"run budget empty", "budget = {}\n" + root, "budget needs `tokens` or `cost`"},
		{"run budget tokens", "budget = { tokens = 0 }\n" + root, "budget.tokens must be positive, got 0"},
		{"step budget cost", root + "budget = { cost = -1.5 }\n", "step 'a': budget.cost must be a positive number of dollars, got -1.5"},
		{"step budget unknown key", root + "budget = { dollars = 3 }\n", "line 4: unknown key `step.budget.dollars`"},
		{"budget in the pane", "[[step]]\nid = \"a\"\npane = { command = \"x\", budget = { tokens = 5 } }\n", "step 'a': put `budget` on the step, not in its `pane`"},
		{"budget on a send", root + "[[step]]\nid = \"s\"\nneeds = [\"a\"]\nsend = { target = \"a\", text = \"y\" }\nbudget = { tokens = 5 }\n", "step 's': a `send` step opens no pane of its own to budget; put `budget` on the step that opens the target, or on the flow"},
		{"budgets", "budget = { cost = 2 }\n" + root + "budget = { tokens = 5, cost = 0.25 }\n", ""},
		{"cycle", root + "[[step]]\nid = \"b\"\nneeds = [\"c\"]\npane = {}\n[[step]]\nid = \"c\"\nneeds = [\"d\"]\npane = {}\n[[step]]\nid = \"d\"\nneeds = [\"b\"]\npane = {}\n", "dependency cycle: b → c → d → b"},
		{"no root", "[[step]]\nid = \"a\"\nneeds = [\"b\"]\npane = {}\n[[step]]\nid = \"b\"\nneeds = [\"a\"]\nsend = { target = \"a\", text = \"x\" }\n", "dependency cycle: a → b → a"},
		{"no pane root", root + "[[step]]\nid = \"b\"\nneeds = [\"a\"]\npane = {}\n", ""},
		{"bootstrap", "[[step]]\nid = \"a\"\nneeds = [\"b\"]\npane = {}\n[[step]]\nid = \"b\"\nneeds = [\"c\"]\npane = {}\n[[step]]\nid = \"c\"\nneeds = [\"a\"]\nsend = { target = \"a\", text = \"x\" }\n", "dependency cycle: a → b → c → a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFlow([]byte(c.in))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// items returns n distinct quoted foreach items.
func items(n int) string {
	var b []string
	for i := range n {
		b = append(b, `"i`+string(rune('a'+i%26))+string(rune('a'+i/26))+`"`)
	}
	return strings.Join(b, ", ")
}

func TestFlowNeedsARoot(t *testing.T) {
	_, err := ParseFlow([]byte("[[step]]\nid = \"a\"\nforeach=[\"x\"]\nneeds = []\nsend = { target = \"a\", text = \"x\" }\n"))
	if err == nil || err.Error() != "step 'a': a `send` step needs at least one dependency" {
		t.Fatal(err)
	}
	_, err = ParseFlow([]byte("[[step]]\nid = \"s\"\nneeds = [\"p\"]\nsend = { target = \"a\", text = \"x\" }\n[[step]]\nid = \"p\"\nneeds = [\"s\"]\npane = {}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "dependency cycle") {
		t.Fatal(err)
	}
}

func TestExpandErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"crafted item", "[[step]]\nid = \"a\"\nforeach = [\"ok\", \"-evil\"]\npane = { cwd = \"repo\", worktree = \"${item}\" }\n", "unit 'a[-evil]': branch '-evil' must not start with '-'"},
		{"pattern after item", "[defaults]\ntimeout_secs = 3\n[[step]]\nid = \"a\"\nforeach = [\"(\"]\npane = {}\nready = { pattern = \"x${item}\" }\n", "unit 'a[(]': ready.pattern invalid after ${item} substitution: missing closing ): `(?m)x(`"},
		{"duplicate pane name", "[[step]]\nid = \"a\"\nforeach = [\"x\", \"y\"]\npane = { name = \"same\" }\n", "duplicate pane name 'same' (unit 'a[y]'); pane names must be unique so `send.target` resolves"},
		{"foreach name clash", "[[step]]\nid = \"a-x\"\npane = {}\n[[step]]\nid = \"a\"\nforeach = [\"x\"]\npane = {}\n", "duplicate pane name 'a-x' (unit 'a[x]'); pane names must be unique so `send.target` resolves"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := ParseFlow([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			h, _ := testHost(t, &fakeWorktrees{})
			_, err = ResolveFlow(context.Background(), f, h)
			if err == nil || err.Error() != c.want {
				t.Fatalf("got  %v\nwant %s", err, c.want)
			}
		})
	}
}

const goldenFlow = `name = "review"
layout = "even_v"

[defaults]
timeout_secs = 600
on_failure = "continue"

[[step]]
id = "impl"
pane = { cwd = "api", agent = "claude", prompt = "implement TASK.md, then print DONE: and a summary" }
ready = { pattern = "^DONE:", timeout_secs = 540 }
capture = { var = "summary", lines = 40 }

[[step]]
id = "test"
foreach = ["unit", "e2e"]
needs = ["impl"]
pane = { cwd = "web", command = "make ${item}", name = "t-${item}", env = { PORT = "${port_offset}" } }
ready = { pattern = "^(PASS|FAIL) ${item}" }
capture = { var = "out", lines = 5 }

[[step]]
id = "review"
needs = ["test"]
submit = true
pane = { cwd = "repo", agent = "codex", worktree = "review/${item}x", prompt = "review: ${summary} / ${out.unit}" }

[[step]]
id = "tell"
needs = ["review", "impl"]
send = { target = "impl", text = "reviewed: ${out.e2e}", submit = true }
`

func TestFlowDryRunGolden(t *testing.T) {
	spec := strings.Replace(goldenFlow, `worktree = "review/${item}x"`, `worktree = "review/x"`, 1)
	f, err := ParseFlow([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	h, dir := testHost(t, &fakeWorktrees{})
	plan, err := ResolveFlow(context.Background(), f, h)
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Submits() {
		t.Fatal("plan does not submit")
	}
	js, _ := jsonIndent(plan)
	var text bytes.Buffer
	plan.WriteText(&text)
	golden(t, "flow-dry-run.json", strings.ReplaceAll(js, dir, "$DIR"))
	golden(t, "flow-dry-run.txt", strings.ReplaceAll(text.String(), dir, "$DIR"))
}

func TestSubstitute(t *testing.T) {
	get := func(k string) (string, bool) {
		switch k {
		case "a":
			return "A", true
		case "big":
			return strings.Repeat("é", SubstitutionCap), true
		}
		return "", false
	}
	if got, err := substitute("x ${a} y", get); err != nil || got != "x A y" {
		t.Fatalf("got %q %v", got, err)
	}
	if _, err := substitute("${b.x}", get); err == nil || err.Error() != "undefined variable ${b.x} (capturing step failed or skipped?)" {
		t.Fatal(err)
	}
	got, _ := substitute("${big}", get)
	if len(got) > SubstitutionCap || !strings.HasSuffix(got, TruncatedMarker) || !strings.HasPrefix(got, "éé") {
		t.Fatalf("cut text: %d bytes, suffix %q", len(got), got[len(got)-20:])
	}
	if s := strings.TrimSuffix(got, TruncatedMarker); !strings.HasSuffix(s, "é") {
		t.Fatal("cut inside a character")
	}
}

func FuzzParseFlow(f *testing.F) {
	f.Add([]byte(goldenFlow))
	f.Add([]byte("[[step]]\nid = \"a\"\nneeds = [\"a\"]\npane = {}\n"))
	f.Add([]byte("[[step]]\nid = \"a\"\nforeach = [\"x\"]\npane = { cwd = \"${item\" }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := ParseFlow(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if _, _, err := fl.expand(); err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}
