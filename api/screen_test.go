//go:build !windows

package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/attach"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// mirrorMatches waits until pane p's mirror (scrolled back offset lines)
// shows what the server's emulator shows, cell for cell, with its
// scrollback length and bell count.
func mirrorMatches(t testing.TB, p *attach.Pane, emu *terminal.Emulator, offset int) {
	t.Helper()
	deadline := time.After(testDeadline)
	var got, want terminal.Snapshot
	for {
		_, ch := p.Watch()
		p.Snapshot(&got, offset)
		emu.SnapshotAt(&want, offset)
		d := attach.Diff(&got, &want)
		if d == "" && (p.HistoryLen() != emu.HistoryLen() || p.Bells() != emu.Bells()) {
			d = fmt.Sprintf("history %d bells %d, want %d %d", p.HistoryLen(), p.Bells(), emu.HistoryLen(), emu.Bells())
		}
		if d == "" {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("pane %d: the mirror never matched: %s", p.ID(), d)
		}
	}
}

// waitCatBack waits until the line typed into a pane running cat shows
// twice: the tty's echo and cat's copy.
func waitCatBack(t testing.TB, emu *terminal.Emulator, line string) {
	t.Helper()
	for deadline := time.After(testDeadline); ; {
		_, ch := emu.Watch()
		if w, _ := emu.ReadText(4000, 0); strings.Count(w.Text, line) >= 2 {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%q never came back twice (the tty's echo and cat's copy)", line)
		}
	}
}

func dialAttach(t testing.TB, srv *ipc.Server, o attach.Options) *attach.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	c, err := attach.Dial(ctx, srv.Path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestScreenAttachMirrors: a real program's output, styles, wide
// characters, clusters, links and modes arrive cell for cell; input and
// resize go back; scrollback comes on demand.
func TestScreenAttachMirrors(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	srv := ipctest.Start(t, e.reg)
	sf := e.split(`seq 1 3000; printf '\033[1;31mred\033[0m 漢字 e\314\201 \033]8;;https://x.test\033\\link\033]8;;\033\\ \033[?2004h\033]0;T\007\n'; exec cat`)
	waitText(t, sf, "link")
	c := dialAttach(t, srv, attach.Options{Surfaces: []uint64{sf.ID()}})
	p := c.Pane(sf.ID())
	emu := sf.Terminal().Emulator()
	mirrorMatches(t, p, emu, 0)
	if p.HistoryLen() != emu.HistoryLen() || p.HistoryLen() < 2900 {
		t.Errorf("history %d, want %d", p.HistoryLen(), emu.HistoryLen())
	}
	mirrorMatches(t, p, emu, 1500) // scrollback fetched on demand
	mirrorMatches(t, p, emu, 100000)
	if got, want := p.Lines(10, 2500), emu.Lines(10, 2500); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Lines: %d lines, want %d", len(got), len(want))
	}
	if err := p.SendInput([]byte("typed back\n")); err != nil {
		t.Fatal(err)
	}
	// The tty echoes the line, then cat writes it: wait for both, or
	// cat's copy can land after ClearScrollback below and scroll a line
	// back into the history the test expects empty.
	waitCatBack(t, emu, "typed back")
	mirrorMatches(t, p, emu, 0)
	if err := p.Resize(50, 12); err != nil {
		t.Fatal(err)
	}
	mirrorMatches(t, p, emu, 0)
	var s terminal.Snapshot
	p.Snapshot(&s, 0)
	if s.Cols != 50 || s.Rows != 12 {
		t.Errorf("size after resize %dx%d", s.Cols, s.Rows)
	}
	p.ClearScrollback()
	mirrorMatches(t, p, emu, 0)
	if p.HistoryLen() != 0 {
		t.Errorf("history after clear %d", p.HistoryLen())
	}

	// Writes need a live attachment's token.
	_, err := proto.Client{Caller: ipctest.Client(srv)}.ScreenInput(context.Background(),
		proto.ScreenInputParams{Token: "nope", SurfaceID: sf.ID(), Data: []byte("x")})
	if ie := rpcErr(t, err); ie.Code != ipc.CodeInvalidParams {
		t.Errorf("input with a bad token: %v", err)
	}
	if err := e.m.CloseSurface(sf.ID()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Closed():
	case <-time.After(testDeadline):
		t.Fatal("no screen_closed for a closed pane")
	}
	if ids := c.Panes(); len(ids) != 0 {
		t.Errorf("panes %v after the only one closed", ids)
	}
}

// TestScreenAttachAllPanes: attaching to every pane includes the ones
// created later; an unknown pane is an error.
func TestScreenAttachAllPanes(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	srv := ipctest.Start(t, e.reg)
	c := dialAttach(t, srv, attach.Options{})
	sf := e.split(`echo LATER; exec cat`)
	waitText(t, sf, "LATER")
	mirrorMatches(t, c.Pane(sf.ID()), sf.Terminal().Emulator(), 0)
	first, _ := e.m.Surface(1)
	mirrorMatches(t, c.Pane(1), first.Terminal().Emulator(), 0)

	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	_, err := attach.Dial(ctx, srv.Path, attach.Options{Surfaces: []uint64{999}})
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams {
		t.Errorf("attach to an unknown pane: %v", err)
	}
}

