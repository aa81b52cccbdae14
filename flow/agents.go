package flow

// AgentInfo is a recognised coding agent as a spec's `agent` names it:
// its tag ("claude_code") and the program that launches it.
type AgentInfo struct {
	Tag  string
	Argv []string
}

// Agents lists the recognised agents in a fixed order (a new slice each
// time), for pickers that offer the installed ones.
func Agents() []AgentInfo {
	out := make([]AgentInfo, len(agents))
	for i, a := range agents {
		out[i] = AgentInfo{Tag: a.tag, Argv: append([]string(nil), a.argv...)}
	}
	return out
}

// AgentCommand resolves an agent name as a spec's `agent` does and
// returns the shell command line that launches it; ok is false for an
// unknown agent.
func AgentCommand(name string) (command string, ok bool) {
	argv, ok := agentArgv(name)
	if !ok {
		return "", false
	}
	return shellJoin(argv), true
}
