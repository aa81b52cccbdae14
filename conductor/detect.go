package conductor

import (
	"path"
	"strings"

	"github.com/paneflow-go/paneflow/proto"
)

// detected is an agent found in a pane's process tree.
type detected struct {
	Tool  string
	PID   int
	Start uint64
	// Shim and ShimStart are the launch shim that started the agent (its
	// parent), 0 for an agent started otherwise: its ai.exit says that
	// this agent ended.
	Shim      int
	ShimStart uint64
}

// detect returns the agents among procs (a pane's tree in breadth-first
// order), nearest to the pane's own process first, each tool once.
// Zombies are skipped, and so is Paneflow's launch shim (see isShimExe;
// shimDir is the shim directory, "" when unknown), which runs under the
// agent's name but reports the agent itself.
func detect(procs []process, shimDir string) []detected {
	var out []detected
	var shims map[int]uint64 // pid → start
	for _, p := range procs {
		if p.Dead {
			continue
		}
		if isShimExe(p.Exe, shimDir) {
			if shims == nil {
				shims = map[int]uint64{}
			}
			shims[p.PID] = p.Start
			continue
		}
		tool, ok := proto.MatchProcess(p.Comm, p.Argv)
		if !ok || hasTool(out, tool) {
			continue
		}
		d := detected{Tool: tool, PID: p.PID, Start: p.Start}
		if start, ok := shims[p.PPID]; ok {
			d.Shim, d.ShimStart = p.PPID, start
		}
		out = append(out, d)
	}
	return out
}

// shimBinary is the launch shim's file name (package shim's ShimBinary,
// which the conductor does not import).
const shimBinary = "paneflow-shim"

// isShimExe reports whether exe, a process's executable file, is
// Paneflow's launch shim: the file paneflow-shim (what /proc/<pid>/exe
// shows for a tool entry, a symlink to it), or any file of the shim
// directory shimDir or its teams subdirectory (where Windows has copies
// named after the agents, and macOS reports the path that was run).
//
// The shim stands in for the agent under its name (comm "claude") and
// sends the agent's ai.session_start itself (hooked, or hooked:false and
// why) before it starts the real agent as its child; until then it is no
// agent without hooks, only an agent about to report. The real agent
// appears once that frame was answered (or given up on), so a scan that
// sees it finds its session, and when the frame was lost the agent is
// reported without hooks, as it is. Go's child between fork and exec is
// still the shim's image, so it is skipped too.
func isShimExe(exe, shimDir string) bool {
	if exe == "" {
		return false
	}
	exe = strings.ReplaceAll(exe, `\`, "/")
	dir, base := path.Split(exe)
	if name, _, _ := strings.Cut(strings.ToLower(base), "."); name == shimBinary {
		return true
	}
	if shimDir == "" {
		return false
	}
	shimDir = path.Clean(strings.ReplaceAll(shimDir, `\`, "/"))
	dir = path.Clean(dir)
	return samePath(dir, shimDir) || samePath(dir, shimDir+"/teams")
}

// samePath compares two cleaned slash paths, ignoring case when they are
// Windows paths (a drive letter or a UNC prefix).
func samePath(a, b string) bool {
	if len(a) > 1 && (a[1] == ':' || strings.HasPrefix(a, "//")) {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// hasTool reports whether ds holds tool.
func hasTool(ds []detected, tool string) bool {
	_, ok := findTool(ds, tool)
	return ok
}

// findTool returns the entry of ds for tool.
func findTool(ds []detected, tool string) (detected, bool) {
	for _, d := range ds {
		if d.Tool == tool {
			return d, true
		}
	}
	return detected{}, false
}

// maxAncestorHops bounds the walk from a frame's pid up to a pane's
// process (spec limits.md).
const maxAncestorHops = 32

// ancestorIn walks from pid up its parents, at most maxAncestorHops steps,
// and returns the first pid (pid itself included) for which in reports
// true. It stops at pid 1, at a process that is its own parent, and at a
// process it cannot read.
func ancestorIn(pt procTable, pid int, in func(pid int) bool) (int, bool) {
	if f, ok := pt.(interface{ frozen() procTable }); ok {
		pt = f.frozen() // one process list for the whole walk, not one per hop
	}
	for hop := 0; hop <= maxAncestorHops && pid > 1; hop++ {
		if in(pid) {
			return pid, true
		}
		p, err := pt.Process(pid)
		if err != nil || p.PPID == pid {
			return 0, false
		}
		pid = p.PPID
	}
	return 0, false
}
