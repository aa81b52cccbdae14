package conductor

import (
	"errors"
	"slices"

	"github.com/paneflow-go/paneflow/proto"
)

// errNoProcess says that a pid is not in the process table.
var errNoProcess = errors.New("conductor: no such process")

// listProcs is a procTable over a whole-system process list, for systems
// without a /proc tree (macOS: sysctl kern.proc.all; Windows: a Toolhelp
// snapshot). Each call takes a fresh list, so a scan sees one consistent
// picture of the system, and the parent links all come from that picture.
//
// The zero value is not usable; list must be set. It is safe for
// concurrent use when list and args are.
type listProcs struct {
	// list reads every process (Argv may be nil: args fills it for the
	// processes a caller looks at).
	list func() ([]process, error)
	// args reads one process's command line; nil or a nil result leaves
	// Argv empty.
	args func(pid int) []string
	// exe reads one process's executable path, for the processes that
	// look like agents (to tell the launch shim from them); nil or ""
	// leaves Exe empty.
	exe func(pid int) string
}

// withArgs fills p.Argv when it is missing and the process is alive, and
// p.Exe when the process looks like an agent.
func (l listProcs) withArgs(p process) process {
	if p.Dead {
		return p
	}
	if p.Argv == nil && l.args != nil {
		p.Argv = l.args(p.PID)
	}
	if _, ok := proto.MatchProcess(p.Comm, p.Argv); ok && p.Exe == "" && l.exe != nil {
		p.Exe = l.exe(p.PID)
	}
	return p
}

// frozen returns a table over one reading of the process list, for walks
// that look up many processes (ancestorIn); on error it returns l.
func (l listProcs) frozen() procTable {
	all, err := l.list()
	if err != nil {
		return l
	}
	return listProcs{list: func() ([]process, error) { return all, nil }, args: l.args, exe: l.exe}
}

// Process finds pid in a fresh list.
func (l listProcs) Process(pid int) (process, error) {
	all, err := l.list()
	if err != nil {
		return process{}, err
	}
	for _, p := range all {
		if p.PID == pid {
			return l.withArgs(p), nil
		}
	}
	return process{}, errNoProcess
}

// Descendants walks the tree under root breadth first over one list,
// children in pid order.
func (l listProcs) Descendants(root, limit int) ([]process, error) {
	all, err := l.list()
	if err != nil {
		return nil, err
	}
	byPID := make(map[int]int, len(all))
	kids := make(map[int][]int)
	for i, p := range all {
		byPID[p.PID] = i
		if p.PPID != p.PID {
			kids[p.PPID] = append(kids[p.PPID], p.PID)
		}
	}
	i, ok := byPID[root]
	if !ok {
		return nil, errNoProcess
	}
	out := []process{l.withArgs(all[i])}
	seen := map[int]bool{root: true}
	for n := 0; n < len(out) && len(out) < limit; n++ {
		ks := kids[out[n].PID]
		slices.Sort(ks)
		for _, k := range ks {
			if seen[k] || len(out) >= limit {
				continue
			}
			seen[k] = true
			out = append(out, l.withArgs(all[byPID[k]]))
		}
	}
	return out, nil
}

// ProcessInfo is one process of the system's table, as
// Options.Processes reports it.
type ProcessInfo struct {
	PID, PPID int
	// Start is the process's start time in any unit that orders starts
	// (0 when unknown); equal pids with different starts are different
	// processes.
	Start uint64
	Comm  string // the process's short name, as matched against agent binaries
	Dead  bool   // a zombie
}

// processes adapts Options.Processes to the procTable's rows.
func (o Options) processes() ([]process, error) {
	infos, err := o.Processes()
	if err != nil {
		return nil, err
	}
	out := make([]process, len(infos))
	for i, p := range infos {
		out[i] = process{PID: p.PID, PPID: p.PPID, Start: p.Start, Comm: p.Comm, Dead: p.Dead}
	}
	return out, nil
}
