package terminal

import (
	"errors"
	"runtime"
	"sync"
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

	// AllowOSC52, Clipboard and Bell are passed to the emulator; see
	// [EmulatorOptions].
	AllowOSC52 bool
	Clipboard  func(selection string, data []byte)
	Bell       func()
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
)

// parseSlots bounds how many terminals parse output at the same time to
// one less than the processors Go may use (at least one). A hundred panes
// flooding output would otherwise keep every processor busy parsing, and a
// socket request or a keystroke would wait behind them for the scheduler's
// 10 ms preemption slices; with a processor always left over they do not.
// One busy pane is not slowed: it only ever needs one slot.
var parseSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

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
	pty *PTY
	emu *Emulator

	mu      sync.Mutex
	input   []byte // queued program input (user input and replies)
	replies int    // bytes of input that are replies
	wake    chan struct{}
	closing bool

	// Output read but not parsed yet, guarded by outMu. The reader
	// appends and waits on outSpace when pendingMax is reached; the
	// parser swaps the buffer out when outReady fires.
	outMu    sync.Mutex
	out      []byte
	outEOF   bool
	outReady chan struct{}
	outSpace *sync.Cond

	done       chan struct{} // closed when the program exited and output is drained
	readerDone chan struct{} // closed when the reader and the parser have both stopped
	writerDone chan struct{}
	exit       ExitStatus
	exitErr    error
	closeOnce  sync.Once
}

// Start runs a program on a new pseudo-terminal.
func Start(o Options) (*Terminal, error) {
	if len(o.Argv) == 0 {
		return nil, errors.New("terminal: no program to run")
	}
	cols, rows := o.Cols, o.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = 80, 24
	}
	t := &Terminal{
		wake:       make(chan struct{}, 1),
		outReady:   make(chan struct{}, 1),
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	t.emu = NewEmulator(cols, rows, EmulatorOptions{
		Scrollback: o.Scrollback,
		Reply:      t.queueReply,
		AllowOSC52: o.AllowOSC52,
		Clipboard:  o.Clipboard,
		Bell:       o.Bell,
	})
	p, err := StartPTY(Cmd{Argv: o.Argv, Dir: o.Dir, Env: o.Env, Cols: cols, Rows: rows})
	if err != nil {
		return nil, err
	}
	t.pty = p
	t.outSpace = sync.NewCond(&t.outMu)
	go t.readLoop()
	go t.parseLoop()
	go t.writeLoop()
	go t.waitLoop()
	return t, nil
}

// Emulator returns the terminal's screen model.
func (t *Terminal) Emulator() *Emulator { return t.emu }

// Pid reports the program's process id.
func (t *Terminal) Pid() int { return t.pty.Pid() }

// Foreground reports the terminal's foreground process (the job the user
// would interact with), best effort on non-Linux systems.
func (t *Terminal) Foreground() (Process, error) { return t.pty.Foreground() }

// SendInput queues p as keyboard input for the program. It never blocks:
// input is written by the terminal's writer goroutine in order.
func (t *Terminal) SendInput(p []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing {
		return ErrClosed
	}
	select {
	case <-t.done:
		return ErrClosed
	default:
	}
	if len(t.input)+len(p) > inputQueueMax {
		return ErrInputQueueFull
	}
	t.input = append(t.input, p...)
	t.signal()
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
	t.emu.Resize(cols, rows)
	return t.pty.Resize(cols, rows)
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
		err = t.pty.Kill(closeGrace)
		if cerr := t.pty.Close(); err == nil {
			err = cerr
		}
		<-t.readerDone
		<-t.writerDone
		<-t.done
	})
	return err
}

// readLoop drains the pseudo-terminal into t.out until end of output.
func (t *Terminal) readLoop() {
	buf := make([]byte, 64<<10)
	for {
		n, err := t.pty.Read(buf)
		t.outMu.Lock()
		for n > 0 && len(t.out) >= pendingMax && !t.outEOF {
			t.outSpace.Wait()
		}
		t.out = append(t.out, buf[:n]...)
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

// parseLoop feeds what the reader collected to the emulator, all of it at
// once, in chunks of parseChunk. It closes t.readerDone after the last
// byte of output was parsed.
func (t *Terminal) parseLoop() {
	defer close(t.readerDone)
	var batch []byte
	for {
		<-t.outReady
		t.outMu.Lock()
		batch, t.out = t.out, batch[:0]
		eof := t.outEOF
		t.outSpace.Broadcast()
		t.outMu.Unlock()
		for p := batch; len(p) > 0; {
			n := min(len(p), parseChunk)
			parseSlots <- struct{}{}
			t.emu.Write(p[:n])
			<-parseSlots
			p = p[n:]
		}
		if eof {
			return // the reader appends nothing after end of output
		}
	}
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
		for {
			t.mu.Lock()
			closing := t.closing
			buf, t.input = t.input, buf[:0]
			t.replies = 0
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
