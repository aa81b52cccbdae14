package terminal

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures [Start]. Zero values are documented per field.
type Options struct {
	Argv []string // program and arguments; required
	Dir  string   // working directory; "" = the current one
	Env  []string // full environment; nil = os.Environ()

	Cols, Rows int // initial size; 0 = 80×24

	// Scrollback is the number of lines kept: 0 = DefaultScrollback,
	// NoScrollback = none.
	Scrollback int

	// ScreenHistoryBytes bounds the history of full-screen programs'
	// screens: 0 = DefaultScreenHistoryBytes, NoScreenHistory = none (see
	// [ScreenHistory]).
	ScreenHistoryBytes int

	// AllowOSC52, Clipboard and Bell are passed to the emulator; see
	// [EmulatorOptions].
	AllowOSC52 bool
	Clipboard  func(selection string, data []byte)
	Bell       func()

	// Background makes Start return once the program was found and the
	// working directory checked, before the pseudo-terminal is opened and
	// the process forked; that part then runs on a goroutine. On a machine
	// whose processors are saturated, forking and waiting for the exec
	// can take hundreds of milliseconds, which a caller such as a socket
	// request should not wait for. Until the program runs, [Terminal.Pid]
	// is 0, [Terminal.Foreground] fails, input is queued and a resize is
	// applied when the program starts; [Terminal.Started] reports when it
	// did. Should the start fail after all (fork refused, exec error), the
	// screen shows why and the terminal ends as if the program had exited
	// with code 126 (127 when the program vanished meanwhile).
	Background bool
}

// Input queue bounds: replies beyond replyQueueMax are dropped (a program
// flooding queries without reading its input), input beyond inputQueueMax
// is refused with [ErrInputQueueFull].
const (
	replyQueueMax = 64 << 10
	inputQueueMax = 4 << 20
	// exitDrain is how long output may keep arriving after the process
	// exited (a background child still holding the terminal) before the
	// terminal stops reading.
	exitDrain = 2 * time.Second
	// closeGrace is how long Close lets the process group react to
	// SIGHUP/SIGTERM before SIGKILL.
	closeGrace = time.Second
	// pendingMax bounds output read but not yet parsed; past it the
	// reader stops reading, which pushes back on the program.
	pendingMax = 1 << 20
	// parseChunk bounds how much output one Emulator.Write takes, so the
	// emulator's lock is never held for long.
	parseChunk = 32 << 10
	// readBuffer is the size of each terminal's read buffer. A Linux
	// PTY hands output over in pieces of at most 4 KiB; the rest is
	// headroom for other systems. Every pane keeps one for its life.
	readBuffer = 16 << 10
	// keepBuffer is the largest output buffer a terminal keeps between
	// bursts; larger ones (grown while the parser fell behind) are
	// dropped once no output was read for keepIdle.
	keepBuffer = 64 << 10
	keepIdle   = time.Second
)

// parseSlots bounds how many terminals parse output at the same time to
// one less than the processors Go could use when the program started (at
// least one). With the single read slot of the Unix PTY reader, output
// processing then occupies at most that many processors; a hundred panes
// flooding output would otherwise keep every processor busy, and a socket
// request or a keystroke would wait behind them for hundreds of
// milliseconds. [SpareProcessor] adds the processor that stays free. One
// busy pane is not slowed: it only ever needs one slot of each kind.
var parseSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

// SpareProcessor lets Go use one processor more than terminals' output
// processing may occupy (see parseSlots), so that while many panes flood
// output a processor stays free for socket requests and the user
// interface. A program hosting terminals calls it once, early in main. It
// does nothing when the GOMAXPROCS environment variable is set: the
// user's setting wins. It returns the GOMAXPROCS in effect afterwards.
func SpareProcessor() int {
	if os.Getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	n := cap(parseSlots) + 2 // parsers, the reader, the spare
	if n > runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(n)
	}
	return runtime.GOMAXPROCS(0)
}

