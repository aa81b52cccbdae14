package terminal

import "strings"

// ListProcesses reads every process of the system (a ToolHelp snapshot),
// with creation times for the processes this user may open.
func ListProcesses() ([]ProcessEntry, error) {
	procs, err := processSnapshot()
	if err != nil {
		return nil, err
	}
	out := make([]ProcessEntry, 0, len(procs))
	for _, p := range procs {
		e := ProcessEntry{
			PID:  int(p.pid),
			PPID: int(p.ppid),
			Comm: strings.TrimSuffix(strings.ToLower(p.exe), ".exe"),
		}
		if start, ok := creationTime(p.pid); ok {
			e.Start = uint64(start)
		}
		out = append(out, e)
	}
	return out, nil
}

// ProcessArgs returns pid's command line split into arguments, nil when it
// cannot be read.
func ProcessArgs(pid int) []string { return commandLineArgs(uint32(pid)) }

// ProcessExe returns the full path of pid's executable image
// (QueryFullProcessImageName), "" when the process cannot be opened.
func ProcessExe(pid int) string { return imagePath(uint32(pid)) }
