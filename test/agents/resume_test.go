//go:build linux

package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/session"
	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
	"github.com/paneflow-go/paneflow/test/internal/servetest"
)

// resumeCase is how one agent CLI's TUI is set up, started in pane 1's
// shell and waited for until it takes a prompt.
type resumeCase struct {
	tool    string
	name    string // as the pane's notice names it
	start   string // the command line typed into the shell
	options func(m *fakemodel.Server) options
	// ready waits until the TUI takes a prompt; since is where in
	// e.events the events of this start begin (0 at the first start, >0
	// once restored).
	ready func(e *env, since int)
	// submit types a prompt and presses Enter; nil is submitPrompt.
	submit func(e *env, prompt string)
	// question is the resumed turn's prompt ("": "what was the word?";
	// Gemini's input box takes a typed "?" for its shortcuts panel).
	question string
	// history: the resumed TUI takes a prompt only once it shows the
	// earlier conversation.
	history bool
}

// sessionFile returns the session file of the env's server (there is one
// per socket in the state directory).
func (e *env) sessionFile() string {
	e.t.Helper()
	var files []string
	e.waitFor("the session file", func() bool {
		files, _ = filepath.Glob(filepath.Join(e.home, ".local", "state", "paneflow", "session*.json"))
		return len(files) == 1
	})
	return files[0]
}

// savedAgent waits until the session file records an agent of tool in
// pane 1 (the first workspace's first pane) with its session id, and
// returns the id.
func (e *env) savedAgent(tool string) string {
	e.t.Helper()
	path := e.sessionFile()
	var id string
	e.waitFor("the session file to record the "+tool+" session", func() bool {
		b, err := os.ReadFile(path)
		var s session.Session
		if err != nil || json.Unmarshal(b, &s) != nil || len(s.Workspaces) == 0 || len(s.Workspaces[0].Panes) == 0 {
			return false
		}
		p := s.Workspaces[0].Panes[0]
		id = p.AgentSession
		return p.Agent == tool && id != ""
	})
	return id
}

// killServe ends `paneflow serve` with SIGKILL, or SIGTERM when kill is
// false, and waits until it and the agent (the shim of pid) are gone.
func (e *env) killServe(kill bool, pid int) {
	e.t.Helper()
	e.watch.Terminate(10 * time.Second)
	if kill {
		if err := e.serve.Cmd.Process.Kill(); err != nil {
			e.t.Fatal(err)
		}
		<-e.serve.Exited()
	} else {
		e.serve.StopOrFail(e.t, "paneflow serve", servetest.StopTimeout)
	}
	e.waitFor("the agent's shim to end with its pane", func() bool { return syscall.Kill(pid, 0) != nil })
}

// testResume runs a turn of c's agent in pane 1, kills (or with kill
// false, stops) `paneflow serve`, starts it again, and checks that the
// restored pane resumed the agent in its own conversation: the agent's
// next request to the model carries the earlier prompt and answer.
func testResume(t *testing.T, c resumeCase, kill bool) {
	word := "PINEAPPLE-" + strings.ToUpper(c.tool)
	first := "Noted, the word is " + word + "."
	second := "Earlier you told me " + word + "."
	model := fakemodel.Start(t, fakemodel.Turn{Text: first}, fakemodel.Turn{Text: second})
	model.SetSide("A title")
	e := newEnv(t, model, c.options(model))
	submit := c.submit
	if submit == nil {
		submit = (*env).submitPrompt
	}
	e.typeLine(c.start)
	c.ready(e, 0)
	submit(e, "remember the word "+word)
	st := e.waitStatus("the first turn's end", func(s status) bool { return s.State == "finished" && str(s.LastResult) == first })
	if st.PID == nil {
		t.Fatalf("status %s has no pid", st)
	}
	id := e.savedAgent(c.tool)
	e.killServe(kill, *st.PID)
	since := len(e.events.String())
	e.startServeAgain()

	e.waitScreen("the pane's resume notice", "resuming "+c.name+" in its conversation")
	e.waitScreen("the resume command typed into the shell", id)
	if c.history {
		e.waitScreen("the earlier conversation in the resumed "+c.tool, first)
	}
	c.ready(e, since)
	question := c.question
	if question == "" {
		question = "what was the word?"
	}
	submit(e, question)
	e.waitStatus("the resumed turn's end", func(s status) bool { return s.State == "finished" && str(s.LastResult) == second })
	for _, r := range model.Requests() {
		if r.Turn != 1 {
			continue
		}
		body := string(r.Body)
		if !strings.Contains(body, "remember the word "+word) || !strings.Contains(body, first) {
			t.Errorf("the resumed %s's request lacks the earlier conversation:\n%.3000s", c.tool, body)
		}
		prove(t, c.tool, "resume", "yes")
		return
	}
	t.Errorf("the model got no second turn")
}

