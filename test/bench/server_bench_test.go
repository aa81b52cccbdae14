//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Samples per sub-benchmark iteration (one iteration per make bench round).
const (
	cliReadSamples     = 300
	socketFreshSamples = 300
	socketReuseSamples = 500
	waitSocketSamples  = 15
	waitCLISamples     = 10
	waitPollSamples    = 6
	firstOutputSamples = 15
)

// dataCommand fills a pane with a few thousand lines, then keeps it open.
const (
	dataCommand = "seq -f 'line %g of the read benchmark: the quick brown fox jumps over the lazy dog' 1 3000; exec sleep 1000000"
	dataLast    = "line 3000 of the read benchmark"
	readLines   = 200
)

// BenchmarkCLIRead measures `paneflow read <pane> --lines 200` against
// `tmux capture-pane -p -S -200 -t <pane>`, each a process start as a user
// runs it, on a pane holding 3,000 lines. The two commands alternate, one
// sample each in turn, so drift in the machine's load (which moves a 3 ms
// process start by tenths of a millisecond over seconds) hits both sides
// alike. Metric: ms per command (median), reported by the sub-benchmarks
// paneflow and tmux.
func BenchmarkCLIRead(b *testing.B) {
	pf, id := startDataPaneflow(b)
	arg := strconv.FormatUint(id, 10)
	sides := []processSide{{name: "paneflow", mk: func() *exec.Cmd {
		return pf.cli("read", arg, "--lines", strconv.Itoa(readLines))
	}}}
	if why := tmuxMissing(); why != "" {
		b.Log(why)
	} else {
		t := startTmux(b)
		pane := t.window(b, dataCommand)
		t.waitCapture(b, pane, dataLast)
		sides = append(sides, processSide{name: "tmux", mk: func() *exec.Cmd {
			return t.s.Cmd("capture-pane", "-p", "-S", "-"+strconv.Itoa(readLines), "-t", pane)
		}})
	}
	reportProcesses(b, cliReadSamples, dataLast, sides)
}

// processSide is one command a process benchmark compares: mk returns a
// fresh *exec.Cmd for each sample.
type processSide struct {
	name string
	mk   func() *exec.Cmd
}

// reportProcesses runs every side's command samples times, the sides
// taking turns in a random order each round (after one unmeasured warm-up
// round), checks that each
// output contains want, and reports each side's median duration in ms as a
// sub-benchmark named after the side.
func reportProcesses(b *testing.B, samples int, want string, sides []processSide) {
	var out bytes.Buffer
	xs := make([][]float64, len(sides))
	for i := range samples + 1 {
		// A random order each round: a server's work after its command
		// ends (tmux, for one, tells its control-mode client) must not
		// always land on the same side's next sample.
		for _, j := range rand.Perm(len(sides)) {
			side := sides[j]
			d, err := timeProcess(side.mk(), &out)
			if err != nil {
				b.Fatalf("%s: %v", side.name, err)
			}
			if !strings.Contains(out.String(), want) {
				b.Fatalf("%s: output does not contain %q:\n%s", side.name, want, out.String())
			}
			if i > 0 {
				xs[j] = append(xs[j], ms(d))
			}
		}
	}
	for j, side := range sides {
		b.Run(side.name, func(b *testing.B) { b.ReportMetric(median(xs[j]), "ms") })
	}
}

