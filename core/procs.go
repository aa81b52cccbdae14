package core

import (
	"github.com/paneflow-go/paneflow/conductor"
	"github.com/paneflow-go/paneflow/terminal"
)

// systemProcesses shows the terminal package's process table to the
// conductor, which does not import it: on macOS and Windows that is how
// agents are detected in the panes' process trees (Linux reads /proc).
func systemProcesses() ([]conductor.ProcessInfo, error) {
	entries, err := terminal.ListProcesses()
	if err != nil {
		return nil, err
	}
	out := make([]conductor.ProcessInfo, len(entries))
	for i, e := range entries {
		out[i] = conductor.ProcessInfo{PID: e.PID, PPID: e.PPID, Start: e.Start, Comm: e.Comm, Dead: e.Zombie}
	}
	return out, nil
}
