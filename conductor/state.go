package conductor

import "github.com/paneflow-go/paneflow/proto"

// State is an agent's wire state (spec conductor.md §2, §4):
// [proto.State].
type State = proto.State

// The wire states. Idle reports a pane with no agent session (a hooked
// session that has not had its first prompt yet is Idle too).
// UnknownRunning is an agent that sends no hooks: one the process scan
// found, or one whose launch shim reported that its hooks cannot run (the
// only session stored in that state, with a reason).
const (
	Idle            = proto.StateIdle
	Thinking        = proto.StateThinking
	WaitingForInput = proto.StateWaitingForInput
	Finished        = proto.StateFinished
	Errored         = proto.StateErrored
	Stalled         = proto.StateStalled
	UnknownRunning  = proto.StateUnknownRunning
)

// salience orders states by how much they need the user, for choosing the
// session a pane reports when it has several: errored > waiting > stalled
// > thinking > finished > the rest.
func salience(s State) int {
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