// BenchmarkSocketRead measures surface.read of 200 lines over the socket:
// on a fresh connection per request (dial, request, reply, close: one CLI
// call without the process start) and on a reused connection, against
// capture-pane -S -200 sent over a tmux control-mode connection. The time
// ends when the whole reply has arrived; it is checked afterwards. Metric:
// ms per request (median).
func BenchmarkSocketRead(b *testing.B) {
	params := func(id uint64) map[string]any { return map[string]any{"surface_id": id, "lines": readLines} }
	b.Run("fresh", func(b *testing.B) {
		b.Run("paneflow", func(b *testing.B) {
			pf, id := startDataPaneflow(b)
			// Every connection is new, so one request line serves all.
			req, reqID, err := (&rpcConn{}).encode("surface.read", params(id))
			if err != nil {
				b.Fatal(err)
			}
			reportRequests(b, socketFreshSamples, func() (time.Duration, error) {
				start := time.Now()
				fc, err := dialRPC(pf.sock)
				if err != nil {
					return 0, err
				}
				line, err := fc.exchange(req)
				fc.Close()
				d := time.Since(start)
				if err != nil {
					return 0, err
				}
				return d, checkRead(line, reqID)
			})
		})
	})
	b.Run("reused", func(b *testing.B) {
		b.Run("paneflow", func(b *testing.B) {
			pf, id := startDataPaneflow(b)
			c := pf.dial(b)
			p := params(id)
			reportRequests(b, socketReuseSamples, func() (time.Duration, error) {
				req, reqID, err := c.encode("surface.read", p)
				if err != nil {
					return 0, err
				}
				start := time.Now()
				line, err := c.exchange(req)
				d := time.Since(start)
				if err != nil {
					return 0, err
				}
				return d, checkRead(line, reqID)
			})
		})
		b.Run("tmux", func(b *testing.B) {
			t := startTmux(b)
			pane := t.window(b, dataCommand)
			t.waitCapture(b, pane, dataLast)
			line := fmt.Sprintf("capture-pane -p -S -%d -t %s", readLines, pane)
			reportRequests(b, socketReuseSamples, func() (time.Duration, error) {
				start := time.Now()
				out, err := t.command(line)
				d := time.Since(start)
				if err != nil {
					return 0, err
				}
				if want := readLines + srvRows; len(out) != want {
					return 0, fmt.Errorf("capture-pane returned %d lines, want %d", len(out), want)
				}
				return d, nil
			})
		})
	})
}

// startDataPaneflow starts a server with a pane showing dataCommand's
// lines.
func startDataPaneflow(b *testing.B) (*pfServer, uint64) {
	pf := startPaneflow(b)
	c := pf.dial(b)
	id, err := split(c, dataCommand)
	if err != nil {
		b.Fatal(err)
	}
	waitPaneText(b, c, id, dataLast)
	return pf, id
}

// checkRead checks a surface.read reply line: 200 lines ending with the
// pane's last line.
func checkRead(line []byte, id int64) error {
	var r readResult
	if err := decodeReply(line, id, &r); err != nil {
		return err
	}
	if r.Lines != readLines || !strings.Contains(r.Text, dataLast) {
		return fmt.Errorf("surface.read returned %d lines, want %d ending with %q", r.Lines, readLines, dataLast)
	}
	return nil
}

// reportRequests runs req samples times per iteration (after 20 warm-up
// requests); req returns the duration it measured. It reports the median
// in ms.
func reportRequests(b *testing.B, samples int, req func() (time.Duration, error)) {
	var xs []float64
	for i := range b.N*samples + 20 {
		d, err := req()
		if err != nil {
			b.Fatal(err)
		}
		if i >= 20 {
			xs = append(xs, ms(d))
		}
	}
	b.ReportMetric(median(xs), "ms")
}

// benchFIFO is a FIFO through which a benchmark signals the programs in its
// panes: the mark helper, or the flood's panes waiting for their start.
type benchFIFO struct {
	path string
	f    *os.File
}