var (
	// ErrClosed is returned when writing to a terminal that was closed or
	// whose program has exited.
	ErrClosed = errors.New("terminal: closed")
	// ErrInputQueueFull is returned by [Terminal.SendInput] when the
	// program has not read earlier input and the queue is full.
	ErrInputQueueFull = errors.New("terminal: input queue full (program is not reading its input)")
)

// Terminal is a program running on a pseudo-terminal with an [Emulator]
// following its output. It owns its goroutines: a reader that drains the
// pseudo-terminal as fast as the kernel delivers, a parser that feeds what
// was read to the emulator in batches (so reading and parsing overlap on
// two cores), and a writer that delivers input and replies without ever
// blocking the reader or the caller.
//
// All methods are safe for concurrent use. Close must be called to release
// the terminal, even after the program exited.
type Terminal struct {
	// pty is set before started is closed and never changes afterwards;
	// it stays nil when the program could not be started. Read it only
	// after started is closed (see running).
	pty      *PTY
	started  chan struct{}
	startErr error // set before started is closed
	emu      *Emulator

	// sizeMu orders resizes of the emulator and the pseudo-terminal, so
	// the program's size always ends up as the last Resize said.
	sizeMu sync.Mutex

	mu      sync.Mutex
	input   []byte // queued program input (user input and replies)
	replies int    // bytes of input that are replies
	wake    chan struct{}
	closing bool
	// writing is set while input is being written to the PTY, by the
	// writer or by SendInputNow: one write at a time, in order.
	writing bool

	// Output read but not parsed yet, guarded by outMu. The reader
	// appends and waits on outSpace when pendingMax is reached; the
	// parser swaps the buffer out when outReady fires.
	outMu    sync.Mutex
	out      []byte
	outEOF   bool
	outReady chan struct{}
	outSpace *sync.Cond
	// spare is the parser's buffer between batches (handed to the
	// reader at the next swap); reads counts the reads appended to out;
	// dropArmed says a dropIdleBuffers is due. All guarded by outMu.
	spare     []byte
	reads     uint64
	dropArmed bool

	// gates, when set, are passed before each read and each parsed
	// chunk of output (see SetOutputGate); the list is never changed in
	// place, only replaced.
	gates atomic.Pointer[[]OutputGate]
	// taps are the raw-output observers of Tap (tap.go).
	taps atomic.Pointer[[]*tap]
	// inputTaps are the input observers of TapInput (tap.go).
	inputTaps atomic.Pointer[[]*tap]

	done       chan struct{} // closed when the program exited and output is drained
	readerDone chan struct{} // closed when the reader and the parser have both stopped
	writerDone chan struct{}
	exit       ExitStatus
	exitErr    error
	closeOnce  sync.Once

	detached *detachedState // non-nil: made by Detached, no program

	// settle decides when the program's alternate screen has settled and
	// is recorded (screencapture.go).
	settle settler

	// activity counts what happened on the terminal that may change its
	// foreground process: each read of output, each input sent, each
	// resize. fg is the last description of that process, reused while
	// activity and the foreground group stay the same (fgrecent.go).
	activity atomic.Uint64
	fg       recentFg
}

// Start runs a program on a new pseudo-terminal. Errors in the
// arguments (no program, a missing working directory, a program not found
// in PATH) are returned in any case; see [Options.Background] for when the
// process itself is started.
func Start(o Options) (*Terminal, error) {
	if len(o.Argv) == 0 {
		return nil, errors.New("terminal: no program to run")
	}
	cols, rows := o.Cols, o.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = 80, 24
	}
	pc, err := prepare(Cmd{Argv: o.Argv, Dir: o.Dir, Env: o.Env, Cols: cols, Rows: rows})
	if err != nil {
		return nil, err
	}
	t := &Terminal{
		started:    make(chan struct{}),
		wake:       make(chan struct{}, 1),
		outReady:   make(chan struct{}, 1),
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	t.outSpace = sync.NewCond(&t.outMu)
	t.emu = NewEmulator(cols, rows, EmulatorOptions{
		Scrollback:         o.Scrollback,
		ScreenHistoryBytes: o.ScreenHistoryBytes,
		Reply:              t.queueReply,
		AllowOSC52:         o.AllowOSC52,
		Clipboard:          o.Clipboard,
		Bell:               o.Bell,
		Resized:            t.followSize,
	})
	if o.Background {
		go t.launch(pc)
		return t, nil
	}
	p, err := pc.start()
	if err != nil {
		return nil, err
	}
	t.run(p)
	return t, nil
}

