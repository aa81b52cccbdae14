package terminal

import (
	"errors"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/windows"
)

// maxTreeScan bounds how many processes Foreground visits below the
// program, so a fork bomb in a pane cannot make it slow.
const maxTreeScan = 512

// procEntry is one row of a ToolHelp process snapshot.
type procEntry struct {
	pid, ppid uint32
	exe       string // executable file name, no directory
}

// foreground reports the deepest descendant of the program (Windows has no
// foreground process group). Its Argv is parsed from its command line when
// that can be read, else it is just the executable's file name; Cwd is
// not available. It reads the same whatever fields are asked for, each
// time: without a foreground group to tell a new job, no description is
// reused (r is not used).
func (p *PTY) foreground(_, _ Fields, _ *recentFg, _ uint64) (Process, error) {
	procs, err := processSnapshot()
	if err != nil {
		return Process{}, err
	}
	children := make(map[uint32][]procEntry)
	var root *procEntry
	for i := range procs {
		e := procs[i]
		if e.pid == uint32(p.pid) {
			root = &procs[i]
		}
		if e.pid != e.ppid {
			children[e.ppid] = append(children[e.ppid], e)
		}
	}
	if root == nil {
		return Process{}, os.ErrProcessDone
	}

	// Breadth-first: the last process visited is one of the deepest.
	// ToolHelp reports parent pids that may have been reused since the
	// parent exited, so a "child" created before its parent is skipped.
	deepest := *root
	queue := []procEntry{*root}
	visited := map[uint32]bool{root.pid: true}
	for len(queue) > 0 && len(visited) < maxTreeScan {
		parent := queue[0]
		queue = queue[1:]
		parentStart, parentOK := creationTime(parent.pid)
		for _, c := range children[parent.pid] {
			if visited[c.pid] {
				continue
			}
			if start, ok := creationTime(c.pid); ok && parentOK && start < parentStart {
				continue
			}
			visited[c.pid] = true
			queue = append(queue, c)
			deepest = c
		}
	}

	pr := Process{Pid: int(deepest.pid), Argv: commandLineArgs(deepest.pid)}
	if len(pr.Argv) == 0 {
		pr.Argv = []string{deepest.exe}
	}
	return pr, nil
}

// processSnapshot lists the processes of the system.
func processSnapshot() ([]procEntry, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(snap)
	var procs []procEntry
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		procs = append(procs, procEntry{
			pid:  e.ProcessID,
			ppid: e.ParentProcessID,
			exe:  windows.UTF16ToString(e.ExeFile[:]),
		})
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, err
	}
	return procs, nil
}

// creationTime returns when pid was created, in 100 ns units, if the
// process can be opened.
func creationTime(pid uint32) (int64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, false
	}
	return created.Nanoseconds() / 100, true
}

// commandLineArgs returns the command line of pid split into arguments,
// or nil when it cannot be read.
func commandLineArgs(pid uint32) []string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(h)

	// The result is a UNICODE_STRING followed by the characters it points
	// to; []uint64 keeps the header's pointer field aligned.
	buf := make([]uint64, 512)
	for {
		var need uint32
		size := uint32(len(buf) * 8)
		err := windows.NtQueryInformationProcess(h, windows.ProcessCommandLineInformation, unsafe.Pointer(&buf[0]), size, &need)
		if err == nil {
			break
		}
		tooSmall := errors.Is(err, windows.STATUS_INFO_LENGTH_MISMATCH) ||
			errors.Is(err, windows.STATUS_BUFFER_TOO_SMALL) || errors.Is(err, windows.STATUS_BUFFER_OVERFLOW)
		if !tooSmall || need <= size || need > 1<<20 {
			return nil
		}
		buf = make([]uint64, (need+7)/8)
	}
	line := (*windows.NTUnicodeString)(unsafe.Pointer(&buf[0])).String()
	runtime.KeepAlive(buf)
	if line == "" {
		return nil
	}
	args, err := windows.DecomposeCommandLine(line)
	if err != nil {
		return nil
	}
	return args
}

// imagePath returns the full path of pid's executable image, or "" when
// the process cannot be opened.
func imagePath(pid uint32) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return ""
	}
	return windows.UTF16ToString(buf[:n])
}
