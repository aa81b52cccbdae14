package conductor

// State is an agent's wire state (spec conductor.md §2, §4).
type State string

// The wire states. Idle reports a pane with no agent session (a hooked
// session that has not had its first prompt yet is Idle too).
// UnknownRunning is an agent that sends no hooks: one the process scan
// found, or one whose launch shim reported that its hooks cannot run (the
// only session stored in that state, with a reason).
const (
	Idle            State = "idle"
	Thinking        State = "thinking"
	WaitingForInput State = "waiting_for_input"
	Finished        State = "finished"
	Errored         State = "errored"
	Stalled         State = "stalled"
	UnknownRunning  State = "unknown_running"
)

// salience orders states by how much they need the user, for choosing the
// session a pane reports when it has several: errored > waiting > stalled
// > thinking > finished > the rest.
func (s State) salience() int {
	switch s {
	case Errored:
		return 6
	case WaitingForInput:
		return 5
	case Stalled:
		return 4
	case Thinking:
		return 3
	case Finished:
		return 2
	case Idle:
		return 1
	}
	return 0
}