// launch starts the program of a terminal created with
// [Options.Background].
func (t *Terminal) launch(pc preparedCmd) {
	if testHookLaunch != nil {
		testHookLaunch(pc)
	}
	p, err := pc.start()
	if err != nil {
		t.failStart(err)
		return
	}
	t.sizeMu.Lock()
	defer t.sizeMu.Unlock()
	// A Resize before now changed only the emulator.
	if cols, rows := t.emu.Size(); cols != pc.cols || rows != pc.rows {
		_ = p.Resize(cols, rows)
	}
	t.run(p)
}

// testHookLaunch, when set by a test before Start, runs on the launch
// goroutine just before a background start.
var testHookLaunch func(preparedCmd)

// run publishes the started program and starts the terminal's goroutines.
func (t *Terminal) run(p *PTY) {
	t.pty = p
	close(t.started)
	go t.readLoop()
	go t.parseLoop()
	go t.writeLoop()
	go t.waitLoop()
}

// failStart ends a terminal whose program could not be started in the
// background: the reason is shown on its screen, and it is done with the
// exit status a shell reports for a program it could not run.
func (t *Terminal) failStart(err error) {
	t.startErr = err
	close(t.started)
	t.emu.Notice([]byte("\r\n" + err.Error() + "\r\n"))
	code := 126
	if errors.Is(err, fs.ErrNotExist) {
		code = 127
	}
	t.exit, t.exitErr = ExitStatus{Code: code}, err
	t.mu.Lock()
	t.closing = true
	t.input = nil
	t.mu.Unlock()
	close(t.readerDone)
	close(t.writerDone)
	close(t.done)
}

// running returns the started program's PTY, or nil while it is being
// started in the background and when it could not be started.
func (t *Terminal) running() *PTY {
	if isClosed(t.started) {
		return t.pty
	}
	return nil
}

// Started returns a channel closed once the program was started, or could
// not be (then [Terminal.Done] is closed too). Without
// [Options.Background] it is closed when Start returns.
func (t *Terminal) Started() <-chan struct{} { return t.started }

// Emulator returns the terminal's screen model.
func (t *Terminal) Emulator() *Emulator { return t.emu }

// Pid reports the program's process id; 0 while the program is being
// started in the background and when it could not be started.
func (t *Terminal) Pid() int {
	if p := t.running(); p != nil {
		return p.Pid()
	}
	return 0
}

// Foreground reports the terminal's foreground process (the job the user
// would interact with), best effort on non-Linux systems.
func (t *Terminal) Foreground() (Process, error) {
	return t.ForegroundFields(AllFields, AllFields)
}

// ForegroundFields is [Terminal.Foreground] reading only the fields own
// (when the foreground process is the program itself) or other (when it
// is another one) name, as [PTY.ForegroundFields].
//
// Unlike a PTY's, a Terminal's description is reused while nothing
// happened on it (no output, input or resize) and it is less than a
// second old (on Unix; see recentFg), without asking the terminal for its
// foreground group: a program that changes directory or execs, or a new
// foreground job that starts, without any output or input is seen up to
// a second late. Asking for no fields always asks the terminal.
func (t *Terminal) ForegroundFields(own, other Fields) (Process, error) {
	act := t.activity.Load() // before the foreground group is read
	p := t.running()
	if p == nil {
		if t.detached != nil {
			return Process{}, errDetached
		}
		if isClosed(t.started) && t.startErr != nil {
			return Process{}, t.startErr
		}
		return Process{}, errNotStarted
	}
	return p.foregroundFields(own, other, &t.fg, act)
}