// newFIFO creates a FIFO for b, removed when b ends. The benchmark holds
// it open for reading and writing, so opening it never blocks either side
// and bytes written stay until a pane reads them.
func newFIFO(b testing.TB) *benchFIFO {
	b.Helper()
	dir, err := os.MkdirTemp("", "pfb-fifo-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return &benchFIFO{path: path, f: f}
}

// markCommand is the shell command line that runs the mark helper on this
// FIFO.
func (m *benchFIFO) markCommand(b testing.TB) string {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("%s=%s %s=%s exec %s", helperEnv, markHelper, fifoEnv, shQuote(m.path), shQuote(exe))
}

// trigger makes the mark helper print "MARK <tag> <nanos>".
func (m *benchFIFO) trigger(tag string) error {
	_, err := io.WriteString(m.f, tag+"\n")
	return err
}

// gated returns a shell command line that waits for one line on this FIFO,
// then runs command.
func (m *benchFIFO) gated(command string) string {
	return "read _ < " + shQuote(m.path) + "; " + command
}

// release lets n gated commands run.
func (m *benchFIFO) release(n int) error {
	_, err := m.f.Write(bytes.Repeat([]byte("\n"), n))
	return err
}

// markSeen is a waiter's report: the matching line and when the waiter
// received it.
type markSeen struct {
	line string
	at   time.Time
	err  error
}

// Retriggers of one wait-delay sample: a waiter that was not listening yet
// when the line was printed (a slow machine) gets a new line.
const markAttempts = 5

// measureMark waits arm for the waiter to be in place, makes the helper
// print the tagged line, and returns the delay between printing and the
// waiter's receipt, in ms. When the waiter reports nothing within patience,
// the line is printed again; the delay is measured from the printing of the
// line the waiter reports.
func measureMark(b *testing.B, fifo *benchFIFO, tag string, arm, patience time.Duration, seen <-chan markSeen) float64 {
	b.Helper()
	time.Sleep(arm)
	for attempt := range markAttempts {
		if err := fifo.trigger(tag); err != nil {
			b.Fatal(err)
		}
		select {
		case s := <-seen:
			if s.err != nil {
				b.Fatal(s.err)
			}
			printed, err := markNanos(s.line, tag)
			if err != nil {
				b.Fatal(err)
			}
			if attempt > 0 {
				b.Logf("mark %s: the waiter needed %d prints", tag, attempt+1)
			}
			return ms(time.Duration(s.at.UnixNano() - printed))
		case <-time.After(patience):
		}
	}
	b.Fatalf("mark %s: no waiter saw it after %d prints", tag, markAttempts)
	return 0
}

// markNanos returns the timestamp of a "MARK <tag> <nanos>" line.
func markNanos(line, tag string) (int64, error) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "MARK" || f[1] != tag {
		return 0, fmt.Errorf("got line %q, want MARK %s <nanos>", line, tag)
	}
	return strconv.ParseInt(f[2], 10, 64)
}

// waitResult is surface.wait's reply.
type waitResult struct {
	Matched bool `json:"matched"`
	Matches []struct {
		Lines []string `json:"lines"`
	} `json:"matches"`
}

// line returns the last matching line.
func (r waitResult) line() (string, error) {
	if !r.Matched || len(r.Matches) == 0 || len(r.Matches[0].Lines) == 0 {
		return "", fmt.Errorf("surface.wait: got %+v, want a match", r)
	}
	l := r.Matches[0].Lines
	return l[len(l)-1], nil
}