// claudeResume is Claude Code 2.1.332 with the shim's per-launch hooks.
var claudeResume = resumeCase{
	tool: "claude", name: "Claude Code", start: "claude",
	options: func(m *fakemodel.Server) options {
		return options{profile: claudeProfile(m), setup: func(e *env) {
			e.write(".claude.json", `{"hasCompletedOnboarding":true,"projects":{"`+e.project+`":{"hasTrustDialogAccepted":true}},`+
				`"customApiKeyResponses":{"approved":["`+claudeKey[len(claudeKey)-20:]+`"],"rejected":[]}}`+"\n")
		}}
	},
	ready: func(e *env, _ int) { e.waitScreen("the Claude Code prompt", "shift+tab to cycle") },
}

// TestResumeClaude: Claude Code comes back with --resume <session id>
// after `paneflow serve` was killed with SIGKILL.
func TestResumeClaude(t *testing.T) {
	t.Parallel()
	testResume(t, claudeResume, true)
}

// TestResumeClaudeSIGTERM: the same after a clean stop.
func TestResumeClaudeSIGTERM(t *testing.T) {
	t.Parallel()
	testResume(t, claudeResume, false)
}

// TestResumeCodex: the Codex TUI comes back with `codex resume <id>`.
func TestResumeCodex(t *testing.T) {
	t.Parallel()
	testResume(t, resumeCase{
		tool: "codex", name: "Codex", start: "codex",
		options: func(m *fakemodel.Server) options {
			return options{setup: func(e *env) {
				e.write(".codex/config.toml", "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \""+
					m.URL+"/v1\"\nwire_api = \"responses\"\n\n[projects.\""+e.project+"\"]\ntrust_level = \"trusted\"\n")
			}}
		},
		ready: func(e *env, _ int) { e.waitScreen("the Codex prompt", "fake-model") },
	}, true)
}

// TestResumeOpencode: the opencode TUI comes back with --session <id>
// (the id from the launch shim's plugin); its window title is then
// "OC | <the session's title>" and it shows the session, not the home
// screen's "Ask anything".
func TestResumeOpencode(t *testing.T) {
	t.Parallel()
	testResume(t, resumeCase{
		tool: "opencode", name: "OpenCode", start: "opencode",
		options: func(m *fakemodel.Server) options {
			return options{
				profile: "export OPENCODE_DISABLE_MODELS_FETCH=true OPENCODE_DISABLE_AUTOUPDATE=true npm_config_offline=true\n",
				setup: func(e *env) {
					e.write(".config/opencode/opencode.json", `{"provider":{"fake":{"npm":"@ai-sdk/openai-compatible","options":{"baseURL":"`+m.URL+`/v1","apiKey":"x"},"models":{"fake-model":{"tool_call":true}}}},"model":"fake/fake-model","permission":{"*":"allow"}}`+"\n")
				}}
		},
		ready: func(e *env, since int) {
			if since > 0 { // the session's view: its title, no "Ask anything"
				e.waitFor("the resumed opencode's window title", func() bool {
					return strings.Contains(e.events.String()[since:], `"title":"OC | `)
				})
				return
			}
			e.waitFor("opencode's window title and input box", func() bool {
				out, _ := e.cli("read", "1", "--raw")
				return strings.Contains(e.events.String(), `"title":"OpenCode"`) && strings.Contains(out, "Ask anything")
			})
		},
		history: true,
	}, true)
}

// TestResumeGemini: the Gemini CLI TUI comes back with --resume <id>
// (the session id from its hooks' payloads) and takes a prompt in its
// earlier conversation.
func TestResumeGemini(t *testing.T) {
	t.Parallel()
	testResume(t, resumeCase{
		tool: "gemini", name: "Gemini", start: "gemini -m gemini-2.5-flash",
		options: func(m *fakemodel.Server) options {
			return options{profile: geminiProfile(m), setup: geminiSetup(true)}
		},
		ready: func(e *env, since int) {
			if since == 0 {
				e.waitScreen("the end of Gemini's start-up", "Authenticated with")
			}
			e.geminiReadySince(since)
			// A resumed Gemini sets its Ready title and draws the earlier
			// conversation while it still shows "Resuming session..." and
			// no input box: keys typed then are lost (why this test once
			// saw no prompt echoed).
			e.waitFor("Gemini's input box", func() bool {
				out, _ := e.cli("read", "1")
				return strings.Contains(out, "Type your message") && !strings.Contains(out, "Resuming session")
			})
		},
		submit:   func(e *env, prompt string) { e.geminiType(prompt) },
		question: "what was the word, please",
		history:  true,
	}, true)
}
