//go:build linux

package conform

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/test/internal/vtrelay"
)

// screenCols and screenRows are the size every run starts at: vttest's
// default 24x80. vttest allows DECCOLM (?40) and switches to 132 columns
// for its wide pages; xterm and the emulator then are 132 columns wide
// (vttest does not read the pty's size, so the harness's stays).
const screenCols, screenRows = 80, 24

// eventWait bounds the wait for one settled state. vttest's slowest page
// (a screen of 132-column wrapping under the race detector on a loaded
// machine) settles in well under a second; the bound only turns a hang
// into a failure.
const eventWait = 3 * time.Minute

// vttestPath returns the pinned vttest binary: $PANEFLOW_VTTEST when set,
// else what scripts/vttest.sh installs (downloading it once into the
// cache outside the clone).
func vttestPath(t testing.TB) string {
	if p := os.Getenv("PANEFLOW_VTTEST"); p != "" {
		return p
	}
	cmd := exec.Command("bash", "../../scripts/vttest.sh", "bin")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/vttest.sh bin: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// page is one settled screen vttest showed as a test's result.
type page struct {
	name   string // the menu path of the entry, then "#" and the page's number
	seq    int    // the relay's event
	screen screen
}

// relayLog is the relay's log of one run.
type relayLog []byte

// around returns the lines of l from the settled state before event seq
// to the keys that answered seq: what vttest was given and how the
// relay found it waiting again.
func (l relayLog) around(seq int) string {
	lines := strings.Split(string(l), "\n")
	from := 0
	for i, line := range lines {
		if strings.Contains(line, fmt.Sprintf(" settled #%d:", seq-1)) {
			from = i
		}
		if strings.Contains(line, fmt.Sprintf(" settled #%d:", seq)) {
			return strings.Join(lines[from:min(i+2, len(lines))], "\n")
		}
	}
	return fmt.Sprintf("(no settled state #%d in the log)", seq)
}

// screen is a settled screen as the suite compares it.
type screen struct {
	// text is the cursor's position as the terminal reported it (CPR),
	// then each row as shown (concealed text as blanks) with trailing
	// blanks removed, blank rows at the bottom left out.
	text string
	// attrs has, for each row with any VT100 rendition or line size, a
	// line "attr NN digits": one hex digit per cell (1 bold, 2
	// underline, 4 blink, 8 inverse; "." for none and for blank cells,
	// trailing ones left out), and "size NN d" for a row that is not single-width (3/4
	// double-height top/bottom, 6 double-width, as in ESC # d).
	attrs string
}

// vtTerminal is a terminal the suite runs vttest in.
type vtTerminal interface {
	// start runs argv (the relay) as the terminal's program, with env
	// added to its environment, and returns what waits for it to end.
	start(t testing.TB, argv, env []string) (wait func())
	// read returns the terminal's screen in state e.
	read(t testing.TB, c *vtrelay.Conn, e vtrelay.Event) screen
}

// vttestEnv is vttest's locale: UTF-8, as Paneflow's emulator only
// speaks UTF-8 (xterm is run with -u8 to match).
var vttestEnv = []string{"LC_ALL=en_US.UTF-8", "LANG=en_US.UTF-8", "TERM=xterm"}

// runVttest runs vttest through the relay in term and returns every
// result page the plan reaches, in order, and the relay's log.
func runVttest(t testing.TB, vt string, exclude func(path, desc string) bool, term vtTerminal) (pages []page, log relayLog) {
	t.Helper()
	dir := t.TempDir()
	ln, err := vtrelay.Listen(filepath.Join(dir, "relay.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "relay.log")
	wait := term.start(t, []string{self, relayArg, ln.Path(), logPath, vt}, vttestEnv)
	failed := true
	defer func() {
		wait()
		b, err := os.ReadFile(logPath)
		if err == nil && failed {
			t.Logf("relay log (last 4 KiB):\n%s", tailBytes(b, 4096))
		}
		log = b
	}()
	c, err := ln.Accept(time.Now().Add(eventWait))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := navigator{exclude: exclude}
	for {
		e, err := c.Next(time.Now().Add(eventWait))
		if err != nil {
			t.Fatalf("after %d pages (last entry %s): %v", len(pages), n.leaf, err)
		}
		if e.Kind == vtrelay.KindExit {
			if !n.done || e.Exit != "exit status 0" {
				t.Fatalf("vttest ended (%s) before the plan did (last entry %s)", e.Exit, n.leaf)
			}
			failed = false
			return pages, nil
		}
		keys, name, err := n.next(e)
		if trace {
			t.Logf("#%d %s menu=%q -> keys %q page %q\n%s", e.Seq, e.Kind, e.Menu, keys, name, tail(e.Text))
		}
		if err != nil {
			t.Fatal(err)
		}
		if name != "" {
			pages = append(pages, page{name: name, seq: e.Seq, screen: term.read(t, c, e)})
		}
		if err := c.Send(keys); err != nil {
			t.Fatal(err)
		}
	}
}

// emulatorTerm is Paneflow's emulator in this process, on a pty of its
// own: the emulator is what is tested, not the transport.
type emulatorTerm struct {
	em   *terminal.Emulator
	snap terminal.Snapshot
}

func (m *emulatorTerm) start(t testing.TB, argv, env []string) func() {
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: screenCols, Rows: screenRows}); err != nil {
		t.Fatal(err)
	}
	m.em = terminal.NewEmulator(screenCols, screenRows, terminal.EmulatorOptions{
		Scrollback:    terminal.NoScrollback,
		AllowChecksum: true,
		// The relay reads its input all the time, so this write
		// never waits for long.
		Reply: func(p []byte) { _, _ = master.Write(p) },
	})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(m.em, master) // ends with EIO once the relay exits
	}()
	return func() {
		select {
		case <-done:
		default:
			_ = cmd.Process.Kill()
			<-done
		}
		master.Close()
		<-copied
	}
}

