package workspace

import (
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
)

// Surface is one pane: a terminal running a program, placed in a
// workspace's layout. Surfaces are created by the [Manager] and live until
// they are closed; a surface whose program exited stays (as "exited")
// until then. Its ID is unique for the life of the process.
//
// All methods are safe for concurrent use. The zero value is not usable.
type Surface struct {
	id      uint64
	m       *Manager
	term    *terminal.Terminal
	dir     string // working directory it was started in
	command string // PaneSpec.Command ("" for a shell)
	// words is splitCommand(command), split once: each description of
	// the pane names its program by them (read-only).
	words []string
	// env is PaneSpec.Env as given (nil for none), kept for session
	// files; never modified after start.
	env map[string]string
	// argv is the program as configured, before shell integration
	// rewrote its arguments: what the pane reports while its own
	// process is in the foreground.
	argv []string
	gone chan struct{}

	// Guarded by m.mu.
	ws     *wsState
	leaf   *node
	custom string
	closed bool

	enterMu sync.Mutex
	enter   Enter // guarded by enterMu

	hist paneHistory // its screen history's journal on disk
}

// Enter records the Enter keys a pane's program was sent: Count is how
// many inputs were exactly one CR (an Enter pressed alone: a key, or the
// Enter after a submitted text; surface.send_text's and the app's), and
// Generation the pane's output generation just before the last of them
// was queued, so output counted past it came after that Enter. The zero
// value means no Enter yet.
type Enter struct {
	Count      uint64
	Generation uint64
}

// noteEnter is the surface's input tap: it records a lone CR.
func (s *Surface) noteEnter(p []byte) {
	if len(p) != 1 || p[0] != '\r' {
		return
	}
	gen := s.term.Emulator().Generation()
	s.enterMu.Lock()
	s.enter.Count++
	s.enter.Generation = gen
	s.enterMu.Unlock()
}

// LastEnter returns the surface's Enter record (see [Enter]).
func (s *Surface) LastEnter() Enter {
	s.enterMu.Lock()
	defer s.enterMu.Unlock()
	return s.enter
}

// ID returns the surface's id (surface_id on the wire).
func (s *Surface) ID() uint64 { return s.id }

// Terminal returns the surface's terminal. It stays readable after the
// surface is closed (its program is gone by then).
func (s *Surface) Terminal() *terminal.Terminal { return s.term }

// Command returns the command line the pane was started with, "" for an
// interactive shell.
func (s *Surface) Command() string { return s.command }

// CustomName returns the user-given name ("" for an automatic name).
func (s *Surface) CustomName() string {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.custom
}

// Closed returns a channel that is closed when the surface is closed
// (removed from its workspace).
func (s *Surface) Closed() <-chan struct{} { return s.gone }

// Exited reports how the surface's program ended; ok is false while it
// runs.
func (s *Surface) Exited() (st terminal.ExitStatus, ok bool) { return s.term.ExitStatus() }

// Busy reports whether the surface runs something other than an idle
// shell: a command it was started with that still runs, or a shell's
// foreground job (what closing it would end). It reads the process table.
func (s *Surface) Busy() bool {
	if _, exited := s.Exited(); exited {
		return false
	}
	if s.command != "" {
		return true
	}
	fg, err := s.term.ForegroundFields(0, 0)
	return err == nil && fg.Pid != 0 && fg.Pid != s.term.Pid()
}

// Info describes the surface as surface.list does, with its resolved
// name. ok is false once the surface is closed.
func (s *Surface) Info() (info SurfaceInfo, ok bool) {
	for _, in := range s.m.Surfaces() {
		if in.ID == s.id {
			return in, true
		}
	}
	return SurfaceInfo{}, false
}

// probe is what a surface reports about its program right now.
type probe struct {
	title  string
	cwd    string // "" when unknown
	cmd    *string
	base   string
	exited bool
	code   *int
}