// BenchmarkWaitDelay measures how long after a line is printed in a pane a
// waiter sees it: a surface.wait request already in flight on the socket
// against a tmux control-mode client's %output (socket), and the CLI
// `paneflow wait --pattern` against polling tmux capture-pane every 500 ms,
// as the original app did (cli). The pane runs the mark helper, which
// prints "MARK <tag> <unix nanos>"; the delay is the waiter's receipt time
// minus the printed time. Metric: ms (median).
func BenchmarkWaitDelay(b *testing.B) {
	b.Run("socket", func(b *testing.B) {
		b.Run("paneflow", func(b *testing.B) {
			pf, id, fifo := startMarkPaneflow(b)
			var xs []float64
			for i := range b.N * waitSocketSamples {
				tag := fmt.Sprintf("s%d", i)
				wc, err := dialRPC(pf.sock)
				if err != nil {
					b.Fatal(err)
				}
				reqID, err := wc.send("surface.wait", map[string]any{
					"surface_ids": []uint64{id}, "pattern": "MARK " + tag + " ", "timeout_ms": 25000})
				if err != nil {
					b.Fatal(err)
				}
				seen := make(chan markSeen, 1)
				go func() {
					reply, err := wc.readLine()
					at := time.Now()
					var r waitResult
					if err == nil {
						err = decodeReply(reply, reqID, &r)
					}
					line, lerr := r.line()
					seen <- markSeen{line: line, at: at, err: errors.Join(err, lerr)}
				}()
				xs = append(xs, measureMark(b, fifo, tag, 30*time.Millisecond, 2*time.Second, seen))
				wc.Close()
			}
			b.ReportMetric(median(xs), "ms")
		})
		b.Run("tmux", func(b *testing.B) {
			t, pane, fifo := startMarkTmux(b)
			var xs []float64
			for i := range b.N * waitSocketSamples {
				tag := fmt.Sprintf("s%d", i)
				seen := make(chan markSeen, 1)
				go func() {
					line, at, err := t.out.waitLine(pane, "MARK "+tag+" ", 25*time.Second)
					seen <- markSeen{line: line, at: at, err: err}
				}()
				xs = append(xs, measureMark(b, fifo, tag, 30*time.Millisecond, 2*time.Second, seen))
			}
			b.ReportMetric(median(xs), "ms")
		})
	})
	b.Run("cli", func(b *testing.B) {
		b.Run("paneflow", func(b *testing.B) {
			pf, id, fifo := startMarkPaneflow(b)
			arg := strconv.FormatUint(id, 10)
			var xs []float64
			for i := range b.N * waitCLISamples {
				tag := fmt.Sprintf("c%d", i)
				cmd := pf.cli("wait", "--match", arg, "--pattern", "MARK "+tag+" ", "--timeout", "25")
				seen := make(chan markSeen, 1)
				var wg sync.WaitGroup
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					b.Fatal(err)
				}
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				wg.Go(func() { seen <- readCLIWait(cmd, stdout, &stderr) })
				xs = append(xs, measureMark(b, fifo, tag, 150*time.Millisecond, 2*time.Second, seen))
				wg.Wait()
			}
			b.ReportMetric(median(xs), "ms")
		})
		b.Run("tmux", func(b *testing.B) {
			t, pane, fifo := startMarkTmux(b)
			var xs []float64
			for i := range b.N * waitPollSamples {
				tag := fmt.Sprintf("p%d", i)
				seen := make(chan markSeen, 1)
				stop := make(chan struct{})
				go pollCapture(t, pane, "MARK "+tag+" ", 500*time.Millisecond, seen, stop)
				// The line is printed at a random moment of the polling
				// period, as output arrives whenever the program likes.
				arm := time.Duration(rand.Int64N(int64(500 * time.Millisecond)))
				xs = append(xs, measureMark(b, fifo, tag, arm, 3*time.Second, seen))
				close(stop)
			}
			b.ReportMetric(median(xs), "ms")
		})
	})
}

// startMarkPaneflow starts a server with the mark helper in a pane.
func startMarkPaneflow(b *testing.B) (*pfServer, uint64, *benchFIFO) {
	pf := startPaneflow(b)
	c := pf.dial(b)
	fifo := newFIFO(b)
	id, err := split(c, fifo.markCommand(b))
	if err != nil {
		b.Fatal(err)
	}
	waitPaneText(b, c, id, markReady)
	return pf, id, fifo
}

// startMarkTmux starts a tmux server with the mark helper in a pane of the
// control client's session.
func startMarkTmux(b *testing.B) (*tmuxSide, string, *benchFIFO) {
	t := startTmux(b)
	fifo := newFIFO(b)
	pane := t.window(b, fifo.markCommand(b))
	t.waitCapture(b, pane, markReady)
	return t, pane, fifo
}

