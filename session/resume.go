package session

import (
	"path/filepath"
	"strings"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// resumeArgs are the arguments that start each agent CLI again in one of
// its earlier conversations, by the wire tool id (binary name), after the
// binary; each was checked against the pinned CLI (test/agents,
// resume_test.go). An agent missing here cannot be resumed.
var resumeArgs = map[string]func(id string) []string{
	// Claude Code 2.1.332: --resume <session id> (the id of its hooks'
	// session_id, looked up in the project of the working directory).
	"claude": func(id string) []string { return []string{"--resume", id} },
	// Codex 0.169.0: the resume subcommand takes the session id.
	"codex": func(id string) []string { return []string{"resume", id} },
	// Gemini CLI 0.61.0: --resume takes "latest", an index or a session id.
	"gemini": func(id string) []string { return []string{"--resume", id} },
	// opencode 1.18.33: --session <id> continues that session.
	"opencode": func(id string) []string { return []string{"--session", id} },
}

// Resumable reports whether Paneflow knows how to resume the agent whose
// wire tool id is tool.
func Resumable(tool string) bool { return resumeArgs[tool] != nil }

// validSessionID reports whether id can be put on a command line as it
// is: 1 to 128 ASCII letters, digits, '.', '_', ':' or '-' (the agents'
// ids are UUIDs or like "ses_…"); anything else is not resumed.
func validSessionID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '-' {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// Resume is how a restored pane brings back the agent p says it ran,
// given the pane's saved command ("" for a shell): the pane's new command
// (command unchanged when the agent is not resumed this way), the line to
// type into its shell (with the Enter; "" for none), and a notice for its
// screen (CRLF line ends; "" for a pane without an agent).
//
//   - A shell pane gets the agent's resume command typed in and submitted
//     once the shell's output settled (see workspace.Surface.WaitSettled),
//     so the shell is still there when the agent quits.
//   - A pane whose command ran the agent (its first word names the
//     agent's binary) runs "<that word> <resume arguments>" instead; other
//     arguments of the old command are dropped, since one of them may be
//     a prompt the agent would run again.
//   - Otherwise, and for an agent without a session id or that Paneflow
//     cannot resume, the pane starts as saved and its notice says the
//     agent was not resumable, and why.
func Resume(p Pane, command string) (newCommand, typed, notice string) {
	if p.Agent == "" {
		return command, "", ""
	}
	name := p.Agent
	if a, ok := proto.AgentByBinary(p.Agent); ok {
		name = a.Name
	}
	args := resumeArgs[p.Agent]
	notResumable := func(why string) (string, string, string) {
		return command, "", "paneflow: " + name + " was running here and is not resumable: " + why + ".\r\n"
	}
	switch {
	case args == nil:
		return notResumable("Paneflow does not know how to resume it")
	case !validSessionID(p.AgentSession):
		return notResumable("it reported no usable session id (are its hooks installed?)")
	}
	line := strings.Join(args(p.AgentSession), " ")
	notice = "paneflow: resuming " + name + " in its conversation " + p.AgentSession + ".\r\n"
	if command == "" {
		return "", p.Agent + " " + line + "\r", notice
	}
	first, _, _ := strings.Cut(strings.TrimSpace(command), " ")
	if base := filepath.Base(first); base == p.Agent || base == p.Agent+".exe" {
		return first + " " + line, "", notice
	}
	return notResumable("it was started inside `" + command + "`, which Paneflow does not rewrite")
}

// resumeLayout rewrites the first surface definition of each pane of l,
// in depth-first order, to resume its agent as panes (aligned with the
// panes) say, and returns each pane's line to type into its shell and
// notice for its screen.
func resumeLayout(l *workspace.LayoutNode, panes []Pane) (typed, notices []string) {
	if len(panes) == 0 {
		return nil, nil
	}
	typed, notices = make([]string, len(panes)), make([]string, len(panes))
	k := 0
	var walk func(n *workspace.LayoutNode)
	walk = func(n *workspace.LayoutNode) {
		if n.Type != workspace.NodeSplit {
			if k < len(panes) && len(n.Surfaces) > 0 {
				d := &n.Surfaces[0]
				d.Command, typed[k], notices[k] = Resume(panes[k], d.Command)
			}
			k++
			return
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	walk(l)
	return typed, notices
}

// typeWhenSettled types line into s once its output settled (its shell
// printed its prompt), in the background; it gives up when the pane
// closes or its program exits first.
func typeWhenSettled(s *workspace.Surface, line string) {
	go func() {
		if s.WaitSettled(workspace.Settle{}, nil) {
			s.Terminal().SendInput([]byte(line))
		}
	}()
}
