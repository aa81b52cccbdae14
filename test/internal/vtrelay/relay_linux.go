package vtrelay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Request bytes the relay writes to the terminal under test.
const (
	statusRequest = "\x1b[5n" // DSR: answered with CSI 0 n
	cursorRequest = "\x1b[6n" // CPR: answered with CSI row ; col R
)

// kernelWait bounds each wait on the kernel's own state (vttest stopping,
// written input reaching its queue). These take microseconds; the bound
// only turns a relay bug into a failure instead of a hang.
const kernelWait = 30 * time.Second

// probeInterval is how often the relay looks at vttest's state while
// it waits for vttest to settle: vttest going to sleep in read(2) is no
// event the relay could wait on.
const probeInterval = 2 // milliseconds

// relay is one run: vttest, its inner terminal and the two outer ends.
type relay struct {
	o      Options
	cmd    *exec.Cmd
	pid    int
	master int // the inner terminal's master, non-blocking
	slave  *os.File
	in     int // the terminal under test, non-blocking
	out    int // the same terminal, usually the same open file (so non-blocking too)
	ctl    *net.UnixConn
	log    io.Writer

	scan    outScanner
	replies replyScanner
	// queue holds, per status request sent and not yet answered, whether
	// it was the relay's own (true) or vttest's (false), oldest first.
	queue        []bool
	needSentinel bool   // output ended inside a sequence: request owed
	held         []byte // the terminal's replies, not yet given to vttest
	text         []byte // printed since the last keys
	notes        []string
	awaitCursor  bool // the cursor request is out
	announced    bool // an Event was sent and its Command not yet read
	seq          int
	exited       chan error
	commands     chan Command
	ctlErr       chan error
	wakeR, wakeW int
}

// Main runs a relay from a command line: args are the harness's socket
// path, a log file ("" for none) and vttest's argv. It returns the
// process's exit code: 0 once vttest ended and the harness was told.
func Main(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "vtrelay: usage: <control socket> <log file or ''> <program> [args...]")
		return 2
	}
	o := Options{Control: args[0], Argv: args[2:]}
	if args[1] != "" {
		f, err := os.OpenFile(args[1], os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "vtrelay:", err)
			return 1
		}
		defer f.Close()
		o.Log = f
	}
	if err := Run(o); err != nil {
		if o.Log != nil {
			fmt.Fprintln(o.Log, "vtrelay:", err)
		}
		fmt.Fprintln(os.Stderr, "vtrelay:", err)
		return 1
	}
	return 0
}

