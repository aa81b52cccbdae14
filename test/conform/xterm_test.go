//go:build linux

package conform

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/test/internal/vtrelay"
)

// xtermTerm is real xterm (Debian's, under its own Xvfb): the reference
// the goldens in testdata/xterm come from. It is only run to record them
// (-record-xterm); `make test` compares against the recording.
//
// xterm is told to act as a VT420 (decTerminalID 420, as Paneflow's DA1
// says) and to speak UTF-8 (-u8). Its screen is read with its own print
// function: the relay writes MC (CSI i, print screen) to it and xterm
// pipes the whole screen (printerExtent) with its renditions and line
// sizes (printAttributes 1) into printerCommand, closing the pipe after
// each print (printerAutoClose). The command copies it into a FIFO the
// recorder reads to its end, so a print is read whole however late the
// command runs.
type xtermTerm struct {
	dir   string
	print string // the file each print writes
}

func (x *xtermTerm) start(t testing.TB, argv, env []string) func() {
	for _, p := range []string{"xterm", "Xvfb"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("recording xterm's goldens needs %s (apt-get install xterm xvfb): %v", p, err)
		}
	}
	x.dir = t.TempDir()
	x.print = filepath.Join(x.dir, "screen.fifo")
	if err := syscall.Mkfifo(x.print, 0o600); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	xvfb := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
	xvfb.ExtraFiles = []*os.File{w}
	xvfb.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if _, err2 := strconv.Atoi(strings.TrimSpace(line)); err != nil || err2 != nil {
		_ = xvfb.Process.Kill()
		_ = xvfb.Wait()
		t.Fatalf("Xvfb reported no display (%q, %v)", line, err)
	}
	args := []string{"-u8", "-geometry", fmt.Sprintf("%dx%d", screenCols, screenRows),
		"-xrm", "XTerm*decTerminalID: 420",
		"-xrm", "XTerm*printerCommand: cat > " + x.print,
		"-xrm", "XTerm*printerAutoClose: true",
		"-xrm", "XTerm*printerExtent: true",
		"-xrm", "XTerm*printAttributes: 1",
		"-e"}
	cmd := exec.Command("xterm", append(args, argv...)...)
	cmd.Env = append(append(os.Environ(), "DISPLAY=:"+strings.TrimSpace(line)), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() {
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = xvfb.Process.Signal(syscall.SIGTERM)
		_ = xvfb.Wait()
	}
}

// read has xterm print its screen and parses the print.
func (x *xtermTerm) read(t testing.TB, c *vtrelay.Conn, e vtrelay.Event) screen {
	if err := c.SendTerminal("\x1b[i"); err != nil {
		t.Fatal(err)
	}
	type result struct {
		b   []byte
		err error
	}
	got := make(chan result, 1)
	go func() {
		// Opening blocks until the printer command opens its end;
		// the read ends when it exits.
		b, err := os.ReadFile(x.print)
		got <- result{b, err}
	}()
	if _, err := c.Next(time.Now().Add(eventWait)); err != nil {
		t.Fatal(err)
	}
	var res result
	select {
	case res = <-got:
	case <-time.After(eventWait):
		t.Fatal("xterm printed nothing")
	}
	b, err := res.b, res.err
	if err != nil {
		t.Fatalf("reading xterm's print: %v", err)
	}
	rows, attrs, sizes, err := parsePrint(string(b))
	if err != nil {
		t.Fatalf("page after event #%d: %v", e.Seq, err)
	}
	return makeScreen(e, rows, attrs, sizes)
}

// parsePrint reads xterm's print of a screen (printAttributes 1): per
// line ESC # d (the line's size), then the characters, ended by CR LF.
// xterm's printLine (print.c) compares each cell's renditions with a
// variable it sets back to none at every column, so it writes an SGR
// right before every character that has renditions and none before one
// that has none (not even the SGR 0 that would end a run): a character
// has the renditions of the SGR right before it, else none.
func parsePrint(p string) (rows, attrs []string, sizes []byte, err error) {
	lines := strings.Split(strings.TrimSuffix(p, "\n"), "\n")
	if len(lines) != screenRows {
		return nil, nil, nil, fmt.Errorf("xterm printed %d lines, not %d: %q", len(lines), screenRows, p)
	}
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		size := byte('5')
		if len(l) >= 3 && l[0] == 0x1b && l[1] == '#' {
			size, l = l[2], l[3:]
		}
		var text strings.Builder
		var line []byte
		d := 0
		for len(l) > 0 {
			if strings.HasPrefix(l, "\x1b[") {
				end := strings.IndexByte(l, 'm')
				if end < 0 {
					return nil, nil, nil, fmt.Errorf("unterminated SGR in %q", l)
				}
				d = 0
				for _, ps := range strings.Split(l[2:end], ";") {
					switch ps {
					case "1":
						d |= 1
					case "4":
						d |= 2
					case "5":
						d |= 4
					case "7":
						d |= 8
					}
				}
				l = l[end+1:]
				continue
			}
			r, n := utf8.DecodeRuneInString(l)
			text.WriteRune(r)
			line = append(line, charDigit(r, d))
			d = 0
			l = l[n:]
		}
		rows = append(rows, text.String())
		attrs = append(attrs, string(line))
		sizes = append(sizes, size)
	}
	return rows, attrs, sizes, nil
}