// TestScreenAttachSlowClient: a client that never reads holds up neither
// the flooding pane nor another client; when it reads again it gets the
// final screen, not the backlog.
func TestScreenAttachSlowClient(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	srv := ipctest.Start(t, e.reg)
	// 1,500 different lines of 200 cells in changing colours: each frame
	// of the flood is a full screen of 200-run rows (about 80 KB), so the
	// stalled client's socket buffers fill within a few frames.
	sf := e.split(`read go; awk 'BEGIN{for(i=0;i<1500;i++){printf "%d", i; for(j=0;j<100;j++) printf "\033[3%dmA\033[3%dmB", (i+j)%8, (i+j+1)%8; print ""}}'; echo FLOOD-DONE; exec cat`)
	emu := sf.Terminal().Emulator()
	if err := e.m.Resize(sf.ID(), 200, 50); err != nil {
		t.Fatal(err)
	}

	// The stalled client: a raw connection that asks for frames at the
	// highest rate and reads nothing.
	nc, err := net.Dial("unix", srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprintf(nc, `{"jsonrpc":"2.0","id":1,"method":"screen.attach","params":{"surfaces":[%d],"fps":240}}`+"\n", sf.ID())

	good := dialAttach(t, srv, attach.Options{Surfaces: []uint64{sf.ID()}})
	if err := sf.Terminal().SendInput([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	waitText(t, sf, "FLOOD-DONE") // the pane was never held up
	mirrorMatches(t, good.Pane(sf.ID()), emu, 0)

	// Now read the stalled stream: what it gets ends at the final screen.
	frames, n := readUntilMatch(t, nc, emu)
	t.Logf("the stalled client then read %d frames, %d bytes", frames, n)
	// What waited for it is what the socket buffers hold plus the frame
	// being written, not the flood (24 MB of output, hundreds of frames).
	if n > 8<<20 {
		t.Errorf("the stalled client read %d bytes after the flood, want what the socket holds", n)
	}
}

// readUntilMatch reads screen.attach frames from nc into a mirror until
// it shows what emu shows; it returns the frames and bytes read.
func readUntilMatch(t testing.TB, nc net.Conn, emu *terminal.Emulator) (frames, n int) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(testDeadline))
	r := bufio.NewReaderSize(nc, ipc.MaxFrame)
	var m attach.Mirror
	var want terminal.Snapshot
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			emu.Snapshot(&want)
			t.Fatalf("reading after %d frames: %v; mirror: %s", frames, err, attach.Diff(&m.Screen, &want))
		}
		frames++
		n += len(line)
		var f proto.ScreenFrame
		if err := json.Unmarshal(line, &f); err != nil {
			t.Fatal(err)
		}
		if f.Type != proto.FrameScreen {
			continue
		}
		if err := m.Apply(&f); err != nil {
			t.Fatal(err)
		}
		emu.Snapshot(&want)
		if attach.Diff(&m.Screen, &want) == "" {
			return frames, n
		}
	}
}

// frameLog is a FrameWriter that keeps the frames, optionally holding each
// write until the test lets it through (a client whose socket is full).
type frameLog struct {
	frames  chan []byte
	hold    chan struct{} // nil: never hold
	waiting chan struct{} // with hold: told before each held write
}

func (l *frameLog) WriteFrame(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if l.hold != nil {
		l.waiting <- struct{}{}
		<-l.hold
	}
	l.frames <- b
	return nil
}

// attachPane attaches to pane id alone at 10 frames a second on a
// frameLog that never holds, checks that the first frame is full, and
// returns the log and the attachment's token.
func attachPane(t *testing.T, e *env, id uint64) (*frameLog, string) {
	t.Helper()
	l := &frameLog{frames: make(chan []byte, 64)}
	tok := startAttach(t, e, fmt.Sprintf(`{"surfaces":[%d],"fps":10}`, id), l)
	if f := l.nextScreen(t); !f.Full {
		t.Fatalf("first frame %+v, want full", f)
	}
	return l, tok
}

// heldFrameLog returns a frameLog that holds each write until the test
// lets it through (l.waiting, then l.hold), except the first: the
// attached frame goes through by itself.
func heldFrameLog() *frameLog {
	l := &frameLog{frames: make(chan []byte, 64), hold: make(chan struct{}), waiting: make(chan struct{})}
	go func() {
		<-l.waiting
		l.hold <- struct{}{}
	}()
	return l
}

// nextScreen returns the next frame, which must be a screen frame.
func (l *frameLog) nextScreen(t *testing.T) proto.ScreenFrame {
	t.Helper()
	select {
	case b := <-l.frames:
		var f proto.ScreenFrame
		if err := json.Unmarshal(b, &f); err != nil || f.Type != proto.FrameScreen {
			t.Fatalf("frame %s, want a screen frame (%v)", b, err)
		}
		return f
	case <-time.After(testDeadline):
		t.Fatal("no frame")
	}
	return proto.ScreenFrame{}
}

// none fails t when a frame was written already (when says when that
// was wrong).
func (l *frameLog) none(t *testing.T, when string) {
	t.Helper()
	select {
	case b := <-l.frames:
		t.Fatalf("a frame %s: %s", when, b)
	default:
	}
}