// Run runs vttest under the relay until it exits (or the harness hangs
// up, which ends vttest).
func Run(o Options) (err error) {
	if len(o.Argv) == 0 || o.Control == "" {
		return errors.New("vtrelay: Argv and Control are required")
	}
	if o.In == nil {
		o.In = os.Stdin
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.Cols == 0 || o.Rows == 0 {
		o.Cols, o.Rows = 80, 24
	}
	r := &relay{o: o, log: o.Log, exited: make(chan error, 1),
		commands: make(chan Command, 1), ctlErr: make(chan error, 1)}
	if r.log == nil {
		r.log = io.Discard
	}
	conn, err := net.Dial("unix", o.Control)
	if err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	r.ctl = conn.(*net.UnixConn)
	defer r.ctl.Close()

	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	r.wakeR, r.wakeW = p[0], p[1]
	defer unix.Close(r.wakeR)
	defer unix.Close(r.wakeW)

	restore, err := r.rawIn()
	if err != nil {
		return err
	}
	defer restore()
	if err := r.start(); err != nil {
		return err
	}
	defer r.slave.Close()
	defer unix.Close(r.master)
	go r.readCommands()
	err = r.loop()
	if err != nil {
		_ = r.cmd.Process.Kill()
		<-r.exited
	}
	return err
}

// rawIn puts the outer terminal into raw mode (replies arrive byte for
// byte, nothing is echoed) and returns what restores it.
func (r *relay) rawIn() (func(), error) {
	// Fd puts a file into blocking mode: take both descriptors before
	// making the input non-blocking.
	r.out = int(r.o.Out.Fd())
	r.in = int(r.o.In.Fd())
	old, err := unix.IoctlGetTermios(r.in, unix.TCGETS)
	if err != nil {
		return nil, fmt.Errorf("vtrelay: the terminal under test: %w", err)
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(r.in, unix.TCSETS, &t); err != nil {
		return nil, fmt.Errorf("vtrelay: %w", err)
	}
	if err := unix.SetNonblock(r.in, true); err != nil {
		return nil, fmt.Errorf("vtrelay: %w", err)
	}
	return func() {
		_ = unix.SetNonblock(r.in, false)
		_ = unix.IoctlSetTermios(r.in, unix.TCSETS, old)
	}, nil
}

// start opens the inner terminal and starts vttest on it as the leader
// of its own session.
func (r *relay) start() error {
	m, s, err := pty.Open()
	if err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	if err := pty.Setsize(m, &pty.Winsize{Rows: uint16(r.o.Rows), Cols: uint16(r.o.Cols)}); err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	// The master is used through its descriptor only (a dup, so the
	// *os.File's own non-blocking handling stays out of the way).
	r.master, err = unix.Dup(int(m.Fd()))
	m.Close()
	if err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	unix.CloseOnExec(r.master)
	if err := unix.SetNonblock(r.master, true); err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	r.slave = s
	r.cmd = exec.Command(r.o.Argv[0], r.o.Argv[1:]...)
	r.cmd.Env = r.o.Env
	r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = s, s, s
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := r.cmd.Start(); err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	r.pid = r.cmd.Process.Pid
	r.logf("started %q, pid %d", r.o.Argv, r.pid)
	go func() {
		r.exited <- r.cmd.Wait()
		r.wake()
	}()
	return nil
}

func (r *relay) wake() { _, _ = unix.Write(r.wakeW, []byte{0}) }

func (r *relay) logf(format string, args ...any) {
	fmt.Fprintf(r.log, time.Now().Format("15:04:05.000")+" "+format+"\n", args...)
}

// readCommands reads the harness's commands until it hangs up.
func (r *relay) readCommands() {
	dec := json.NewDecoder(r.ctl)
	for {
		var c Command
		if err := dec.Decode(&c); err != nil {
			r.ctlErr <- err
			r.wake()
			return
		}
		r.commands <- c
		r.wake()
	}
}

// loop runs until vttest exits or the harness hangs up.
func (r *relay) loop() error {
	buf := make([]byte, 64<<10)
	fds := []unix.PollFd{
		{Fd: int32(r.master), Events: unix.POLLIN},
		{Fd: int32(r.in), Events: unix.POLLIN},
		{Fd: int32(r.wakeR), Events: unix.POLLIN},
	}
	for {
		timeout := -1
		if r.probing() {
			timeout = probeInterval
		}
		if _, err := unix.Poll(fds, timeout); err != nil && err != unix.EINTR {
			return fmt.Errorf("vtrelay: poll: %w", err)
		}
		if fds[0].Revents != 0 {
			if _, err := r.drainMaster(buf); err != nil {
				return err
			}
		}
		if fds[1].Revents != 0 {
			if err := r.readIn(buf); err != nil {
				return err
			}
		}
		if fds[2].Revents != 0 {
			for {
				if _, err := unix.Read(r.wakeR, buf); err != nil {
					break
				}
			}
		}
		done, err := r.events(buf)
		if done || err != nil {
			return err
		}
		if err := r.step(buf); err != nil {
			return err
		}
	}
}

// events handles what the waiter and the harness's reader reported: all
// of it, since the wake-up pipe was drained. done is true once the relay
// should end.
func (r *relay) events(buf []byte) (done bool, err error) {
	for {
		select {
		case err := <-r.exited:
			return true, r.finish(err, buf)
		case err := <-r.ctlErr:
			r.logf("the harness hung up (%v): ending vttest", err)
			_ = r.cmd.Process.Signal(syscall.SIGTERM)
			<-r.exited
			return true, nil
		case c := <-r.commands:
			if err := r.command(c); err != nil {
				return true, err
			}
		default:
			return false, nil
		}
	}
}

// probing reports whether the relay is waiting for vttest to settle
// (rather than for the terminal or the harness).
func (r *relay) probing() bool {
	return len(r.queue) == 0 && !r.awaitCursor && !r.announced
}

// drainMaster reads all of vttest's output there is and passes it on. A
// read that finds nothing makes the kernel first deliver what vttest
// wrote but the terminal driver had not yet handed over, so once it
// reports EAGAIN nothing vttest wrote is in flight.
func (r *relay) drainMaster(buf []byte) (bool, error) {
	got := false
	for {
		n, err := unix.Read(r.master, buf)
		if n > 0 {
			got = true
			if err := r.output(buf[:n]); err != nil {
				return got, err
			}
			continue
		}
		if err == unix.EAGAIN || err == unix.EINTR || err == nil {
			return got, nil
		}
		if err == unix.EIO { // vttest's side closed: it is exiting
			return got, nil
		}
		return got, fmt.Errorf("vtrelay: reading vttest's output: %w", err)
	}
}

// output passes a chunk of vttest's output to the terminal, followed by
// a status request unless the chunk ends inside a sequence.
func (r *relay) output(p []byte) error {
	r.scan.feed(p, func() { r.queue = append(r.queue, false) }, &r.text)
	if over := len(r.text) - 256<<10; over > 0 {
		r.text = append(r.text[:0], r.text[over:]...)
	}
	w := p
	if r.scan.ground() {
		w = append(append([]byte(nil), p...), statusRequest...)
		r.queue = append(r.queue, true)
		r.needSentinel = false
	} else {
		r.needSentinel = true
	}
	return r.write(w)
}

// write writes p to the terminal under test.
func (r *relay) write(p []byte) error {
	if err := writeAll(r.out, p); err != nil {
		return fmt.Errorf("vtrelay: writing to the terminal: %w", err)
	}
	return nil
}

// writeAll writes p to the descriptor fd, blocking or not.
func writeAll(fd int, p []byte) error {
	for len(p) > 0 {
		n, err := unix.Write(fd, p)
		if n > 0 {
			p = p[n:]
		}
		switch err {
		case nil, unix.EINTR:
		case unix.EAGAIN:
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
			_, _ = unix.Poll(fds, -1)
		default:
			return err
		}
	}
	return nil
}

// readIn reads what the terminal sent: answers to the relay's requests
// are taken out, the rest is held for vttest.
func (r *relay) readIn(buf []byte) error {
	for {
		n, err := unix.Read(r.in, buf)
		if n > 0 {
			for _, t := range r.replies.feed(buf[:n]) {
				if err := r.reply(t); err != nil {
					return err
				}
			}
			continue
		}
		if err == unix.EAGAIN || err == unix.EINTR {
			return nil
		}
		if err == nil || err == unix.EIO {
			return errors.New("vtrelay: the terminal under test closed")
		}
		return fmt.Errorf("vtrelay: reading from the terminal: %w", err)
	}
}

// reply handles one token from the terminal.
func (r *relay) reply(t replyToken) error {
	switch {
	case t.dsrOK && len(r.queue) > 0:
		ours := r.queue[0]
		r.queue = r.queue[1:]
		if !ours {
			r.held = append(r.held, t.raw...)
		}
	case t.cpr && r.awaitCursor && len(r.queue) == 0:
		r.awaitCursor = false
		return r.announce(t.row, t.col)
	default:
		r.held = append(r.held, t.raw...)
	}
	return nil
}

// step moves on once vttest waits for input with nothing in flight:
// held replies go to vttest; with none, the cursor is asked for, whose
// answer announces the settled state.
func (r *relay) step(buf []byte) error {
	if !r.probing() {
		return nil
	}
	call, err := r.waitingForInput()
	if err != nil || call == "" {
		return err
	}
	if got, err := r.drainMaster(buf); got || err != nil {
		return err
	}
	if r.needSentinel {
		r.note("output stopped inside a control sequence; status request sent anyway")
		r.needSentinel = false
		r.queue = append(r.queue, true)
		return r.write([]byte(statusRequest))
	}
	r.logf("vttest waits in read(2): %s", call)
	if len(r.held) > 0 {
		held := r.held
		r.held = nil
		r.logf("replies to vttest: %q", held)
		return r.deliver(held)
	}
	r.awaitCursor = true
	return r.write([]byte(cursorRequest))
}

func (r *relay) note(s string) {
	r.logf("note: %s", s)
	r.notes = append(r.notes, s)
}

// waitingForInput reports whether vttest sleeps in read(2) on its
// terminal with nothing there to read (a partial line in canonical mode
// counts as nothing: the read goes on waiting): if so, it returns the
// read's /proc/<pid>/syscall line and vttest's context switch counts,
// for the log; else "".
//
// No one file of /proc says that, and vttest may run between two looks,
// so the answer is put together from looks that all fall inside one
// stretch of time in which vttest did not run, in this order:
//
//  1. its context switch counts (/proc/<pid>/status);
//  2. its state is S, an interruptible sleep (/proc/<pid>/stat);
//  3. it sleeps in read(2) on descriptor 0 (/proc/<pid>/syscall, which
//     shows a call only for a task that is off the CPU);
//  4. its terminal's input queue is empty (FIONREAD);
//  5. the same call as in 3;
//  6. the same counts as in 1.
//
// A task that ran between 1 and 6 either left the CPU (6 differs) or is
// on it at 5 (/proc/<pid>/syscall says "running"), so vttest was off the
// CPU from 2 to 5, in the one sleep that 2 and 3 describe, when 4 found
// nothing to read.
//
// Looking at 3 and 4 alone is not enough: /proc/<pid>/syscall shows the
// registers of the call a task last entered whenever the task is off
// the CPU, also when it no longer waits there — stopped in it (state T),
// woken by SIGCONT and not yet run (the kernel's "waking" state, R), or
// asleep uninterruptibly (D) on its way in or out of the read. The relay
// gives vttest its keys while it is stopped in read(2) and lets it go on
// with SIGCONT; a look at 3 right then, and at 4 once vttest had run,
// taken the byte and gone to sleep in instr()'s 100 ms wait (unix_io.c),
// announced a state vttest had already left, and the harness's next keys
// joined the same reply (CI, test/conform 11.8.9#5).
func (r *relay) waitingForInput() (string, error) {
	before, err := r.switches()
	if err != nil || before == "" {
		return "", err
	}
	if state, ok := r.state(); !ok || state != 'S' {
		return "", nil
	}
	call, ok := r.syscall()
	if !ok || !readsStdin(call) {
		return "", nil
	}
	n, err := unix.IoctlGetInt(int(r.slave.Fd()), unix.TIOCINQ)
	if err != nil {
		return "", fmt.Errorf("vtrelay: FIONREAD: %w", err)
	}
	if n != 0 {
		return "", nil
	}
	if again, ok := r.syscall(); !ok || again != call {
		return "", nil
	}
	after, err := r.switches()
	if err != nil || after != before {
		return "", err
	}
	return strings.TrimSpace(call) + ", context switches " + after, nil
}

// readsStdin reports whether a line of /proc/<pid>/syscall is a read(2)
// on descriptor 0.
func readsStdin(call string) bool {
	f := strings.Fields(call)
	return len(f) >= 2 && f[0] == strconv.Itoa(unix.SYS_READ) && f[1] == "0x0"
}

// proc reads vttest's /proc/<pid>/name; false once vttest is gone (the
// waiter reports its exit).
func (r *relay) proc(name string) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(r.pid) + "/" + name)
	return string(b), err == nil
}