// ForegroundCPUDemand reports how long the terminal's foreground
// processes have run on a CPU or waited runnable for one, summed over
// their threads: a counter whose growth tells a program that works (or is
// starved of a CPU by the machine's load) from one that waits for input,
// when neither prints. It can go down (a thread or process ended). ok is
// false where the system does not say (only Linux does), on a detached
// terminal, or before the program started. It reads the process table:
// for a caller that waits on one pane, not for listings.
func (t *Terminal) ForegroundCPUDemand() (d time.Duration, ok bool) {
	p := t.running()
	if p == nil {
		return 0, false
	}
	d, err := p.cpuDemand()
	return d, err == nil
}

// errNotStarted is the error of [Terminal.Foreground] while the program
// is being started in the background.
var errNotStarted = errors.New("terminal: the program is still starting")

// errDetached is the error of [Terminal.Foreground] on a terminal made by
// [Detached].
var errDetached = errors.New("terminal: no program (detached terminal)")

// isClosed reports whether c is closed.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// SendInput queues p as keyboard input for the program. It never blocks:
// input is written by the terminal's writer goroutine in order.
func (t *Terminal) SendInput(p []byte) error {
	t.tapInput(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.acceptLocked(len(p)); err != nil {
		return err
	}
	t.input = append(t.input, p...)
	t.activity.Add(1)
	t.signal()
	return nil
}

// SendInputNow is SendInput, except that while no input is queued or
// being written it writes p to the program itself, on the caller's
// goroutine, with one write that does not wait: what the program's input
// buffer has no room for is queued for the writer, ahead of input queued
// meanwhile. A server's connection goroutine uses it for a window's keys,
// which then reach the program without the hand-off to the writer
// goroutine (issue 26, the attached window's key echo). Where the
// pseudo-terminal cannot be written without waiting (Windows, a detached
// terminal, a program still starting) it is SendInput.
func (t *Terminal) SendInputNow(p []byte) error {
	t.tapInput(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.acceptLocked(len(p)); err != nil {
		return err
	}
	t.activity.Add(1)
	pty := t.running()
	if t.writing || len(t.input) > 0 || t.detached != nil || pty == nil || len(p) == 0 {
		t.input = append(t.input, p...)
		t.signal()
		return nil
	}
	t.writing = true
	t.mu.Unlock()
	n, err := pty.writeNow(p)
	t.mu.Lock()
	t.writing = false
	if err == nil && n < len(p) {
		t.input = append(append([]byte(nil), p[n:]...), t.input...)
	}
	// Input queued meanwhile (or the rest of p) is the writer's; a write
	// that failed (the program is gone) drops p, as the writer would.
	if len(t.input) > 0 {
		t.signal()
	}
	return nil
}

// acceptLocked says whether n more bytes of input may be queued; t.mu
// must be held.
func (t *Terminal) acceptLocked(n int) error {
	if t.closing {
		return ErrClosed
	}
	select {
	case <-t.done:
		return ErrClosed
	default:
	}
	if len(t.input)+n > inputQueueMax {
		return ErrInputQueueFull
	}
	return nil
}

// queueReply is the emulator's Reply callback (called by the reader).
func (t *Terminal) queueReply(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing || t.replies+len(p) > replyQueueMax {
		return
	}
	t.input = append(t.input, p...)
	t.replies += len(p)
	t.signal()
}

// signal wakes the writer; t.mu must be held.
func (t *Terminal) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Resize changes the screen and the pseudo-terminal size; the program gets
// SIGWINCH after the emulator has the new size.
func (t *Terminal) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 {
		return errors.New("terminal: size must be positive")
	}
	t.sizeMu.Lock()
	defer t.sizeMu.Unlock()
	t.emu.Resize(cols, rows)
	if p := t.running(); p != nil {
		t.activity.Add(1) // SIGWINCH: the program may act on it
		return p.Resize(cols, rows)
	}
	return nil // applied by launch, or there is no program to tell
}

// followSize gives the pseudo-terminal the emulator's size after the
// program changed the width itself (DECCOLM), so it reads the new size
// with TIOCGWINSZ and gets SIGWINCH. It runs on the parser goroutine,
// outside the emulator's lock; sizeMu orders it with Resize, and it reads
// the size again under it, so the pseudo-terminal ends up as the last
// change to the emulator said. Before the program started, launch sets
// the size instead.
func (t *Terminal) followSize(int, int) {
	t.sizeMu.Lock()
	defer t.sizeMu.Unlock()
	if p := t.running(); p != nil {
		cols, rows := t.emu.Size()
		_ = p.Resize(cols, rows) // a failing resize leaves the old size; nothing to report to
	}
}

// Done returns a channel closed once the program has exited and all of its
// output has been parsed.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// ExitStatus reports how the program ended; ok is false until Done is closed.
func (t *Terminal) ExitStatus() (st ExitStatus, ok bool) {
	select {
	case <-t.done:
		return t.exit, true
	default:
		return ExitStatus{}, false
	}
}

// Close kills the program's process group (SIGHUP and SIGTERM, then
// SIGKILL after a grace period), closes the pseudo-terminal and waits for
// the terminal's goroutines. It is idempotent and bounded in time.
func (t *Terminal) Close() error {
	var err error
	t.closeOnce.Do(func() {
		t.mu.Lock()
		t.closing = true
		t.signal()
		t.mu.Unlock()
		// A detached terminal ends as a program killed by SIGHUP would.
		t.endDetached(ExitStatus{Code: 129, Signal: "hangup", Signaled: true})
		// A program being started in the background is waited for: it
		// must not start after Close returned.
		<-t.started
		if t.pty != nil {
			err = t.pty.Kill(closeGrace)
			if cerr := t.pty.Close(); err == nil {
				err = cerr
			}
		}
		<-t.readerDone
		<-t.writerDone
		<-t.done
	})
	return err
}

// readLoop drains the pseudo-terminal into t.out until end of output.
func (t *Terminal) readLoop() {
	buf := make([]byte, readBuffer)
	for {
		t.passGate()
		n, err := t.pty.Read(buf)
		if n > 0 {
			t.activity.Add(1)
			t.tapOutput(buf[:n])
		}
		t.outMu.Lock()
		for n > 0 && len(t.out) >= pendingMax && !t.outEOF {
			t.outSpace.Wait()
		}
		t.out = append(t.out, buf[:n]...)
		t.reads++
		if err != nil {
			t.outEOF = true
		}
		t.outMu.Unlock()
		select {
		case t.outReady <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// OutputGate holds a terminal's output back: see [Terminal.SetOutputGate].
type OutputGate interface {
	// Pass returns when output may flow. It may block for a moment, and
	// must return soon (tens of milliseconds) whatever happens.
	Pass()
}

// SetOutputGate adds g to the terminal's output gates (once), whose Pass
// the terminal calls, each in turn, before each read of the program's
// output and before parsing each chunk of it; nil removes every gate. The
// desktop app's gate blocks for the start of each paint of the pane, so
// that on a busy machine a flood of output does not starve the painting
// of processor time; the server's blocks other panes' output for a moment
// after a key typed into one (package api, the echo hold). The program
// meanwhile blocks on its full terminal, as it does whenever its reader is
// slower than it. Safe for concurrent use.
func (t *Terminal) SetOutputGate(g OutputGate) {
	if gs := t.gates.Load(); g != nil && gs != nil && slices.Contains(*gs, g) {
		return
	}
	t.changeGates(func(gs []OutputGate) []OutputGate {
		if g == nil {
			return nil
		}
		if slices.Contains(gs, g) {
			return gs
		}
		return append(slices.Clip(gs), g)
	})
}

// ClearOutputGate removes g if it is one of the gates (the others stay).
// Safe for concurrent use.
func (t *Terminal) ClearOutputGate(g OutputGate) {
	t.changeGates(func(gs []OutputGate) []OutputGate {
		return slices.DeleteFunc(slices.Clone(gs), func(x OutputGate) bool { return x == g })
	})
}

// changeGates replaces the gates with f's answer to them; f must not
// change the slice it is given.
func (t *Terminal) changeGates(f func([]OutputGate) []OutputGate) {
	for {
		old := t.gates.Load()
		var gs []OutputGate
		if old != nil {
			gs = *old
		}
		var next *[]OutputGate
		if n := f(gs); len(n) > 0 {
			next = &n
		}
		if t.gates.CompareAndSwap(old, next) {
			return
		}
	}
}

// passGate calls the output gates, if any.
func (t *Terminal) passGate() {
	if gs := t.gates.Load(); gs != nil {
		for _, g := range *gs {
			g.Pass()
		}
	}
}

// parseLoop feeds what the reader collected to the emulator, all of it at
// once, in chunks of parseChunk. It closes t.readerDone after the last
// byte of output was parsed.
func (t *Terminal) parseLoop() {
	defer close(t.readerDone)
	for {
		<-t.outReady
		t.outMu.Lock()
		batch := t.out
		t.out, t.spare = t.spare, nil
		eof := t.outEOF
		t.outSpace.Broadcast()
		t.outMu.Unlock()
		t.parse(batch)
		if eof {
			return // the reader appends nothing after end of output
		}
		t.outMu.Lock()
		t.spare = batch[:0]
		if !t.dropArmed && (cap(t.spare) > keepBuffer || cap(t.out) > keepBuffer) {
			t.dropArmed = true
			reads := t.reads
			time.AfterFunc(keepIdle, func() { t.dropIdleBuffers(reads) })
		}
		t.outMu.Unlock()
	}
}

// dropIdleBuffers drops the output buffers a burst grew past keepBuffer
// if nothing was read since the reader's count was reads, so that an idle
// pane does not keep up to pendingMax twice over; otherwise it checks
// again keepIdle later. Buffers are not dropped while output streams:
// growing them again for every batch would keep the garbage collector
// busy all through a flood (a hundred panes' worth of it delayed socket
// requests).
func (t *Terminal) dropIdleBuffers(reads uint64) {
	t.outMu.Lock()
	defer t.outMu.Unlock()
	if t.reads != reads || len(t.out) > 0 {
		reads := t.reads
		time.AfterFunc(keepIdle, func() { t.dropIdleBuffers(reads) })
		return
	}
	if cap(t.out) > keepBuffer {
		t.out = nil
	}
	if cap(t.spare) > keepBuffer {
		t.spare = nil
	}
	t.dropArmed = false
}

// parse feeds p to the emulator in chunks of parseChunk, each under a
// parse slot. Only the parser goroutine calls it.
func (t *Terminal) parse(p []byte) {
	noteParsed(len(p))
	for len(p) > 0 {
		n := min(len(p), parseChunk)
		t.passGate()
		parseSlots <- struct{}{}
		t.emu.Write(p[:n])
		<-parseSlots
		p = p[n:]
	}
	t.noteOutput()
}

// waitLoop reaps the program, lets the reader drain what it wrote, and
// then marks the terminal done.
func (t *Terminal) waitLoop() {
	st, err := t.pty.Wait()
	timer := time.NewTimer(exitDrain)
	select {
	case <-t.readerDone:
		timer.Stop()
	case <-timer.C:
		// A background process still holds the terminal open: stop
		// reading so Done is not held up forever.
		t.pty.Close()
		<-t.readerDone
	}
	t.exit, t.exitErr = st, err
	t.mu.Lock()
	t.closing = true
	t.signal()
	t.mu.Unlock()
	close(t.done)
}

func (t *Terminal) writeLoop() {
	defer close(t.writerDone)
	var buf []byte
	for {
		<-t.wake
		mine := false // t.writing is this loop's
		for {
			t.mu.Lock()
			if mine {
				t.writing = false
			}
			closing := t.closing
			if t.writing && !closing {
				// SendInputNow is writing; it wakes this loop when it
				// leaves input queued.
				t.mu.Unlock()
				break
			}
			buf, t.input = t.input, buf[:0]
			t.replies = 0
			mine = len(buf) > 0
			t.writing = mine
			t.mu.Unlock()
			if closing {
				return
			}
			if len(buf) == 0 {
				break
			}
			if _, err := t.pty.Write(buf); err != nil {
				// The program is gone; stop once Close or waitLoop says so.
				t.mu.Lock()
				t.input = t.input[:0]
				t.mu.Unlock()
			}
		}
	}
}