// startAttach runs screen.attach on the handler directly, its frames
// after the attached frame going to l, and returns the attachment's token.
func startAttach(t *testing.T, e *env, params string, l *frameLog) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.s.screenAttach(ctx, json.RawMessage(params), l); err != nil {
			t.Errorf("screen.attach: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		if l.hold != nil {
			close(l.hold)
			go func() {
				for range l.waiting {
				}
			}()
		}
		<-done
	})
	var ack proto.AttachedFrame
	select {
	case b := <-l.frames:
		if err := json.Unmarshal(b, &ack); err != nil || ack.Type != proto.FrameAttached || ack.Token == "" {
			t.Fatalf("first frame %s (%v)", b, err)
		}
	case <-time.After(testDeadline):
		t.Fatal("no attached frame")
	}
	return ack.Token
}

// TestScreenAttachPacing: on a fake clock, output after a frame waits for
// the frame interval, and everything written meanwhile goes out in one
// frame (latest wins).
func TestScreenAttachPacing(t *testing.T) {
	e, fc := newClockEnv(t)
	sf, _ := e.m.ActiveSurface()
	emu := sf.Terminal().Emulator()
	l, _ := attachPane(t, e, sf.ID())
	emu.Write([]byte("a"))
	armed(t, fc, 1) // the writer waits for the 100 ms interval
	emu.Write([]byte("b"))
	emu.Write([]byte("c"))
	select {
	case b := <-l.frames:
		t.Fatalf("a frame before the interval passed: %s", b)
	default:
	}
	fc.Advance(100 * time.Millisecond)
	f := l.nextScreen(t)
	if f.Full || len(f.Lines) != 1 || len(f.Lines[0].Runs) != 1 || f.Lines[0].Runs[0].Text != "abc" {
		t.Errorf("frame after the interval %+v, want one delta row with abc", f)
	}
}

// catAttached starts a pane whose program writes what it reads, raw,
// to the file out, and returns its mirror on an attached client.
func catAttached(t *testing.T) (p *attach.Pane, out string) {
	t.Helper()
	return catAttachedDial(t, nil)
}

// catAttachedDial is catAttached whose client makes its connections to
// the server's socket path with dial (nil: as usual).
func catAttachedDial(t *testing.T, dial func(ctx context.Context, path string) (net.Conn, error)) (p *attach.Pane, out string) {
	t.Helper()
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	srv := ipctest.Start(t, e.reg)
	out = filepath.Join(t.TempDir(), "got")
	sf := e.split("stty raw -echo; echo READY; exec cat > " + shellQuote(out))
	waitText(t, sf, "READY")
	o := attach.Options{Surfaces: []uint64{sf.ID()}}
	if dial != nil {
		o.Dial = func(ctx context.Context) (net.Conn, error) { return dial(ctx, srv.Path) }
	}
	return dialAttach(t, srv, o).Pane(sf.ID()), out
}

// TestScreenInputQueued: a window's SendInput queues (it returns without
// waiting for the server) and the bytes still reach the program whole and
// in order: 500 small writes (the first ones notifications, until a call
// shows the server read them; the rest merged into fewer calls), and one
// of 160 KiB, more than one screen.input call takes, split.
func TestScreenInputQueued(t *testing.T) {
	p, out := catAttached(t)
	var want bytes.Buffer
	for i := range 500 {
		b := fmt.Appendf(nil, "key %d\n", i)
		want.Write(b)
		if err := p.SendInput(b); err != nil {
			t.Fatal(err)
		}
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 10<<10)
	want.Write(big)
	if err := p.SendInput(big); err != nil {
		t.Fatal(err)
	}
	programGot(t, out, want.Bytes())
}

// programGot waits until the file out, where a pane's program writes what
// it reads, holds as many bytes as want, and fails unless they are want.
func programGot(t *testing.T, out string, want []byte) {
	t.Helper()
	var got []byte
	for deadline := time.Now().Add(testDeadline); len(got) < len(want); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the program got %d bytes of %d", len(got), len(want))
		}
		got, _ = os.ReadFile(out)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the program got %d bytes of %d, differing from what was sent at byte %d: %.60q, want %.60q",
			len(got), len(want), i, got[i:], want[min(i, len(want)):])
	}
}

// refusal is one Options.InputRefused report.
type refusal struct {
	id  uint64
	err error
}

