package conductor

// The agents the conductor recognizes, their display order (of fleet.list
// rows within a workspace) and how a process is matched to one are the
// known agents' table of package proto ([proto.Agents],
// [proto.AgentRank], [proto.MatchProcess]).

// defaultTool is the tool of a frame that names none: Claude Code, whose
// persistent hooks run without the launch shim (spec conductor.md §3).
const defaultTool = "claude"

// cleanExitCodes are the agent exit codes that mean "the user ended it",
// not a crash: 0, SIGHUP/SIGINT/SIGKILL/SIGTERM deaths (128+n) and
// Windows' STATUS_CONTROL_C_EXIT (spec conductor.md §3).
var cleanExitCodes = map[int]bool{0: true, 129: true, 130: true, 137: true, 143: true, -1073741510: true}

// stateAfterExit is the state an agent exiting with code reaches.
func stateAfterExit(code int) State {
	if cleanExitCodes[code] {
		return Finished
	}
	return Errored
}
