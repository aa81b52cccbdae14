//go:build linux

package agents

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
	"github.com/paneflow-go/paneflow/test/internal/webtest"
)

// TestClaudeWeb: the real Claude Code TUI answered from a phone-sized
// browser (`paneflow serve --web`): the prompt typed into the page's
// composer starts a turn, which the page confirms by Claude's hook as
// `paneflow send --submit` does, Claude's permission prompt shows in
// the overview as waiting with Claude's question and on the pane's screen
// with a button per choice; pressing "1. Yes" in the page approves it
// (thinking again), and the turn finishes with its result on the overview.
func TestClaudeWeb(t *testing.T) {
	t.Parallel()
	ctx := webtest.Browser(t)
	hold := make(chan struct{})
	dir := t.TempDir()
	model := fakemodel.Start(t,
		fakemodel.Turn{Text: "Running it.", Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{
			"command": pollLoop(dir, "web"), "description": "print a word"}}}},
		fakemodel.Turn{Text: "Web turn done.", Hold: hold})
	e := claudeTUIServing(t, model, []string{"--web", "127.0.0.1:0"})
	var pair struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(e.mustCLI("web", "pair", "--json")), &pair); err != nil {
		t.Fatal(err)
	}
	webtest.Pair(t, ctx, pair.URL)
	state := func(want string) string {
		return fmt.Sprintf(`(window.paneflowStates()[1] || {}).state === %q`, want)
	}
	webtest.Do(t, ctx, "the pane in the page",
		chromedp.Navigate(webtest.Base(pair.URL)+"#pane/1"),
		webtest.Poll(`window.paneflowRows().some(r => r.includes('accept edits on'))`),
		chromedp.SendKeys(chromedp.CSS("#prompt"), "run the node one-liner please"),
		chromedp.Click(chromedp.CSS("#sendbtn")),
		// The composer confirms the turn start as send --submit does:
		// by Claude's own UserPromptSubmit hook.
		webtest.Poll(`document.getElementById('result').dataset.start === 'hook_turn_started'`),
		webtest.Poll(state("waiting_for_input")),
		webtest.Poll(`[...document.querySelectorAll('#choices button')].some(b => b.textContent.startsWith('1. Yes'))`),
	)
	webtest.Shot(t, ctx, "claude-permission.png")
	if st := e.status(); st.State != "waiting_for_input" || !strings.Contains(str(st.Message), "permission") {
		t.Errorf("after the page's prompt: %s, want waiting with Claude's permission question", st)
	}
	evs := e.agentEvents()
	e.inOrder(evs,
		step("ai.prompt_submit (the composer's prompt)", func(ev event) bool { return ev.Type == "ai.prompt_submit" }),
		step("ai.notification (permission prompt)", func(ev event) bool { return ev.Type == "ai.notification" }),
	)
	status := webtest.Get(t, ctx, "the pane's status line", chromedp.Text(chromedp.CSS("#status")))
	if !strings.Contains(status, "waiting") || !strings.Contains(status, "permission") {
		t.Errorf("the page's status line reads %q, want waiting with Claude's question", status)
	}

	webtest.Do(t, ctx, "pressing Yes in the page",
		chromedp.Click(chromedp.CSS(`#choices button[data-choice="1"]`)),
		webtest.Poll(state("thinking")),
	)
	e.approvedWhileRunning("claude")
	release(t, dir)
	close(hold)
	webtest.Do(t, ctx, "the turn's end",
		webtest.Poll(state("finished")),
		chromedp.Navigate(webtest.Base(pair.URL)),
		webtest.Poll(`[...document.querySelectorAll('#panes .card .res')].some(el => el.textContent.includes('Web turn done.'))`),
	)
	webtest.Shot(t, ctx, "claude-finished.png")
	e.modelGot("from-web")
}