// readCLIWait reads `paneflow wait`'s output: the time its first bytes
// arrive is the receipt time; the whole output is the matched JSON.
func readCLIWait(cmd interface{ Wait() error }, stdout io.Reader, stderr *bytes.Buffer) markSeen {
	br := bufio.NewReader(stdout)
	if _, err := br.Peek(1); err != nil {
		werr := cmd.Wait()
		return markSeen{err: fmt.Errorf("paneflow wait printed nothing: %v %v: %s", err, werr, stderr.String())}
	}
	at := time.Now()
	out, err := io.ReadAll(br)
	if werr := cmd.Wait(); werr != nil || err != nil {
		return markSeen{err: fmt.Errorf("paneflow wait: %v %v: %s", werr, err, stderr.String())}
	}
	var r waitResult
	if err := json.Unmarshal(out, &r); err != nil {
		return markSeen{err: fmt.Errorf("paneflow wait: %v in %q", err, out)}
	}
	line, err := r.line()
	return markSeen{line: line, at: at, err: err}
}

// pollCapture runs tmux capture-pane every period until the screen shows a
// line containing text, then reports that line with the time the capture
// returned.
func pollCapture(t *tmuxSide, pane, text string, period time.Duration, seen chan<- markSeen, stop <-chan struct{}) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		out, err := t.s.Command("capture-pane", "-p", "-t", pane)
		at := time.Now()
		if err != nil {
			seen <- markSeen{err: err}
			return
		}
		if i := strings.Index(out, text); i >= 0 {
			line, _, _ := strings.Cut(out[i:], "\n")
			seen <- markSeen{line: line, at: at}
			return
		}
		select {
		case <-tick.C:
		case <-stop:
			return
		}
	}
}

// firstOutput is what the first-output benchmarks run in the new pane.
const firstOutput = "first-output"

// BenchmarkFirstOutput measures creating a pane whose program prints a
// line, until that line is seen: surface.split over the socket, the pane's
// output seen through events.subscribe and surface.read, against tmux
// split-window sent over a control-mode client, the output seen as %output
// (socket); and the same through a process start each, `paneflow split`
// against `tmux split-window` (cli). Metric: ms (median).
func BenchmarkFirstOutput(b *testing.B) {
	for _, via := range []string{"socket", "cli"} {
		b.Run(via, func(b *testing.B) {
			b.Run("paneflow", func(b *testing.B) { benchFirstOutputPaneflow(b, via == "cli") })
			b.Run("tmux", func(b *testing.B) { benchFirstOutputTmux(b, via == "cli") })
		})
	}
}

