package notify

import (
	"fmt"
	"strings"

	"github.com/paneflow-go/paneflow/proto"
)

// Message returns the title and body of the desktop notification an
// agent's state change deserves, and ok false when it deserves none: a
// notification when an agent starts waiting for input (its question is
// the body), finishes a turn (its result), errors or stalls; none for
// thinking, idle or running, nor for a state equal to the previous one
// (a message update, or a state a window read when it attached). pane,
// when not "", names the pane in the text. It is pure and safe for
// concurrent use.
func Message(ev proto.AgentState, pane string) (title, body string, ok bool) {
	if ev.State == ev.Previous {
		return "", "", false
	}
	name := AgentName(ev.Tool)
	where := ""
	if pane != "" {
		where = " in " + pane
	}
	switch proto.State(ev.State) {
	case proto.StateWaitingForInput:
		body = FirstLine(ev.Message, 200)
		if body == "" {
			body = name + " is waiting for you" + where + "."
		}
		return name + " needs input" + where, body, true
	case proto.StateFinished:
		body = FirstLine(ev.LastResult, 200)
		if body == "" {
			body = name + " finished its turn" + where + "."
		}
		return name + " finished" + where, body, true
	case proto.StateErrored:
		body = name + " exited unexpectedly" + where + "."
		if ev.HasExitCode {
			body = fmt.Sprintf("%s exited with code %d%s.", name, ev.ExitCode, where)
		}
		return name + " errored" + where, body, true
	case proto.StateStalled:
		return name + " may be stuck" + where, name + " has been silent for a while" + where + ".", true
	}
	return "", "", false
}

// AgentName is the display name of the agent whose binary is tool
// ("Claude Code" for claude); tool itself when it is not a known agent,
// "Agent" when it is empty.
func AgentName(tool string) string {
	if a, ok := proto.AgentByBinary(tool); ok {
		return a.Name
	}
	if tool == "" {
		return "Agent"
	}
	return tool
}

// FirstLine is s's first non-empty line, trimmed and cut to max runes
// (the last of them an ellipsis when cut).
func FirstLine(s string, max int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > max {
				return string(r[:max-1]) + "…"
			}
			return l
		}
	}
	return ""
}