// TestScreenInputRefusedReported: input the server refuses (here: to a
// pane that does not exist) is reported to Options.InputRefused with the
// server's reason, both a key SendInput wrote itself and input queued
// behind it; the pane the program runs in still gets its keys.
func TestScreenInputRefusedReported(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	srv := ipctest.Start(t, e.reg)
	out := filepath.Join(t.TempDir(), "got")
	sf := e.split("stty raw -echo; echo READY; exec cat > " + shellQuote(out))
	waitText(t, sf, "READY")
	refused := make(chan refusal, 16)
	c := dialAttach(t, srv, attach.Options{Surfaces: []uint64{sf.ID()}, InputRefused: func(id uint64, err error) {
		refused <- refusal{id, err}
	}})
	const ghost = 987654
	next := func() refusal {
		t.Helper()
		select {
		case r := <-refused:
			return r
		case <-time.After(testDeadline):
			t.Fatal("no refusal reported")
		}
		return refusal{}
	}
	check := func(r refusal, id uint64) {
		t.Helper()
		if r.id != id || r.err == nil || !strings.Contains(r.err.Error(), fmt.Sprintf("Surface not found: %d", id)) {
			t.Fatalf("refusal of pane %d: %v, want pane %d: Surface not found", r.id, r.err, id)
		}
	}
	// One key with nothing out: SendInput writes it itself.
	if err := c.Pane(ghost).SendInput([]byte("x")); err != nil {
		t.Fatal(err)
	}
	check(next(), ghost)
	// Two panes' keys at once: the second is queued behind the first
	// (different panes' input is never merged into one call).
	for _, id := range []uint64{ghost, ghost + 1} {
		if err := c.Pane(id).SendInput([]byte("y")); err != nil {
			t.Fatal(err)
		}
	}
	check(next(), ghost)
	check(next(), ghost+1)
	if err := c.Pane(sf.ID()).SendInput([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(testDeadline); ; time.Sleep(5 * time.Millisecond) {
		if got, _ := os.ReadFile(out); string(got) == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the program never got its keys")
		}
	}
	select {
	case r := <-refused:
		t.Fatalf("accepted input reported as refused: %d %v", r.id, r.err)
	default:
	}
}

// TestScreenInputKeysOneByOne: keys typed one at a time, each after the
// program got the one before (nothing queued or out: SendInput writes each
// request itself, ipc.Redialer.StartNow), and keys typed from several
// goroutines at once (queued behind a written one) all reach the program,
// each goroutine's in its order.
func TestScreenInputKeysOneByOne(t *testing.T) {
	p, out := catAttached(t)
	waitLen := func(n int) []byte {
		t.Helper()
		var got []byte
		for deadline := time.Now().Add(testDeadline); len(got) < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the program got %d bytes of %d: %q", len(got), n, got)
			}
			got, _ = os.ReadFile(out)
		}
		return got
	}
	var want []byte
	for i := range 20 {
		k := []byte{'a' + byte(i)}
		want = append(want, k...)
		if err := p.SendInput(k); err != nil {
			t.Fatal(err)
		}
		if got := waitLen(len(want)); !bytes.Equal(got, want) {
			t.Fatalf("the program got %q, want %q", got, want)
		}
	}
	const senders, keys = 4, 50
	var wg sync.WaitGroup
	for g := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys {
				if err := p.SendInput(fmt.Appendf(nil, "<%d:%d>", g, i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	n := len(want)
	for g := range senders {
		for i := range keys {
			n += len(fmt.Sprintf("<%d:%d>", g, i))
		}
	}
	got := waitLen(n)
	if !bytes.Equal(got[:len(want)], want) || len(got) != n {
		t.Fatalf("the program got %q, want %q then %d bytes", got, want, n-len(want))
	}
	next := make([]int, senders)
	for _, m := range regexp.MustCompile(`<(\d+):(\d+)>`).FindAllSubmatch(got[len(want):], -1) {
		g, _ := strconv.Atoi(string(m[1]))
		i, _ := strconv.Atoi(string(m[2]))
		if i != next[g] {
			t.Fatalf("sender %d's key %d came where its key %d was due: %q", g, i, next[g], got[len(want):])
		}
		next[g]++
	}
	for g, k := range next {
		if k != keys {
			t.Fatalf("sender %d: %d keys of %d arrived", g, k, keys)
		}
	}
}

// TestScreenAttachEchoNotPaced: on a fake clock, output within a frame
// interval of the client's own screen.input (a key's echo) is sent
// without waiting for the interval, also when it arrives while a paced
// round waits; input with another attachment's token does not unpace
// this one; once an interval has passed since the input, output is paced
// again.
func TestScreenAttachEchoNotPaced(t *testing.T) {
	e, fc := newClockEnv(t)
	sf, _ := e.m.ActiveSurface()
	emu := sf.Terminal().Emulator()
	l, tok := attachPane(t, e, sf.ID())
	_, other := e.s.attached.add("", fc.Now()) // another window's token
	input := func(tok string) {
		t.Helper()
		p, _ := json.Marshal(proto.ScreenInputParams{Token: tok, SurfaceID: sf.ID(), Data: []byte("k")})
		if _, err := e.s.screenInput(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	noFrame := func(when string) {
		t.Helper()
		l.none(t, when)
	}
	row := func(f proto.ScreenFrame) string {
		if f.Full || len(f.Lines) != 1 || len(f.Lines[0].Runs) != 1 {
			return fmt.Sprintf("%+v", f)
		}
		return f.Lines[0].Runs[0].Text
	}
	// until reads frames until one shows want (a round may have taken
	// part of the output before the rest arrived).
	until := func(want string) {
		t.Helper()
		for {
			f := l.nextScreen(t)
			got := row(f)
			if got == want {
				return
			}
			if !strings.HasPrefix(want, got) {
				t.Fatalf("frame %s, want a delta row %q", got, want)
			}
		}
	}

	// Output, then the client types while the round waits: the echo
	// goes at once with what was waiting.
	emu.Write([]byte("a"))
	armed(t, fc, 1) // the round waits for the 100 ms interval
	input(other)
	emu.Write([]byte("b"))
	noFrame("for another attachment's input before the interval passed")
	input(tok)
	emu.Write([]byte("c")) // the echo
	until("abc")
	// More output within the interval after the input: at once too.
	emu.Write([]byte("d"))
	until("abcd")

	// An interval after the input (and the last round): the first output
	// goes at once, the next waits for the interval again.
	fc.Advance(200 * time.Millisecond)
	emu.Write([]byte("e"))
	until("abcde")
	emu.Write([]byte("f"))
	armed(t, fc, 2)
	noFrame("for output an interval after the input, before the next interval passed")
	fc.Advance(100 * time.Millisecond)
	until("abcdef")
}

// TestScreenAttachEchoWatchesPane: the echo of a key reaches the stream
// from the typed pane's emulator itself, not through the manager's watch
// goroutine and the bus (here a bus nobody publishes to), for a first
// key and for the next ones.
func TestScreenAttachEchoWatchesPane(t *testing.T) {
	e, _ := newClockEnv(t)
	quiet := bus.New()
	t.Cleanup(quiet.Close)
	e.s.b = quiet
	sf, _ := e.m.ActiveSurface()
	emu := sf.Terminal().Emulator()
	l, tok := attachPane(t, e, sf.ID())
	echo := ""
	for _, k := range "abc" {
		p, _ := json.Marshal(proto.ScreenInputParams{Token: tok, SurfaceID: sf.ID(), Data: []byte{byte(k)}})
		if _, err := e.s.screenInput(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		emu.Write([]byte{byte(k)}) // the program's echo
		echo += string(k)
		for {
			f := l.nextScreen(t)
			if len(f.Lines) != 1 || len(f.Lines[0].Runs) != 1 {
				t.Fatalf("frame %+v, want the echo's row", f)
			}
			got := f.Lines[0].Runs[0].Text
			if got == echo {
				break
			}
			if !strings.HasPrefix(echo, got) {
				t.Fatalf("row %q, want %q", got, echo)
			}
		}
	}
}

// published waits until pane id's output up to generation gen was
// published on e's bus (sub, subscribed after the stream's, had it:
// Publish delivers in the order of subscription).
func published(t *testing.T, sub *bus.Subscription, id, gen uint64) {
	t.Helper()
	deadline := time.After(testDeadline)
	var evs []bus.Event
	for {
		evs, _ = sub.Drain(evs[:0])
		for _, e := range evs {
			if sc, ok := e.(bus.SurfaceChanged); ok && sc.SurfaceID == id && sc.Generation >= gen {
				return
			}
		}
		select {
		case <-sub.Ready():
		case <-deadline:
			t.Fatalf("pane %d's output generation %d was never published", id, gen)
		}
	}
}

// streamReceived is how many events the bus gave the subscription of
// the screen.attach stream whose token is tok.
func streamReceived(t *testing.T, e *env, tok string) uint64 {
	t.Helper()
	at, ok := e.s.attached.lookup(tok)
	if !ok {
		t.Fatal("no attachment")
	}
	name := "screen.attach#" + strconv.FormatUint(at.id, 10)
	for _, st := range e.b.Stats() {
		if st.Name == name {
			return st.Received
		}
	}
	t.Fatalf("no subscription %s", name)
	return 0
}

// TestScreenAttachWatchedPaneOffBus: while the stream watches the typed
// pane's emulator itself, that pane's output events on the bus do not
// reach the stream (each woke it a second time per echo, for output it
// had sent already); the echoes still come.
func TestScreenAttachWatchedPaneOffBus(t *testing.T) {
	e, _ := newClockEnv(t)
	sf, _ := e.m.ActiveSurface()
	emu := sf.Terminal().Emulator()
	l, tok := attachPane(t, e, sf.ID())
	seen := e.b.Subscribe("test", bus.MatchTypes(bus.TypeSurfaceChanged), 0)
	defer seen.Close()
	echo := ""
	key := func(k byte) {
		t.Helper()
		p, _ := json.Marshal(proto.ScreenInputParams{Token: tok, SurfaceID: sf.ID(), Data: []byte{k}})
		if _, err := e.s.screenInput(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		emu.Write([]byte{k}) // the program's echo
		echo += string(k)
		for {
			f := l.nextScreen(t)
			if len(f.Lines) != 1 || len(f.Lines[0].Runs) != 1 {
				t.Fatalf("frame %+v, want the echo's row", f)
			}
			if got := f.Lines[0].Runs[0].Text; got == echo {
				break
			} else if !strings.HasPrefix(echo, got) {
				t.Fatalf("row %q, want %q", got, echo)
			}
		}
		published(t, seen, sf.ID(), emu.Generation())
	}
	// The first key's echo may reach the bus before the stream watches
	// the pane; from its frame on the stream watches it (the clock
	// stands still: the typing goes on).
	key('a')
	before := streamReceived(t, e, tok)
	key('b')
	key('c')
	if n := streamReceived(t, e, tok) - before; n != 0 {
		t.Errorf("the stream's subscription received %d events for two echoes of the pane it watches, want 0", n)
	}
}

// TestScreenAttachUnwatchedPaneOutput: output of the typed pane that came
// while the stream watched it, but was not waiting on it (it was writing
// the echo's frame), and whose bus event it was therefore not given, is
// sent when the typing is over and the stream stops watching the pane.
func TestScreenAttachUnwatchedPaneOutput(t *testing.T) {
	e, fc := newClockEnv(t)
	sf, _ := e.m.ActiveSurface()
	emu := sf.Terminal().Emulator()
	l := heldFrameLog()
	tok := startAttach(t, e, fmt.Sprintf(`{"surfaces":[%d],"fps":10}`, sf.ID()), l)
	next := func() proto.ScreenFrame {
		t.Helper()
		select {
		case <-l.waiting:
		case <-time.After(testDeadline):
			t.Fatal("no frame")
		}
		l.hold <- struct{}{}
		return l.nextScreen(t)
	}
	if f := next(); !f.Full {
		t.Fatalf("first frame %+v, want full", f)
	}
	seen := e.b.Subscribe("test", bus.MatchTypes(bus.TypeSurfaceChanged), 0)
	defer seen.Close()
	p, _ := json.Marshal(proto.ScreenInputParams{Token: tok, SurfaceID: sf.ID(), Data: []byte("a")})
	if _, err := e.s.screenInput(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	emu.Write([]byte("a")) // the echo
	<-l.waiting            // its frame is encoded, the write held
	// Meanwhile the typing ends and the pane writes more.
	fc.Advance(typingFor)
	emu.Write([]byte("b"))
	published(t, seen, sf.ID(), emu.Generation())
	l.hold <- struct{}{}
	row := func(f proto.ScreenFrame) string {
		if len(f.Lines) != 1 || len(f.Lines[0].Runs) != 1 {
			t.Fatalf("frame %+v, want one row", f)
		}
		return f.Lines[0].Runs[0].Text
	}
	if got := row(l.nextScreen(t)); got != "a" {
		t.Fatalf("row %q, want the echo", got)
	}
	if got := row(next()); got != "ab" {
		t.Errorf("row %q after the typing, want %q", got, "ab")
	}
}

// TestScreenAttachLatestWins: while a write is held (the client's socket
// is full), output goes on; the next frame shows the latest screen.
func TestScreenAttachLatestWins(t *testing.T) {
	e, fc := newClockEnv(t)
	sf, _ := e.m.ActiveSurface()
	emu := sf.Terminal().Emulator()
	l := heldFrameLog()
	startAttach(t, e, fmt.Sprintf(`{"surfaces":[%d]}`, sf.ID()), l)
	<-l.waiting // the first screen frame is encoded, its write held
	// The pane goes on meanwhile.
	for i := range 500 {
		fmt.Fprintf(emu, "line %d\r\n", i)
	}
	l.hold <- struct{}{} // the first frame
	first := l.nextScreen(t)
	armed(t, fc, 1) // the next round waits for its interval
	fc.Advance(time.Second)
	<-l.waiting
	l.hold <- struct{}{} // the next one: the screen as it is now
	f := l.nextScreen(t)
	var m attach.Mirror
	if err := m.Apply(&first); err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(&f); err != nil {
		t.Fatal(err)
	}
	var want terminal.Snapshot
	emu.Snapshot(&want)
	if d := attach.Diff(&m.Screen, &want); d != "" {
		t.Errorf("after two frames the mirror differs: %s", d)
	}
	if f.Seq != 2 {
		t.Errorf("second frame seq %d", f.Seq)
	}
}

// TestScreenAttachCountsWindows: Options.Windows counts the attachments
// of every pane (a window's) while they last, not those of one pane (a
// browser's relay).
func TestScreenAttachCountsWindows(t *testing.T) {
	var w WindowCount
	e := newEnv(t, workspace.Options{}, Options{Windows: &w}).withWorkspace(t.TempDir())
	srv := ipctest.Start(t, e.reg)
	one := dialAttach(t, srv, attach.Options{Surfaces: []uint64{1}})
	if n := w.Count(); n != 0 {
		t.Errorf("one pane's attachment counts %d windows, want 0", n)
	}
	c := dialAttach(t, srv, attach.Options{})
	if n := w.Count(); n != 1 {
		t.Errorf("with a window attached: %d windows, want 1", n)
	}
	c.Close()
	one.Close()
	deadline := time.Now().Add(testDeadline)
	for w.Count() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d windows counted after the window detached, want 0", w.Count())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestScreenAttachTypedPaneFirst: while a client types into one pane and
// another floods, the typed pane's echo goes at once and before the
// flooding pane's pending frame, and the flooding pane gets at most
// typingOthersFPS frames a second on that client's stream, none within
// echoQuiet of a key, until the client has not typed for typingFor; then
// it is paced at the client's fps again.
func TestScreenAttachTypedPaneFirst(t *testing.T) {
	e, fc := newClockEnv(t)
	flood, _ := e.m.ActiveSurface()
	typed := e.split("") // the higher id: an order by id puts the flood first
	l := &frameLog{frames: make(chan []byte, 64)}
	tok := startAttach(t, e, `{"fps":50}`, l) // every pane, a 20 ms interval
	for range 2 {
		if f := l.nextScreen(t); !f.Full {
			t.Fatalf("first frame %+v, want full", f)
		}
	}
	waitTimer := func() { t.Helper(); waitPaced(t, fc) }
	noFrame := func(when string) {
		t.Helper()
		l.none(t, when)
	}
	next := func(want uint64, text string) {
		t.Helper()
		f := l.nextScreen(t)
		if f.SurfaceID != want || f.Full || len(f.Lines) != 1 || len(f.Lines[0].Runs) != 1 || f.Lines[0].Runs[0].Text != text {
			t.Fatalf("frame %+v, want pane %d's delta row %q", f, want, text)
		}
	}
	fc.Advance(time.Second)
	flood.Terminal().Emulator().Write([]byte("a"))
	next(flood.ID(), "a") // a second after the last frame: at once

	p, _ := json.Marshal(proto.ScreenInputParams{Token: tok, SurfaceID: typed.ID(), Data: []byte("k")})
	if _, err := e.s.screenInput(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	flood.Terminal().Emulator().Write([]byte("b"))
	typed.Terminal().Emulator().Write([]byte("k")) // the echo
	next(typed.ID(), "k")
	waitTimer()
	noFrame("of the flooding pane right after the echo")
	// Its frames while the client types: at most typingOthersFPS, none
	// within echoQuiet of the key.
	others := max(time.Second/typingOthersFPS, echoQuiet)
	fc.Advance(others / 2) // many intervals at 50 fps
	noFrame("of the flooding pane half its interval after its last while the client types")
	fc.Advance(others - others/2)
	next(flood.ID(), "ab")

	// A key just before the flooding pane is due again by its rate: it
	// waits until echoQuiet after the key, the window's paint of the echo.
	fc.Advance(time.Second/typingOthersFPS - 10*time.Millisecond)
	if _, err := e.s.screenInput(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	flood.Terminal().Emulator().Write([]byte("c"))
	waitTimer()
	fc.Advance(10 * time.Millisecond) // due by its rate, 10 ms after the key
	noFrame("of the flooding pane less than echoQuiet after a key")
	fc.Advance(echoQuiet - 10*time.Millisecond)
	next(flood.ID(), "abc")

	// Once the client stopped typing: the client's own pace again.
	fc.Advance(typingFor)
	flood.Terminal().Emulator().Write([]byte("d"))
	next(flood.ID(), "abcd")
	flood.Terminal().Emulator().Write([]byte("e"))
	waitTimer()
	noFrame("before the interval passed")
	fc.Advance(20 * time.Millisecond)
	next(flood.ID(), "abcde")
}

// closeWatchConn is a client connection that tells when a read on it
// failed: the server closed it.
type closeWatchConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
	// stream: the connection carried screen.attach (attach.Dial opens
	// the stream and the call connection at once, in either order).
	stream atomic.Bool
}

func (c *closeWatchConn) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(`"`+proto.MethodScreenAttach+`"`)) {
		c.stream.Store(true)
	}
	return c.Conn.Write(b)
}

func (c *closeWatchConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil {
		c.once.Do(func() { close(c.closed) })
	}
	return n, err
}

// TestScreenAttachCallsAfterIdleClose: the server closes the attachment's
// call connection once it sent nothing for the idle timeout (30 s in the
// product; the stream has no such limit); the window's input, resize and
// scrollback still reach the server afterwards (issue 26: after the key
// echo benchmark's 30 s pause, every key of the attached window was
// dropped while its screen kept updating).
func TestScreenAttachCallsAfterIdleClose(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	srv := ipctest.StartServer(t, &ipc.Server{Registry: e.reg, IdleTimeout: time.Second})
	sf := e.split(`seq 1 300; echo READY; exec cat`)
	waitText(t, sf, "READY")
	var mu sync.Mutex
	var conns []*closeWatchConn
	c := dialAttach(t, srv, attach.Options{Surfaces: []uint64{sf.ID()}, Dial: func(ctx context.Context) (net.Conn, error) {
		nc, err := new(net.Dialer).DialContext(ctx, "unix", srv.Path)
		if err != nil {
			return nil, err
		}
		cw := &closeWatchConn{Conn: nc, closed: make(chan struct{})}
		mu.Lock()
		conns = append(conns, cw)
		mu.Unlock()
		return cw, nil
	}})
	p := c.Pane(sf.ID())
	emu := sf.Terminal().Emulator()
	mirrorMatches(t, p, emu, 0)
	mu.Lock()
	if len(conns) != 2 {
		t.Fatalf("%d connections after Dial, want 2 (the stream, the calls)", len(conns))
	}
	stream, calls := conns[0], conns[1]
	if calls.stream.Load() {
		stream, calls = calls, stream
	}
	mu.Unlock()
	if !stream.stream.Load() || calls.stream.Load() {
		t.Fatalf("screen.attach went over %t and %t, want exactly one connection", stream.stream.Load(), calls.stream.Load())
	}
	select {
	case <-calls.closed:
	case <-time.After(testDeadline):
		t.Fatal("the server never closed the idle call connection")
	}
	select {
	case <-stream.closed:
		t.Fatal("the server closed the stream")
	default:
	}

	if err := p.Resize(60, 15); err != nil {
		t.Fatalf("resize after the call connection idled out: %v", err)
	}
	mirrorMatches(t, p, emu, 0)
	if err := p.SendInput([]byte("typed after the pause\n")); err != nil {
		t.Fatal(err)
	}
	waitCatBack(t, emu, "typed after the pause")
	mirrorMatches(t, p, emu, 0)
	mirrorMatches(t, p, emu, 200) // scrollback on demand, on the new connection
}

// TestScreenAttachHiddenPaced: a pane the window does not show
// (screen.shown) gets at most proto.HiddenAttachFPS frames a second while
// a shown one keeps the stream's fps; shown again, its pending change goes
// at the stream's pace at once, not at the end of its hidden wait.
func TestScreenAttachHiddenPaced(t *testing.T) {
	e, fc := newClockEnv(t)
	shown, _ := e.m.ActiveSurface()
	hidden := e.split("")
	l := &frameLog{frames: make(chan []byte, 64)}
	tok := startAttach(t, e, `{"fps":50}`, l) // a 20 ms interval
	for range 2 {
		if f := l.nextScreen(t); !f.Full {
			t.Fatalf("first frame %+v, want full", f)
		}
	}
	setShown := func(ids []uint64) {
		t.Helper()
		p, _ := json.Marshal(proto.ScreenShownParams{Token: tok, Surfaces: ids})
		if _, err := e.s.screenShown(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	waitTimer := func() { t.Helper(); waitPaced(t, fc) }
	next := func(want uint64, text string) {
		t.Helper()
		f := l.nextScreen(t)
		if f.SurfaceID != want || f.Full || len(f.Lines) != 1 || len(f.Lines[0].Runs) != 1 || f.Lines[0].Runs[0].Text != text {
			t.Fatalf("frame %+v, want pane %d's delta row %q", f, want, text)
		}
	}
	setShown([]uint64{shown.ID()})
	fc.Advance(time.Second)
	hidden.Terminal().Emulator().Write([]byte("a"))
	next(hidden.ID(), "a") // a second after its last frame: at once
	hidden.Terminal().Emulator().Write([]byte("b"))
	waitTimer()
	fc.Advance(time.Second / 2) // 25 intervals of the stream's fps
	l.none(t, "of the hidden pane half a second after its last")
	// The fake clock moves only once the stream has armed its next timer:
	// advanced between the stream's Now and its AfterFunc, the timer would
	// be armed that much further out and never fire (each of the two
	// waits below failed about 1 run in 50 at load 25 without it).
	rearmed := func(after int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		if err := fc.BlockUntilArmed(ctx, after+1); err != nil {
			t.Fatalf("the stream never armed its next timer: %v", err)
		}
	}
	armed := fc.Armed()
	shown.Terminal().Emulator().Write([]byte("x"))
	next(shown.ID(), "x") // the shown pane keeps the stream's pace
	rearmed(armed)        // for the hidden pane, after sending x
	fc.Advance(time.Second / 2)
	next(hidden.ID(), "ab")

	hidden.Terminal().Emulator().Write([]byte("c"))
	waitTimer()
	l.none(t, "of the hidden pane right after its last")
	armed = fc.Armed()
	setShown(nil) // every pane shown again: the stream, woken, re-arms
	rearmed(armed)
	fc.Advance(time.Second / 50)
	next(hidden.ID(), "abc")

	// An unknown token is refused.
	p, _ := json.Marshal(proto.ScreenShownParams{Token: "nope"})
	if _, err := e.s.screenShown(context.Background(), p); err == nil {
		t.Fatal("screen.shown with an unknown token: no error")
	}
}

// waitPaced waits until screen.attach armed a timer of fc: it waits for a
// pane to come due.
func waitPaced(t *testing.T, fc *clock.Fake) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	if err := fc.BlockUntil(ctx, 1); err != nil {
		t.Fatalf("screen.attach never waited for a pane: %v", err)
	}
}

// inputTap is a connection that records, in order, whether each
// screen.input request written on it was a notification (a key with
// nothing out, issue 26) or a call (queued input, a paste).
type inputTap struct {
	net.Conn
	mu    *sync.Mutex
	kinds *[]byte // 'n' notification, 'c' call
	part  []byte  // a request line written in pieces
}

func (c *inputTap) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.part = append(c.part, b...)
	for {
		i := bytes.IndexByte(c.part, '\n')
		if i < 0 {
			break
		}
		var req struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(c.part[:i], &req) == nil && req.Method == proto.MethodScreenInput {
			kind := byte('c')
			if req.ID == nil {
				kind = 'n'
			}
			*c.kinds = append(*c.kinds, kind)
		}
		c.part = c.part[i+1:]
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

// TestScreenInputKeysAndPastesInOrder: keys a window sends as
// screen.input notifications and pastes it sends as calls (more than a
// key's 4 KiB, queued), interleaved, sometimes back to back and
// sometimes once the program got all before them, reach the program in
// the order they were typed; the connection carried both kinds.
func TestScreenInputKeysAndPastesInOrder(t *testing.T) {
	var mu sync.Mutex
	var kinds []byte
	p, out := catAttachedDial(t, func(ctx context.Context, path string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return nil, err
		}
		return &inputTap{Conn: nc, mu: &mu, kinds: &kinds}, nil
	})
	var want bytes.Buffer
	send := func(b []byte) {
		t.Helper()
		want.Write(b)
		if err := p.SendInput(b); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 40 {
		for k := range 3 {
			send(fmt.Appendf(nil, "<key %d.%d>", round, k))
		}
		send(bytes.Repeat(fmt.Appendf(nil, "[paste %d]", round), 600)) // 6+ KiB: a call
		for k := 3; k < 5; k++ {
			send(fmt.Appendf(nil, "<key %d.%d>", round, k))
		}
		if round%2 == 1 {
			programGot(t, out, want.Bytes()) // nothing queued or out: the next keys go as notifications
		}
	}
	programGot(t, out, want.Bytes())
	mu.Lock()
	defer mu.Unlock()
	n := bytes.Count(kinds, []byte("n"))
	t.Logf("screen.input requests in order (n: notification, c: call): %s", kinds)
	if n == 0 || n == len(kinds) {
		t.Fatalf("%d notifications of %d screen.input requests, want both kinds: %s", n, len(kinds), kinds)
	}
}