// probe reads the title, working directory and foreground command. It
// reads /proc (or the platform's equivalent) and must not run under m.mu.
func (s *Surface) probe() probe {
	emu := s.term.Emulator()
	p := probe{title: emu.Title(), cwd: emu.Cwd()}
	if st, ok := s.term.ExitStatus(); ok {
		p.exited = true
		code := st.Code
		p.code = &code
	} else if argv, cmdline, cwd, ok := s.foreground(p.cwd == ""); ok {
		p.base = commandName(argv)
		p.cmd = &cmdline
		if p.cwd == "" {
			p.cwd = cwd
		}
	}
	if p.base == "" {
		p.base = titleName(p.title)
	}
	if p.base == "" && s.command != "" {
		p.base = commandName(s.words)
	}
	if p.base == "" {
		p.base = "shell"
	}
	return p
}

// foreground reads the foreground process: its argv, command line and,
// when withCwd, working directory. For the pane's own "$SHELL -c
// <command>" process it gives the command's words and text instead of
// the shell's, and reads no argv from the process table.
func (s *Surface) foreground(withCwd bool) (argv []string, cmdline, cwd string, ok bool) {
	select {
	case <-s.term.Started():
	default:
		// Still being started: it will be the pane's own program, in the
		// directory the pane was started in.
		return s.describe(terminal.Process{Cwd: s.dir}, true)
	}
	own, other := terminal.AllFields, terminal.AllFields
	if s.command != "" || len(s.argv) > 0 {
		own = terminal.FieldCwd // describe gives the command's words
	}
	if !withCwd {
		own &^= terminal.FieldCwd
		other &^= terminal.FieldCwd
	}
	fg, err := s.term.ForegroundFields(own, other)
	if err != nil {
		return nil, "", "", false
	}
	return s.describe(fg, fg.Pid == s.term.Pid())
}

// describe gives the argv, command line and working directory of the
// foreground process fg. For the pane's own program (own) that is, for a
// pane started with a command, the command's words and text, and for a
// shell, the shell as configured ("/bin/bash -l", not with the shell
// integration's --rcfile arguments).
func (s *Surface) describe(fg terminal.Process, own bool) (argv []string, cmdline, cwd string, ok bool) {
	switch {
	case own && s.command != "":
		return s.words, s.command, fg.Cwd, true
	case own && len(s.argv) > 0:
		return s.argv, strings.Join(s.argv, " "), fg.Cwd, true
	case len(fg.Argv) == 0:
		return nil, "", "", false
	}
	return fg.Argv, strings.Join(fg.Argv, " "), fg.Cwd, true
}

// ForegroundArgv reports the command running in the foreground of the
// pane: the job an interactive shell runs (or the shell itself when
// idle), or for a pane started with a command, that command's words. ok
// is false once the program exited or when it cannot be read. It reads
// /proc (or the platform's equivalent), or reuses the terminal's last
// description (see [terminal.Terminal.ForegroundFields]). The caller
// must not change argv: it may be the pane's own.
func (s *Surface) ForegroundArgv() (argv []string, ok bool) {
	argv, _, _, ok = s.foreground(false)
	return argv, ok
}

// AgentTool is the binary name of the known agent (proto.AgentByBinary)
// running in the pane's foreground ([Surface.ForegroundArgv]), "" for
// any other program or when it cannot be read.
func (s *Surface) AgentTool() string {
	argv, ok := s.ForegroundArgv()
	if !ok || len(argv) == 0 {
		return ""
	}
	name := terminal.Process{Argv: argv[:1]}.Name()
	if _, ok := proto.AgentByBinary(name); ok {
		return name
	}
	return ""
}

// InputReady reports whether the pane's program reads its input as far
// as its terminal tells: bracketed paste on, and for an agent whose TUI
// turns that on early, the window title it sets once it reads
// (proto.Agent.ReadsInput of [Surface.AgentTool]).
func (s *Surface) InputReady() bool {
	emu := s.term.Emulator()
	if !emu.Modes().BracketedPaste {
		return false // nothing reads before this: spare the /proc read
	}
	a, _ := proto.AgentByBinary(s.AgentTool())
	return a.ReadsInput(true, emu.Title())
}

