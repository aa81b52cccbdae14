package proto

// This file holds checks.*: the check commands (test, lint, build) a
// repository's .paneflow.toml names, run in a worktree by the server once
// the user trusts that file (package review).

// Check states (CheckResult.Status).
const (
	CheckPass    = "pass"
	CheckFail    = "fail"
	CheckRunning = "running"
)

// CheckResult is one check's last run in a worktree.
type CheckResult struct {
	// Name is the check's name in the configuration ("test").
	Name string `json:"name"`
	// Command is what ran (sh -c), as configured.
	Command string `json:"command"`
	// Status is CheckPass, CheckFail or CheckRunning.
	Status string `json:"status"`
	// ExitCode is the command's (absent while it runs, or when it did not
	// exit by itself).
	ExitCode *int `json:"exit_code,omitempty"`
	// TimedOut: the time limit killed it (a fail).
	TimedOut bool `json:"timed_out,omitempty"`
	// StartedAt is when it started (RFC 3339, the server's clock);
	// DurationMS how long it took (0 while it runs).
	StartedAt  string `json:"started_at"`
	DurationMS int64  `json:"duration_ms"`
	// Output is a failing run's output (standard output and error, the
	// last 64 KiB); absent for a pass.
	Output string `json:"output,omitempty"`
	// Trigger is what started it: "run" (checks.run) or "turn_end" (the
	// agent in the worktree finished a turn).
	Trigger string `json:"trigger"`
}

// ChecksParams are checks.run's and checks.status's params.
type ChecksParams struct {
	// Worktree is an absolute directory inside the worktree (required).
	Worktree string `json:"worktree"`
	// Names are the checks to run (nil: all of them; checks.status
	// ignores it).
	Names []string `json:"names,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ChecksParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("worktree", p.Worktree)
	o.strsOmit("names", p.Names)
	return o.close()
}

// ChecksResult is checks.run's result (the runs it made, in the
// configuration's order) and checks.status's (each configured check's
// last run in this worktree since the server started; a check never run
// is absent).
type ChecksResult struct {
	Worktree string `json:"worktree"`
	// Config is the configuration file the checks come from.
	Config string        `json:"config"`
	Checks []CheckResult `json:"checks"`
	// OnTurnEnd: the configuration runs the checks each time the agent
	// working in the worktree finishes a turn.
	OnTurnEnd bool `json:"on_turn_end"`
}
