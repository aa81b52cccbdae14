//go:build linux

package agents

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// longAnswer is an answer of more lines than a 40-row screen holds, with
// marker on its last line: the screen shows it when the answer is in, and
// the next answer scrolls it away.
func longAnswer(marker string) string {
	var b strings.Builder
	for i := 1; i <= 45; i++ {
		fmt.Fprintf(&b, "- filler line %d of %s\n", i, strings.SplitN(marker, "-", 2)[0])
	}
	b.WriteString("\nAnswer " + marker + " ends.\n")
	return b.String()
}

// TestSearchHistoryClaude (issue 34's proof): the real Claude Code TUI
// answers three turns on its full screen; text it showed only in turn 1,
// long gone from its screen and in no scrollback, is found by `paneflow
// search --all` after turn 3 in a history screen, `paneflow replay
// --screen N` opens that screen with the text on it and names the turn it
// was shown in, and `paneflow history` lists the three turns with their
// prompts and results.
func TestSearchHistoryClaude(t *testing.T) {
	t.Parallel()
	markers := []string{"alpha-7319", "bravo-4406", "charlie-8852"}
	var turns []fakemodel.Turn
	for _, m := range markers {
		turns = append(turns, fakemodel.Turn{Text: longAnswer(m)})
	}
	model := fakemodel.Start(t, turns...)
	e := claudeTUI(t, model)
	for i, m := range markers {
		e.submitPrompt(fmt.Sprintf("tell me about %s please", strings.SplitN(m, "-", 2)[0]))
		e.waitStatus("turn "+strconv.Itoa(i+1)+" finished", func(s status) bool {
			return s.State == "finished" && strings.Contains(str(s.LastResult), m)
		})
		e.waitScreen("turn "+strconv.Itoa(i+1)+"'s last line", "Answer "+m+" ends.")
		// The screen is recorded once it settles (no output for a while):
		// before the next prompt changes it, as a user would have seen it.
		e.waitFor("the screen with turn "+strconv.Itoa(i+1)+"'s answer in the history", func() bool {
			_, screen := e.historyMatch(m)
			return screen != 0
		})
	}
	if out, _ := e.cli("read", "1", "--lines", "1000"); strings.Contains(out, markers[0]) {
		t.Fatalf("turn 1's marker %s is still in the pane's screen or scrollback: the test proves nothing\n%s", markers[0], out)
	}

	// search --all finds it in a history screen.
	out, screen := e.historyMatch(markers[0])
	if screen == 0 {
		t.Fatalf("search --all %s found no history screen of pane 1 showing turn 1's answer:\n%s", markers[0], out)
	}

	// replay opens that screen, with the text on it, in turn 1.
	shown := e.mustCLI("replay", "1", "--screen", strconv.FormatUint(screen, 10))
	header, body, _ := strings.Cut(shown, "\n")
	if !strings.Contains(body, "Answer "+markers[0]+" ends.") {
		t.Errorf("replay --screen %d does not show turn 1's answer:\n%s", screen, shown)
	}
	var hist struct {
		Turns []struct {
			Turn   uint64 `json:"turn"`
			Prompt string `json:"prompt"`
			Result string `json:"result"`
			End    string `json:"end"`
		} `json:"turns"`
	}
	out = e.mustCLI("history", "1", "--json")
	if err := json.Unmarshal([]byte(out), &hist); err != nil {
		t.Fatalf("history: %v\n%s", err, out)
	}
	if len(hist.Turns) != 3 {
		t.Fatalf("history lists %d turns, want 3:\n%s", len(hist.Turns), out)
	}
	for i, tr := range hist.Turns {
		prompt := fmt.Sprintf("tell me about %s please", strings.SplitN(markers[i], "-", 2)[0])
		if tr.End != "stop" || !strings.Contains(tr.Result, markers[i]) || tr.Prompt != prompt {
			t.Errorf("turn %d: %+v; want the prompt %q (from UserPromptSubmit), ended by stop with %s in its result", i+1, tr, prompt, markers[i])
		}
	}
	if want := fmt.Sprintf("turn %d", hist.Turns[0].Turn); !strings.HasSuffix(header, want) {
		t.Errorf("replay's header %q does not name %s, the turn the screen was first shown in", header, want)
	}
	list := e.mustCLI("replay", "1")
	t.Logf("replay 1:\n%s", list)
}

// historyMatch runs `paneflow search --all` for marker and returns its
// output and the first history screen of pane 1 that showed "Answer
// <marker> ends." (0: none).
func (e *env) historyMatch(marker string) (string, uint64) {
	e.t.Helper()
	var found struct {
		Panes []struct {
			SurfaceID uint64 `json:"surface_id"`
			Matches   []struct {
				Source string  `json:"source"`
				Screen *uint64 `json:"screen"`
				Text   string  `json:"text"`
			} `json:"matches"`
		} `json:"panes"`
	}
	out, err := e.cli("search", "--all", "--json", marker)
	if err != nil && !strings.Contains(err.Error(), "exit status 1") {
		e.t.Fatal(err) // exit 1 is "nothing matched"
	}
	if err == nil {
		if err := json.Unmarshal([]byte(out), &found); err != nil {
			e.t.Fatalf("search --all: %v\n%s", err, out)
		}
	}
	for _, p := range found.Panes {
		for _, m := range p.Matches {
			if p.SurfaceID == 1 && m.Source == "history" && m.Screen != nil && strings.Contains(m.Text, "Answer "+marker+" ends.") {
				return out, *m.Screen // the first: later screens may show it too
			}
		}
	}
	return out, 0
}
