package conductor

import (
	"errors"
	"slices"
	"testing"
)

func TestListProcsDescendants(t *testing.T) {
	table := []process{
		{PID: 1, PPID: 0, Comm: "launchd"},
		{PID: 10, PPID: 1, Comm: "zsh"},
		{PID: 30, PPID: 10, Comm: "node"},
		{PID: 20, PPID: 10, Comm: "claude"},
		{PID: 40, PPID: 20, Comm: "git", Dead: true},
		{PID: 50, PPID: 1, Comm: "other"},
		{PID: 60, PPID: 60, Comm: "selfparent"},
	}
	argCalls := 0
	l := listProcs{
		list: func() ([]process, error) { return slices.Clone(table), nil },
		args: func(pid int) []string {
			argCalls++
			if pid == 30 {
				return []string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}
			}
			return nil
		},
	}
	got, err := l.Descendants(10, 100)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range got {
		pids = append(pids, p.PID)
	}
	if want := []int{10, 20, 30, 40}; !slices.Equal(pids, want) {
		t.Fatalf("Descendants(10) = %v, want %v (breadth first, children by pid)", pids, want)
	}
	if got[2].Argv == nil || got[3].Argv != nil {
		t.Errorf("argv: node %v, zombie git %v; want node's argv read and the zombie's skipped", got[2].Argv, got[3].Argv)
	}
	if tools := detect(got, ""); len(tools) != 2 || tools[0].Tool != "claude" || tools[1].Tool != "codex" {
		t.Errorf("detect = %+v, want claude then codex (through node's argv)", tools)
	}
	if got, _ := l.Descendants(10, 2); len(got) != 2 {
		t.Errorf("limit 2 gave %d processes", len(got))
	}
	if got, _ := l.Descendants(60, 10); len(got) != 1 {
		t.Errorf("a process that is its own parent listed %d processes, want itself only", len(got))
	}
	if _, err := l.Descendants(99, 10); !errors.Is(err, errNoProcess) {
		t.Errorf("missing root: err %v", err)
	}
	p, err := l.Process(20)
	if err != nil || p.Comm != "claude" || p.PPID != 10 {
		t.Errorf("Process(20) = %+v, %v", p, err)
	}
	if _, err := l.Process(99); !errors.Is(err, errNoProcess) {
		t.Errorf("Process(99) err %v", err)
	}
	// ancestorIn walks up through the same table, reading it once.
	lists := 0
	counted := listProcs{list: func() ([]process, error) { lists++; return slices.Clone(table), nil }}
	if pid, ok := ancestorIn(counted, 40, func(pid int) bool { return pid == 10 }); !ok || pid != 10 {
		t.Errorf("ancestorIn(40) = %d, %v; want the shell 10", pid, ok)
	}
	if lists != 1 {
		t.Errorf("ancestorIn read the process list %d times, want once", lists)
	}
	boom := errors.New("boom")
	bad := listProcs{list: func() ([]process, error) { return nil, boom }}
	if _, err := bad.Descendants(1, 10); !errors.Is(err, boom) {
		t.Errorf("list error not returned: %v", err)
	}
}

func TestOptionsProcessesAdapter(t *testing.T) {
	o := Options{Processes: func() ([]ProcessInfo, error) {
		return []ProcessInfo{{PID: 7, PPID: 1, Start: 99, Comm: "gemini"}, {PID: 8, PPID: 7, Comm: "sh", Dead: true}}, nil
	}}
	l := listProcs{list: o.processes}
	got, err := l.Descendants(7, 10)
	if err != nil || len(got) != 2 || got[0].Start != 99 || got[0].Comm != "gemini" || !got[1].Dead {
		t.Fatalf("Descendants through Options.Processes = %+v, %v", got, err)
	}
	if d := detect(got, ""); len(d) != 1 || d[0].Tool != "gemini" || d[0].Start != 99 {
		t.Errorf("detect = %+v", d)
	}
}