// syscall is vttest's /proc/<pid>/syscall: the call it sleeps in, or
// "running".
func (r *relay) syscall() (string, bool) { return r.proc("syscall") }

// state is vttest's state letter from /proc/<pid>/stat.
func (r *relay) state() (byte, bool) {
	b, ok := r.proc("stat")
	i := strings.LastIndexByte(b, ')')
	if !ok || i < 0 || i+2 >= len(b) {
		return 0, false
	}
	return b[i+2], true
}

// switches returns vttest's voluntary and involuntary context switch
// counts from /proc/<pid>/status ("" once vttest is gone): they change
// whenever vttest leaves the CPU.
func (r *relay) switches() (string, error) {
	b, ok := r.proc("status")
	if !ok {
		return "", nil
	}
	var counts []string
	for _, line := range strings.Split(b, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
			counts = append(counts, strings.TrimSpace(v))
		}
	}
	if len(counts) != 2 {
		return "", fmt.Errorf("vtrelay: /proc/%d/status has no context switch counts", r.pid)
	}
	return strings.Join(counts, " "), nil
}

// announce tells the harness about the settled state.
func (r *relay) announce(row, col int) error {
	r.seq++
	kind, menu := classify(string(r.text))
	e := Event{Seq: r.seq, Kind: kind, Menu: menu, Text: string(r.text), Row: row, Col: col, Notes: r.notes}
	r.notes = nil
	r.announced = true
	r.logf("settled #%d: %s menu=%q cursor %d;%d, %d bytes of text", e.Seq, kind, menu, row, col, len(e.Text))
	return r.send(e)
}

