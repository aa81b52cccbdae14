package conductor

import (
	"strings"
	"sync"
	"testing"
)

// The permission dialogs as the real tools draw them (screens read from
// panes of `paneflow serve`, trimmed).
var (
	claudeDialog = []string{
		"❯ run the loop please",
		"● Running it.",
		" Bash command",
		" This command requires approval",
		" Do you want to proceed?",
		" ❯ 1. Yes",
		"   2. Yes, and don’t ask again for: node *",
		"   3. Yes, and switch to auto mode · auto mode handles these prompts for you",
		"   4. No",
		" Esc to cancel · Tab to amend",
	}
	claudeDialogOnNo = []string{
		" Do you want to proceed?",
		"   1. Yes",
		"   2. Yes, and don’t ask again for: node *",
		"   3. Yes, and switch to auto mode · auto mode handles these prompts for you",
		" ❯ 4. No",
		" Esc to cancel · Tab to amend",
	}
	codexDialog = []string{
		"› run the loop please",
		"  Would you like to run the following command?",
		"  $ node -e \"console.log(1)\"",
		"› 1. Yes, proceed (y)",
		"  2. Yes, and don't ask again for commands that start with `node -e \"const f=require('fs');const",
		"     t=setInterval(()=>{})\"` (p)",
		"  3. No, and tell Codex what to do differently (esc)",
		"  Press enter to confirm or esc to cancel",
	}
	codexDialogOnNo = []string{
		"  1. Yes, proceed (y)",
		"  2. Yes, and don't ask again for commands that start with `node` (p)",
		"› 3. No, and tell Codex what to do differently (esc)",
	}
	geminiDialog = []string{
		"╭──────────────────────────────────────────────╮",
		"│ ? Shell  poll                                │",
		"│ ╭──────────────────────────────────────────╮ │",
		"│ │ node -e \"const f=require('fs');const     │ │",
		"│ ╰──────────────────────────────────────────╯ │",
		"│ Allow execution of [Shell]?                  │",
		"│                                              │",
		"│ ● 1. Allow once                              │",
		"│   2. Allow for this session                  │",
		"│   3. No, suggest changes (esc)               │",
		"╰──────────────────────────────────────────────╯",
	}
	geminiDialogOnNo = []string{
		"│   1. Allow once                              │",
		"│   2. Allow for this session                  │",
		"│ ● 3. No, suggest changes (esc)               │",
	}
	// A screen whose earlier output holds a numbered list: only the menu
	// at the bottom counts.
	listThenDialog = append([]string{"● Steps:", "  1. Yes, build it", "  2. Deploy"}, claudeDialogOnNo...)
)

