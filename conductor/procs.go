package conductor

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/proto"
)

// process is what the conductor reads about one process.
type process struct {
	PID  int
	PPID int
	// Start is when the process started, in the system's own unit (clock
	// ticks since boot on Linux); 0 when unknown. Two processes with the
	// same pid and different start times are different processes.
	Start uint64
	Comm  string   // the kernel's name for it (at most 15 bytes on Linux)
	Argv  []string // its command line; nil when unreadable (zombies, kernel threads)
	// Exe is the file the process executes, read only for processes
	// whose name or command line names an agent (see [isShimExe]); ""
	// when not read or unknown.
	Exe string
	// Dead is true for a process that ended and awaits its parent's wait
	// (a zombie): it is no agent any more.
	Dead bool
}

// procTable reads the system's process table. Implementations are safe for
// concurrent use.
type procTable interface {
	// Process reads one process; an error means it does not exist (or
	// cannot be read).
	Process(pid int) (process, error)
	// Descendants returns root and its descendants in breadth-first order,
	// each process once, at most limit of them. An error means root could
	// not be read.
	Descendants(root, limit int) ([]process, error)
}

// maxScanPIDs bounds the processes a scan of one pane reads (spec
// limits.md: ~512 pids per pane root).
const maxScanPIDs = 512

// errNoChildren says that the kernel does not provide
// /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN off), so children
// are found from every process's parent instead.
var errNoChildren = errors.New("conductor: no children files")

// procFS reads a Linux-style /proc tree: <pid>/stat, <pid>/cmdline,
// <pid>/exe and <pid>/task/<tid>/children. Tests give it fake trees.
type procFS struct {
	fsys fs.FS
}

// Process reads pid's stat and cmdline, and its exe when those name an
// agent.
func (p procFS) Process(pid int) (process, error) {
	dir := strconv.Itoa(pid)
	stat, err := fs.ReadFile(p.fsys, dir+"/stat")
	if err != nil {
		return process{}, err
	}
	pr, err := parseStat(stat)
	if err != nil {
		return process{}, err
	}
	if pr.PID != pid {
		return process{}, errors.New("conductor: " + dir + "/stat names pid " + strconv.Itoa(pr.PID))
	}
	if raw, err := fs.ReadFile(p.fsys, dir+"/cmdline"); err == nil {
		pr.Argv = parseCmdline(raw)
	}
	// The exe is read last: a process that exec'd between the reads shows
	// its new name or command line only if its exe is new too (the kernel
	// switches the exe with the memory, before the name), so a shell's
	// child that just became the launch shim never passes for an agent.
	if _, ok := proto.MatchProcess(pr.Comm, pr.Argv); ok && !pr.Dead {
		if exe, err := fs.ReadLink(p.fsys, dir+"/exe"); err == nil {
			pr.Exe = strings.TrimSuffix(exe, " (deleted)")
		}
	}
	return pr, nil
}

// parseStat parses /proc/<pid>/stat: "pid (comm) state ppid … starttime …"
// where comm may itself contain spaces and parentheses, so the fields are
// counted from the last ')'. state is field 3 (Z: zombie, X: dead),
// starttime field 22.
func parseStat(b []byte) (process, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return process{}, errors.New("conductor: malformed stat")
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil || pid <= 0 {
		return process{}, errors.New("conductor: malformed stat pid")
	}
	// Fields after comm: 3 state, 4 ppid, …, 22 starttime.
	rest := strings.Fields(string(b[end+1:]))
	if len(rest) < 20 {
		return process{}, errors.New("conductor: short stat")
	}
	ppid, err := strconv.Atoi(rest[1])
	if err != nil {
		return process{}, errors.New("conductor: malformed stat ppid")
	}
	start, err := strconv.ParseUint(rest[19], 10, 64)
	if err != nil {
		return process{}, errors.New("conductor: malformed stat starttime")
	}
	dead := rest[0] == "Z" || rest[0] == "X" || rest[0] == "x"
	return process{PID: pid, PPID: ppid, Start: start, Comm: string(b[open+1 : end]), Dead: dead}, nil
}

// parseCmdline splits /proc/<pid>/cmdline (NUL-terminated arguments).
func parseCmdline(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	argv := make([]string, len(parts))
	for i, p := range parts {
		argv[i] = string(p)
	}
	return argv
}

// children lists pid's children from the children file of each of its
// threads.
func (p procFS) children(pid int) ([]int, error) {
	dir := strconv.Itoa(pid) + "/task"
	tasks, err := fs.ReadDir(p.fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, t := range tasks {
		raw, err := fs.ReadFile(p.fsys, dir+"/"+t.Name()+"/children")
		if errors.Is(err, fs.ErrNotExist) {
			if t.Name() == strconv.Itoa(pid) {
				return nil, errNoChildren
			}
			continue // the thread ended meanwhile
		}
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(raw)) {
			if c, err := strconv.Atoi(f); err == nil && c > 0 {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// childMap lists every process's children by reading every <pid>/stat:
// the fallback when there are no children files.
func (p procFS) childMap() map[int][]int {
	entries, err := fs.ReadDir(p.fsys, ".")
	if err != nil {
		return nil
	}
	m := make(map[int][]int)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		stat, err := fs.ReadFile(p.fsys, e.Name()+"/stat")
		if err != nil {
			continue
		}
		if pr, err := parseStat(stat); err == nil {
			m[pr.PPID] = append(m[pr.PPID], pid)
		}
	}
	for _, c := range m {
		slices.Sort(c)
	}
	return m
}

// Descendants walks the tree under root breadth first.
func (p procFS) Descendants(root, limit int) ([]process, error) {
	first, err := p.Process(root)
	if err != nil {
		return nil, err
	}
	out := []process{first}
	seen := map[int]bool{root: true}
	var fallback map[int][]int
	for i := 0; i < len(out) && len(out) < limit; i++ {
		var kids []int
		if fallback == nil {
			kids, err = p.children(out[i].PID)
			if errors.Is(err, errNoChildren) {
				fallback = p.childMap()
			}
		}
		if fallback != nil {
			kids = fallback[out[i].PID]
		}
		for _, k := range kids {
			if seen[k] || len(out) >= limit {
				continue
			}
			seen[k] = true
			pr, err := p.Process(k)
			if err != nil || pr.PPID != out[i].PID {
				continue // gone, or the pid was reused meanwhile
			}
			out = append(out, pr)
		}
	}
	return out, nil
}