func (r *relay) send(e Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := r.ctl.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("vtrelay: writing to the harness: %w", err)
	}
	return nil
}

// command gives vttest the harness's keys.
func (r *relay) command(c Command) error {
	if !r.announced {
		return fmt.Errorf("vtrelay: keys %q came before a settled state", c.Keys)
	}
	r.announced = false
	if c.Out != "" {
		if c.Keys != "" {
			return fmt.Errorf("vtrelay: a command with both keys %q and terminal output %q", c.Keys, c.Out)
		}
		// vttest still waits in read(2): once the terminal answers
		// the status request, step finds it settled and announces
		// again, with the same text.
		r.logf("to the terminal: %q", c.Out)
		r.queue = append(r.queue, true)
		return r.write(append([]byte(c.Out), statusRequest...))
	}
	r.text = r.text[:0]
	keys := []byte(c.Keys)
	t, err := unix.IoctlGetTermios(int(r.slave.Fd()), unix.TCGETS)
	if err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	if t.Iflag&unix.ICRNL == 0 {
		keys = bytes.ReplaceAll(keys, []byte("\r"), []byte("\n"))
	}
	r.logf("keys: %q", keys)
	return r.deliver(keys)
}

// deliver writes p into vttest's input while vttest is stopped and lets
// it go on once the kernel shows all of p in its input queue.
func (r *relay) deliver(p []byte) error {
	t, err := unix.IoctlGetTermios(int(r.slave.Fd()), unix.TCGETS)
	if err != nil {
		return fmt.Errorf("vtrelay: %w", err)
	}
	want := queued(t, p)
	if err := unix.Kill(r.pid, unix.SIGSTOP); err != nil {
		return fmt.Errorf("vtrelay: stopping vttest: %w", err)
	}
	defer unix.Kill(r.pid, unix.SIGCONT)
	if err := r.until("vttest to stop", r.stopped); err != nil {
		return err
	}
	q0, err := unix.IoctlGetInt(int(r.slave.Fd()), unix.TIOCINQ)
	if err != nil {
		return fmt.Errorf("vtrelay: FIONREAD: %w", err)
	}
	if err := writeAll(r.master, p); err != nil {
		return fmt.Errorf("vtrelay: writing to vttest: %w", err)
	}
	return r.until("the input to reach vttest's queue", func() (bool, error) {
		n, err := unix.IoctlGetInt(int(r.slave.Fd()), unix.TIOCINQ)
		return n >= q0+want, err
	})
}