// waitInputReady reports true once [Surface.InputReady], or once limit
// passed; false as soon as the pane closed, its program exited or stop
// closed. It wakes on each output change, never polls.
func (s *Surface) waitInputReady(limit time.Duration, stop <-chan struct{}) bool {
	emu := s.term.Emulator()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		_, ch := emu.Watch()
		if s.InputReady() {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return true
		case <-s.gone:
			return false
		case <-s.term.Done():
			return false
		case <-stop:
			return false
		}
	}
}

// splitCommand splits a shell command line into words, honouring single
// and double quotes and backslash escapes; it stops at the first shell
// operator (; | & < > newline) since only the first words name a pane.
func splitCommand(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' {
				esc = true
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune(";|&<>\n", r):
			if inWord {
				words = append(words, cur.String())
			}
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// watch publishes the surface's output, title and exit on the bus. It
// runs on its own goroutine (counted in m.wg) until the program exited or
// the surface was closed.
func (m *Manager) watch(s *Surface) {
	defer m.wg.Done()
	emu := s.term.Emulator()
	// Start from the emulator's initial state, so output (or a title)
	// that arrived before this goroutine ran is reported too.
	var gen uint64
	var title string
	var ch <-chan struct{}
	report := func() {
		g, next := emu.Watch()
		ch = next
		if g != gen {
			gen = g
			m.publish(bus.SurfaceChanged{SurfaceID: s.id, Generation: g})
		}
		if t := emu.Title(); t != title {
			title = t
			m.publish(bus.TitleChanged{SurfaceID: s.id, Title: t})
		}
	}
	report()
	for {
		select {
		case <-ch:
			report()
		case <-s.term.Done():
			// Done is closed after the last output was parsed.
			report()
			st, _ := s.term.ExitStatus()
			m.publish(bus.SurfaceExited{SurfaceID: s.id, ExitCode: st.Code, Signal: st.Signal})
			return
		case <-s.gone:
			return
		}
	}
}

// Settle says when a pane's output has settled: Floor has passed since
// the wait began, the program printed something, and no output arrived
// for Quiet; or Max has passed. A program that has printed nothing yet is
// still starting, however long that takes (a loaded machine took a shell
// longer than Quiet to print its first prompt, and a prompt typed before
// it went to the terminal's echo, ahead of the shell's own prompt). The
// zero value of a field means its default in [Options.PromptSettle].
type Settle struct {
	Floor, Quiet, Max time.Duration
}

// withDefaults fills zero fields from d.
func (st Settle) withDefaults(d Settle) Settle {
	if st.Floor <= 0 {
		st.Floor = d.Floor
	}
	if st.Quiet <= 0 {
		st.Quiet = d.Quiet
	}
	if st.Max <= 0 {
		st.Max = d.Max
	}
	return st
}

// defaultPromptSettle is the prompt prefill settle (spec limits.md: floor
// 1800 ms, poll 200 ms, cap 8000 ms).
var defaultPromptSettle = Settle{Floor: 1800 * time.Millisecond, Quiet: 200 * time.Millisecond, Max: 8 * time.Second}

// WaitSettled blocks until the surface's output settled according to st
// (see [Settle]; zero fields take the prompt defaults) and reports true,
// or reports false as soon as the surface is closed, its program exits,
// or stop is closed. It is driven by the emulator's change notifications,
// not by polling.
func (s *Surface) WaitSettled(st Settle, stop <-chan struct{}) bool {
	st = st.withDefaults(defaultPromptSettle)
	deadline := time.NewTimer(st.Max)
	defer deadline.Stop()
	floor := time.NewTimer(st.Floor)
	defer floor.Stop()
	select {
	case <-floor.C:
	case <-deadline.C:
		return true
	case <-s.gone:
		return false
	case <-s.term.Done():
		return false
	case <-stop:
		return false
	}
	emu := s.term.Emulator()
	quiet := time.NewTimer(st.Quiet)
	defer quiet.Stop()
	for {
		_, ch := emu.Watch()
		quietC := quiet.C
		if !emu.Printed() {
			quietC = nil // quiet counts from the program's first output
		}
		select {
		case <-ch:
			quiet.Reset(st.Quiet)
		case <-quietC:
			return true
		case <-deadline.C:
			return true
		case <-s.gone:
			return false
		case <-s.term.Done():
			return false
		case <-stop:
			return false
		}
	}
}