// read takes the emulator's screen: the relay announced e after the
// emulator answered its cursor request, so every byte before that
// request is on the screen.
func (m *emulatorTerm) read(_ testing.TB, _ *vtrelay.Conn, e vtrelay.Event) screen {
	m.em.Snapshot(&m.snap)
	s := &m.snap
	rows := make([]string, s.Rows)
	attrs := make([]string, s.Rows)
	drawn := make([]bool, s.Rows)
	for y := range rows {
		var text strings.Builder
		line := make([]byte, 0, s.Cols)
		for _, c := range s.Row(y) {
			d := 0
			g := s.Grapheme(c)
			drawn[y] = drawn[y] || c.Char != 0 // never written: no character
			if c.Attrs&terminal.AttrHidden != 0 && g != "" {
				// Concealed (SGR 8) text is not shown: it reads as a
				// blank, as xterm's print leaves it out.
				g = " "
			}
			text.WriteString(g)
			if g == " " || g == "" {
				line = append(line, '.')
				continue
			}
			if c.Attrs&terminal.AttrBold != 0 {
				d |= 1
			}
			if c.Attrs.Underline() != terminal.UnderlineNone {
				d |= 2
			}
			if c.Attrs&terminal.AttrBlink != 0 {
				d |= 4
			}
			if c.Attrs&terminal.AttrInverse != 0 {
				d |= 8
			}
			line = append(line, attrDigit(d))
		}
		rows[y] = text.String()
		attrs[y] = string(line)
	}
	sizes := make([]byte, s.Rows)
	for y, z := range s.LineSizes {
		sizes[y] = "5634"[z] // as ESC # d sets it
		if !drawn[y] {
			// xterm's print (printLine) sends a line's size with its
			// characters, so a line with none shows single-width there.
			sizes[y] = '5'
		}
	}
	return makeScreen(e, rows, attrs, sizes)
}

// charDigit is the digit of character r printed with renditions d. A
// blank cell never written to is printed (by xterm, by tmux) as a space
// with no SGR whatever its renditions, so renditions are compared on
// characters only: a space is ".".
func charDigit(r rune, d int) byte {
	if r == ' ' {
		return '.'
	}
	return attrDigit(d)
}

func attrDigit(d int) byte {
	if d == 0 {
		return '.'
	}
	return "0123456789abcdef"[d]
}

// makeScreen formats a screen from its rows, per-row attribute digits
// and line sizes (nil: all single-width).
func makeScreen(e vtrelay.Event, rows, attrs []string, sizes []byte) screen {
	var b strings.Builder
	fmt.Fprintf(&b, "cursor %d;%d\n", e.Row, e.Col)
	last := len(rows) - 1
	for last >= 0 && strings.TrimRight(rows[last], " ") == "" {
		last--
	}
	for _, r := range rows[:last+1] {
		b.WriteString(strings.TrimRight(r, " "))
		b.WriteByte('\n')
	}
	var a strings.Builder
	for y := range rows {
		if y < len(sizes) && sizes[y] != '5' {
			fmt.Fprintf(&a, "size %02d %c\n", y+1, sizes[y])
		}
		if y < len(attrs) {
			if line := strings.TrimRight(attrs[y], "."); line != "" {
				fmt.Fprintf(&a, "attr %02d %s\n", y+1, line)
			}
		}
	}
	return screen{text: b.String(), attrs: a.String()}
}

// trace makes runVttest log every event, for finding out what a plan
// change does: CONFORM_TRACE=1 go test -v -run TestVttest ./test/conform.
var trace = os.Getenv("CONFORM_TRACE") != ""

func tailBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