// queued is how much FIONREAD grows once p reached a terminal with
// termios t: every byte in raw mode (less CRs ignored), in canonical
// mode the complete lines only.
func queued(t *unix.Termios, p []byte) int {
	n := len(p)
	if t.Iflag&unix.IGNCR != 0 {
		n -= bytes.Count(p, []byte("\r"))
	}
	if t.Lflag&unix.ICANON == 0 {
		return n
	}
	end := -1
	for i, b := range p {
		if b == '\n' || (b == '\r' && t.Iflag&unix.ICRNL != 0 && t.Iflag&unix.IGNCR == 0) ||
			(b != 0 && (b == t.Cc[unix.VEOL] || b == t.Cc[unix.VEOL2])) {
			end = i
		}
	}
	if end < 0 {
		return 0
	}
	if t.Iflag&unix.IGNCR != 0 {
		return end + 1 - bytes.Count(p[:end+1], []byte("\r"))
	}
	return end + 1
}

// stopped reports whether vttest is in the stopped state.
func (r *relay) stopped() (bool, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(r.pid) + "/stat")
	if err != nil {
		return false, fmt.Errorf("vtrelay: vttest went away while stopping: %w", err)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false, fmt.Errorf("vtrelay: unexpected /proc stat %q", b)
	}
	switch b[i+2] {
	case 'T', 't':
		return true, nil
	case 'Z', 'X':
		return false, errors.New("vtrelay: vttest exited while being stopped")
	}
	return false, nil
}

// until polls cond, which reads kernel state, until it holds.
func (r *relay) until(what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(kernelWait)
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("vtrelay: waited %v for %s", kernelWait, what)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// finish passes on vttest's last output and reports its exit.
func (r *relay) finish(waitErr error, buf []byte) error {
	if _, err := r.drainMaster(buf); err != nil {
		return err
	}
	how := "exit status 0"
	if waitErr != nil {
		how = waitErr.Error()
	}
	r.logf("vttest ended: %s", how)
	r.seq++
	return r.send(Event{Seq: r.seq, Kind: KindExit, Text: string(r.text), Exit: how, Notes: r.notes})
}