func TestApproves(t *testing.T) {
	tests := []struct {
		name   string
		screen []string
		input  string
		want   bool
	}{
		{"claude 1", claudeDialog, "1", true},
		{"claude 2", claudeDialog, "2", true},
		{"claude 3 (yes, auto mode)", claudeDialog, "3", true},
		{"claude 4 (no)", claudeDialog, "4", false},
		{"claude enter on yes", claudeDialog, "\r", true},
		{"claude enter on no", claudeDialogOnNo, "\r", false},
		{"claude esc", claudeDialog, "\x1b", false},
		{"claude down", claudeDialog, "\x1b[B", false},
		{"claude up (app cursor mode)", claudeDialog, "\x1bOA", false},
		{"claude tab", claudeDialog, "\t", false},
		{"claude no such choice", claudeDialog, "7", false},
		{"claude 1 pasted", claudeDialog, "\x1b[200~1\x1b[201~", true},
		{"claude 1 and enter", claudeDialog, "1\r", true},
		{"claude text", claudeDialog, "12", false},
		{"codex y", codexDialog, "y", true},
		{"codex Y", codexDialog, "Y", true},
		{"codex p", codexDialog, "p", true},
		{"codex n", codexDialog, "n", false},
		{"codex 1", codexDialog, "1", true},
		{"codex 3", codexDialog, "3", false},
		{"codex enter on yes", codexDialog, "\r", true},
		{"codex enter on no", codexDialogOnNo, "\r", false},
		{"codex esc", codexDialog, "\x1b", false},
		{"gemini 1", geminiDialog, "1", true},
		{"gemini 2", geminiDialog, "2", true},
		{"gemini 3", geminiDialog, "3", false},
		{"gemini enter on allow", geminiDialog, "\r", true},
		{"gemini enter on no", geminiDialogOnNo, "\r", false},
		{"gemini esc", geminiDialog, "\x1b", false},
		{"list above the menu, enter on no", listThenDialog, "\r", false},
		{"list above the menu, 1", listThenDialog, "1", true},
		{"no menu", []string{"❯ ", "  ⏵⏵ accept edits on"}, "\r", false},
		{"no menu, digit", []string{"$ "}, "1", false},
	}
	for _, tt := range tests {
		k, ok := choiceKey([]byte(tt.input))
		if got := ok && approves(tt.screen, k); got != tt.want {
			t.Errorf("%s: approves = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// fakeScreen is an Options.Screen with one screen per pane.
type fakeScreen struct {
	mu      sync.Mutex
	screens map[uint64][]string
	reads   int
}

func (f *fakeScreen) screen(id uint64) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.screens[id]
}

func (f *fakeScreen) set(id uint64, lines []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.screens[id] = lines
}

// TestAnswerMovesOn: approving a permission prompt in the pane moves the
// waiting agent to thinking with the tool it asked about, at once (the
// real tools fire no hook until the tool has finished); keys that do not
// approve leave it waiting; the next hook goes on from there.
func TestAnswerMovesOn(t *testing.T) {
	scr := &fakeScreen{screens: map[uint64][]string{1: claudeDialog, 2: claudeDialog}}
	h := newHarness(t, Options{Screen: scr.screen})
	runSteps(t, h, []string{"start", "prompt", "tool Bash", "notify Claude needs your permission"})
	h.drain()

	for _, in := range []string{"\x1b[B", "\x1b[A", "\x1b", "x", "4", "hello\r"} {
		h.c.Input(1, []byte(in))
		if st := h.status(1); st.State != WaitingForInput {
			t.Fatalf("after %q the state is %s, want still waiting_for_input", in, st.State)
		}
	}
	h.c.Input(2, []byte("1")) // another pane's answer
	if st := h.status(1); st.State != WaitingForInput {
		t.Fatalf("input to pane 2 moved pane 1 to %s", st.State)
	}
	scr.set(1, claudeDialogOnNo)
	h.c.Input(1, []byte("\r")) // Enter on "No": Claude waits for what to do instead
	if st := h.status(1); st.State != WaitingForInput {
		t.Fatalf("Enter on No: state %s, want waiting_for_input", st.State)
	}
	if got := h.states(); len(got) != 0 {
		t.Fatalf("keys that approve nothing published %q", got)
	}

	scr.set(1, claudeDialog)
	h.c.Input(1, []byte("\r"))
	st := h.status(1)
	if st.State != Thinking || str(st.ActiveToolName) != "Bash" || st.Message != nil {
		t.Fatalf("after Enter on Yes: %+v, want thinking with Bash, no message", st)
	}
	if got, want := h.states(), []string{"1:claude:waiting_for_input>thinking"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state = %q, want %q", got, want)
	}
	// A second Enter (to the running command, or the agent's prompt)
	// changes nothing: nobody is waiting.
	h.c.Input(1, []byte("\r"))
	if got := h.states(); len(got) != 0 {
		t.Errorf("a second Enter published %q", got)
	}
	// PostToolUse, then Stop: as before.
	runSteps(t, h, []string{"tool Bash", "stop done"})
	if st := h.status(1); st.State != Finished || str(st.LastResult) != "done" {
		t.Errorf("after Stop: %+v", st)
	}
}

// TestAnswerOnlyPermissionPrompts: input answers only a question about a
// tool (a Notification after PreToolUse), not an agent that waits
// otherwise, and nothing reads the screen for keys that pick nothing.
func TestAnswerOnlyPermissionPrompts(t *testing.T) {
	scr := &fakeScreen{screens: map[uint64][]string{1: claudeDialog}}
	h := newHarness(t, Options{Screen: scr.screen})
	runSteps(t, h, []string{"start", "notify Pick one"})
	h.c.Input(1, []byte("1"))
	if st := h.status(1); st.State != WaitingForInput {
		t.Errorf("a question with no tool: state %s after 1, want waiting_for_input", st.State)
	}
	scr.mu.Lock()
	scr.reads = 0
	scr.mu.Unlock()
	for _, in := range []string{"hello", "\x1b[B", "\x1b"} {
		h.c.Input(1, []byte(in))
	}
	h.c.Input(3, []byte("1")) // no agent there
	scr.mu.Lock()
	defer scr.mu.Unlock()
	if scr.reads != 0 {
		t.Errorf("the screen was read %d times for input that answers nothing", scr.reads)
	}
}

// TestAnswerRepeatedQuestion: the same permission question twice (Codex
// may send PermissionRequest and a notification) still remembers the
// tool; a fresh question without a tool forgets it.
func TestAnswerRepeatedQuestion(t *testing.T) {
	scr := &fakeScreen{screens: map[uint64][]string{1: codexDialog}}
	h := newHarness(t, Options{Screen: scr.screen})
	runSteps(t, h, []string{"start", "prompt", "tool Bash", "notify Run it?", "notify Run it?"})
	h.c.Input(1, []byte("y"))
	if st := h.status(1); st.State != Thinking || str(st.ActiveToolName) != "Bash" {
		t.Errorf("after y: %+v, want thinking with Bash", st)
	}
	runSteps(t, h, []string{"stop ok", "notify Anything else?"})
	h.c.Input(1, []byte("y"))
	if st := h.status(1); st.State != WaitingForInput {
		t.Errorf("a question after Stop answered by y: %s, want waiting_for_input", st.State)
	}
}

// TestAnswerWithoutScreen: with no Options.Screen input changes nothing.
func TestAnswerWithoutScreen(t *testing.T) {
	h := newHarness(t, Options{})
	runSteps(t, h, []string{"start", "prompt", "tool Bash", "notify Allow?"})
	h.c.Input(1, []byte("1"))
	if st := h.status(1); st.State != WaitingForInput {
		t.Errorf("state %s, want waiting_for_input", st.State)
	}
}

// str is *p, or "" for nil.
func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestTurnSeq: surface.status's turn_seq moves only when the agent starts
// a turn by its own hook (a prompt, or a tool call waking it from idle,
// finished or a question), never for our reading of the user's keys, a
// tool call inside a turn, a question or the turn's end.
func TestTurnSeq(t *testing.T) {
	scr := &fakeScreen{screens: map[uint64][]string{1: claudeDialog}}
	h := newHarness(t, Options{Screen: scr.screen})
	seq := func() uint64 { t.Helper(); return h.status(1).TurnSeq }
	runSteps(t, h, []string{"start"})
	if s := seq(); s != 0 {
		t.Fatalf("after session start: turn_seq %d, want 0", s)
	}
	last := uint64(0)
	for _, tc := range []struct {
		steps []string
		moves bool
	}{
		{[]string{"prompt"}, true},
		{[]string{"tool Bash"}, false}, // inside the turn
		{[]string{"notify Claude needs your permission"}, false},
		{nil, false}, // the user's Enter on Yes (below): our inference, not the agent's
		{[]string{"tool Bash"}, false},
		{[]string{"stop done"}, false},
		{[]string{"tool Read"}, true}, // woke a finished agent
		{[]string{"notify Claude needs your permission"}, false},
		{[]string{"tool Read"}, true}, // went on from a question without our seeing an approval
		{[]string{"+2m"}, false},      // stalled
		{[]string{"tool Read"}, false},
		{[]string{"prompt"}, true},
		{[]string{"prompt"}, true}, // a queued prompt submitted mid-turn
	} {
		if tc.steps == nil {
			h.c.Input(1, []byte("\r"))
			if st := h.status(1); st.State != Thinking {
				t.Fatalf("the approval did not move the agent to thinking: %+v", st)
			}
		}
		runSteps(t, h, tc.steps)
		s := seq()
		if tc.moves && s <= last || !tc.moves && s != last {
			t.Errorf("after %q: turn_seq %d (was %d), want it to move: %v", tc.steps, s, last, tc.moves)
		}
		last = s
	}
	// Another pane's turns count apart; a session's end does not lower
	// the pane's value below one seen before for a new turn.
	h.mustSend(MethodPromptSubmit, `{"surface_id":2,"workspace_id":1,"tool":"gemini"}`)
	if s := seq(); s != last {
		t.Errorf("a turn in pane 2 moved pane 1's turn_seq to %d (was %d)", s, last)
	}
	runSteps(t, h, []string{"end", "start", "prompt"})
	if s := seq(); s <= last+1 {
		t.Errorf("a new session's prompt: turn_seq %d, want past %d (pane 2's turn came between)", s, last+1)
	}
}