// benchFirstOutputPaneflow measures one side of BenchmarkFirstOutput. The
// output is watched with events.subscribe, opened before the split, rather
// than with surface.wait: a wait counts only output that appears after it
// starts, and `echo` may print before a wait sent after the split's reply
// is in place.
func benchFirstOutputPaneflow(b *testing.B, cli bool) {
	pf := startPaneflow(b)
	c := pf.dial(b)
	ev := subscribeChanges(b, pf)
	var out bytes.Buffer
	var xs []float64
	for range b.N * firstOutputSamples {
		start := time.Now()
		var id uint64
		if cli {
			if _, err := timeProcess(pf.cli("split", "h", "--command", "echo "+firstOutput), &out); err != nil {
				b.Fatal(err)
			}
			var r splitResult
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				b.Fatalf("paneflow split printed %q: %v", out.String(), err)
			}
			id = r.SurfaceID
		} else {
			var err error
			if id, err = split(c, "echo "+firstOutput); err != nil {
				b.Fatal(err)
			}
		}
		at, err := seeOutput(c, ev, id, firstOutput)
		if err != nil {
			b.Fatal(err)
		}
		xs = append(xs, ms(at.Sub(start)))
		if err := c.call("surface.close", map[string]any{"surface_id": id}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(median(xs), "ms")
}

// seeOutput returns when pane id's text first contains text: it reads the
// pane, and again after each surface_changed event for it.
func seeOutput(c *rpcConn, ev *changeLog, id uint64, text string) (time.Time, error) {
	deadline := time.Now().Add(setupTimeout)
	for {
		n, ch := ev.count(id)
		r, err := readPane(c, id, 5)
		if err != nil {
			return time.Time{}, err
		}
		if strings.Contains(r.Text, text) {
			return time.Now(), nil
		}
		if err := ev.waitAfter(id, n, ch, time.Until(deadline)); err != nil {
			return time.Time{}, fmt.Errorf("surface %d: no %q: %v; it shows %q", id, text, err, r.Text)
		}
	}
}

// changeLog counts surface_changed events per surface from an
// events.subscribe stream.
type changeLog struct {
	mu      sync.Mutex
	counts  map[uint64]int
	changed chan struct{} // closed and replaced on every event
	err     error         // the stream's end
}

// subscribeChanges opens an events.subscribe stream for surface_changed
// events of every surface, read until b ends.
func subscribeChanges(b *testing.B, pf *pfServer) *changeLog {
	sc, err := dialRPC(pf.sock)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sc.Close)
	if _, err := sc.send("events.subscribe", map[string]any{"types": []string{"surface_changed"}}); err != nil {
		b.Fatal(err)
	}
	if err := sc.nc.SetDeadline(time.Time{}); err != nil {
		b.Fatal(err)
	}
	first, err := sc.br.ReadBytes('\n')
	if err != nil || !bytes.Contains(first, []byte(`"subscribed"`)) {
		b.Fatalf("events.subscribe: got %q, %v; want the subscribed frame", first, err)
	}
	l := &changeLog{counts: map[uint64]int{}, changed: make(chan struct{})}
	go func() {
		var f struct {
			Type      string `json:"type"`
			SurfaceID uint64 `json:"surface_id"`
		}
		for {
			line, err := sc.br.ReadBytes('\n')
			l.mu.Lock()
			if err != nil {
				l.err = err
				close(l.changed)
				l.mu.Unlock()
				return
			}
			f.Type, f.SurfaceID = "", 0
			if json.Unmarshal(line, &f) == nil && f.Type == "surface_changed" {
				l.counts[f.SurfaceID]++
				close(l.changed)
				l.changed = make(chan struct{})
			}
			l.mu.Unlock()
		}
	}()
	return l
}

// count returns the number of events for id so far, and a channel closed
// at the next event.
func (l *changeLog) count(id uint64) (int, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[id], l.changed
}

// waitAfter waits until id has more than n events.
func (l *changeLog) waitAfter(id uint64, n int, ch <-chan struct{}, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		select {
		case <-ch:
		case <-deadline:
			return errors.New("no surface_changed event")
		}
		l.mu.Lock()
		got, err := l.counts[id], l.err
		ch = l.changed
		l.mu.Unlock()
		if got > n {
			return nil
		}
		if err != nil {
			return fmt.Errorf("event stream ended: %v", err)
		}
	}
}

// benchFirstOutputTmux measures the tmux side of BenchmarkFirstOutput: the
// new pane splits an idle one and runs `echo first-output; sleep 100`
// (tmux closes a pane whose program exits).
func benchFirstOutputTmux(b *testing.B, cli bool) {
	t := startTmux(b)
	base := t.window(b, "exec sleep 1000000")
	cmdline := "echo " + firstOutput + "; sleep 100"
	var out bytes.Buffer
	var xs []float64
	for range b.N * firstOutputSamples {
		start := time.Now()
		var pane string
		if cli {
			if _, err := timeProcess(t.s.Cmd("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", base, cmdline), &out); err != nil {
				b.Fatal(err)
			}
			pane = strings.TrimSpace(out.String())
		} else {
			lines, err := t.command(fmt.Sprintf("split-window -d -P -F '#{pane_id}' -t %s '%s'", base, cmdline))
			if err != nil {
				b.Fatal(err)
			}
			if len(lines) != 1 {
				b.Fatalf("split-window -P printed %q, want a pane id", lines)
			}
			pane = lines[0]
		}
		_, at, err := t.out.waitLine(pane, firstOutput, setupTimeout)
		if err != nil {
			b.Fatal(err)
		}
		xs = append(xs, ms(at.Sub(start)))
		if _, err := t.command("kill-pane -t " + pane); err != nil {
			b.Fatal(err)
		}
		t.out.forget(pane)
	}
	b.ReportMetric(median(xs), "ms")
}
