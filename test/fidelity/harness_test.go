package fidelity

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/test/internal/tmuxtest"
)

const (
	// stateTimeout bounds how long a side may take to reach a state (a
	// program's completion signal, a marker on screen, or agreement with the
	// other side). It is long because the machine is small and shared. It is
	// a hang guard, not a measurement: sides that disagree are compared until
	// it has passed, since no time without a change proves that a loaded
	// tmux or Paneflow has drawn its last update (a "stable for 3 s" rule
	// reported late redraws as mismatches).
	stateTimeout = 90 * time.Second

	// pollInterval is how often tmux is polled while waiting.
	pollInterval = 50 * time.Millisecond

	// maxReportedRows caps the differing rows listed in one failure.
	maxReportedRows = 40

	// term is the TERM both sides run with.
	term = "xterm-256color"
)

// snapshot is the text of one side at one moment.
type snapshot struct {
	History []string
	Screen  []string
}

var (
	localeOnce sync.Once
	localeName string
)

// utf8Locale returns the UTF-8 locale both sides run with: en_US.UTF-8 when it
// is installed (scripts/deps.sh generates it), else C.UTF-8, else "".
func utf8Locale() string {
	localeOnce.Do(func() {
		out, err := exec.Command("locale", "-a").Output()
		if err != nil {
			return
		}
		have := map[string]bool{}
		for _, l := range strings.Fields(string(out)) {
			have[strings.ToLower(strings.ReplaceAll(l, "-", ""))] = true
		}
		switch {
		case have["en_us.utf8"]:
			localeName = "en_US.UTF-8"
		case have["c.utf8"]:
			localeName = "C.UTF-8"
		}
	})
	return localeName
}

// sides names the two sides, in the order they are started.
var sides = []string{"tmux", "paneflow"}

// fixture is one test's private world: a working directory per side holding
// the same files (so that programs like vim, which lock files they open, do
// not see each other), a private tmux server, and the environment both sides
// share.
type fixture struct {
	t    *testing.T
	root string
	env  []string // without HOME, which is per side
	tm   *tmuxtest.Server
	runs int // programs started, for unique signal file names
}

// newFixture prepares a fixture, skipping the test when tmux or a UTF-8
// locale is missing.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := tmuxtest.LookPath(); err != nil {
		t.Skipf("skipping fidelity test: %v", err)
	}
	loc := utf8Locale()
	if loc == "" {
		t.Skip("skipping fidelity test: no UTF-8 locale (en_US.UTF-8 or C.UTF-8); run scripts/deps.sh or locale-gen en_US.UTF-8")
	}
	f := &fixture{t: t, root: t.TempDir()}
	f.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"LANG=" + loc,
		"TERM=" + term,
		"SHELL=/bin/sh",
		"LESSHISTFILE=-",
	}
	for _, side := range sides {
		for _, d := range []string{f.dir(side), f.home(side)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.tm = tmuxtest.New(t, tmuxtest.Options{Env: f.sideEnv("tmux"), Term: term})
	return f
}

// needPrograms fails the test with a clear message when a program it runs is
// not installed (scripts/deps.sh installs them; a missing one is a broken
// setup, not a reason to skip).
func needPrograms(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("%s is not installed; the fidelity tests need it (scripts/deps.sh installs it): %v", n, err)
		}
	}
}

// dir is the working directory of one side.
func (f *fixture) dir(side string) string { return filepath.Join(f.root, "cwd-"+side) }

// home is the HOME of one side, so that state programs write there (vim's
// viminfo) cannot influence the other side.
func (f *fixture) home(side string) string { return filepath.Join(f.root, "home-"+side) }

// sideEnv is the environment of one side.
func (f *fixture) sideEnv(side string) []string {
	return append(slices.Clone(f.env), "HOME="+f.home(side))
}

// writeFile writes the same file into the working directory of both sides.
func (f *fixture) writeFile(name string, data []byte) {
	f.t.Helper()
	for _, side := range sides {
		if err := os.WriteFile(filepath.Join(f.dir(side), name), data, 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

// capture runs a shell command once, with the shared environment and without
// a terminal, and saves its standard output as name on both sides. Programs
// whose output changes from run to run are captured once this way and then
// shown with cat on both sides.
func (f *fixture) capture(name, script string) {
	f.t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = f.root
	cmd.Env = append(slices.Clone(f.env), "HOME="+f.root, "COLUMNS=80", "LINES=24")
	out, err := cmd.Output()
	if err != nil {
		f.t.Fatalf("capture %q: %v", script, err)
	}
	f.writeFile(name, out)
}

// pair runs one program on both sides.
type pair struct {
	t   *testing.T
	pf  *terminal.Terminal
	tm  *tmuxtest.Pane
	sig map[string]string // side → path of the completion signal file
}

// start runs script with sh at 80×24 on both sides. When the script
// completes, each side creates its signal file (see [pair.waitDone]) and then
// execs a long sleep so the pane keeps its contents and nothing redraws on
// SIGWINCH.
func (f *fixture) start(script string) *pair {
	f.t.Helper()
	p := &pair{t: f.t, sig: map[string]string{}}
	f.runs++
	argv := func(side string) []string {
		sig := filepath.Join(f.root, fmt.Sprintf("done-%d-%s", f.runs, side))
		p.sig[side] = sig
		return []string{"sh", "-c", script + "\n: > \"$1\"\nexec sleep 1000000", "sh", sig}
	}
	tp, err := f.tm.NewPane(tmuxtest.PaneOptions{Argv: argv("tmux"), Dir: f.dir("tmux"), Cols: 80, Rows: 24})
	if err != nil {
		f.t.Fatalf("tmux: %v", err)
	}
	p.tm = tp
	pt, err := terminal.Start(terminal.Options{Argv: argv("paneflow"), Dir: f.dir("paneflow"), Env: f.sideEnv("paneflow"), Cols: 80, Rows: 24})
	if err != nil {
		f.t.Fatalf("paneflow: %v", err)
	}
	f.t.Cleanup(func() {
		if err := pt.Close(); err != nil {
			f.t.Logf("paneflow close: %v", err)
		}
	})
	p.pf = pt
	return p
}

// paneflow returns a snapshot of the Paneflow side, retrying (a bounded
// number of times) when output arrived between reading history and screen.
func (p *pair) paneflow() snapshot {
	e := p.pf.Emulator()
	var s snapshot
	for range 100 {
		g := e.Generation()
		s = snapshot{History: e.Lines(0, e.HistoryLen()), Screen: e.ScreenLines()}
		if e.Generation() == g {
			break
		}
	}
	if s.History == nil {
		s.History = []string{}
	}
	return s
}

// tmux returns a snapshot of the tmux side.
func (p *pair) tmux() snapshot {
	p.t.Helper()
	c, err := p.tm.Capture()
	if err != nil {
		p.t.Fatalf("tmux: %v", err)
	}
	if c.History == nil {
		c.History = []string{}
	}
	return snapshot{History: c.History, Screen: c.Screen}
}

// waitDone waits until the script has completed on both sides (its signal
// file exists), then until the Paneflow side has parsed everything (no new
// output for a while).
func (p *pair) waitDone(step string) {
	p.t.Helper()
	deadline := time.Now().Add(stateTimeout)
	for side, sig := range p.sig {
		for {
			if _, err := os.Stat(sig); err == nil {
				break
			}
			select {
			case <-p.pf.Done():
				p.t.Fatalf("%s: the program on the paneflow side exited before the script completed; screen:\n%s", step, numbered(p.paneflow().Screen))
			default:
			}
			if time.Now().After(deadline) {
				p.t.Fatalf("%s: the script did not complete on the %s side within %v", step, side, stateTimeout)
			}
			time.Sleep(pollInterval)
		}
	}
	p.quiet()
}

// quiet waits until the Paneflow emulator has seen no change for a short
// while, or until stateTimeout.
func (p *pair) quiet() {
	e := p.pf.Emulator()
	deadline := time.After(stateTimeout)
	for {
		ch := e.Changed()
		select {
		case <-ch:
		case <-time.After(300 * time.Millisecond):
			return
		case <-deadline:
			return
		}
	}
}

// waitScreen waits until ok accepts the screen of both sides, failing the
// test after stateTimeout. Use it after sending keys so that a comparison
// does not pass merely because neither side has reacted yet.
func (p *pair) waitScreen(step string, ok func(screen []string) bool) {
	p.t.Helper()
	deadline := time.Now().Add(stateTimeout)
	pfOK, tmOK := false, false
	for {
		var pf, tm snapshot
		if !pfOK {
			pf = p.paneflow()
			pfOK = ok(pf.Screen)
		}
		if !tmOK {
			tm = p.tmux()
			tmOK = ok(tm.Screen)
		}
		if pfOK && tmOK {
			p.quiet()
			return
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			if !pfOK {
				fmt.Fprintf(&b, "paneflow screen:\n%s", numbered(pf.Screen))
			}
			if !tmOK {
				fmt.Fprintf(&b, "tmux screen:\n%s", numbered(tm.Screen))
			}
			p.t.Fatalf("%s: the expected screen did not appear within %v\n%s", step, stateTimeout, b.String())
		}
		time.Sleep(pollInterval)
	}
}

// send writes the same bytes to the program on both sides.
func (p *pair) send(b []byte) {
	p.t.Helper()
	if err := p.tm.SendBytes(b); err != nil {
		p.t.Fatalf("tmux: %v", err)
	}
	if err := p.pf.SendInput(b); err != nil {
		p.t.Fatalf("paneflow: %v", err)
	}
}

// resize resizes both sides.
func (p *pair) resize(cols, rows int) {
	p.t.Helper()
	if err := p.tm.Resize(cols, rows); err != nil {
		p.t.Fatalf("tmux: %v", err)
	}
	if err := p.pf.Resize(cols, rows); err != nil {
		p.t.Fatalf("paneflow: %v", err)
	}
}

// knownDiff is a row on which Paneflow deliberately differs from tmux because
// tmux is wrong there. It excuses a differing row (screen or history) only when
// the sides show exactly these texts. Every use must carry a comment saying why.
type knownDiff struct {
	paneflow, tmux string
}

// expectSame compares both sides until their screen and history agree row for
// row (apart from known differences), or until stateTimeout has passed, and
// then reports a row-by-row diff.
func (p *pair) expectSame(step string, known ...knownDiff) {
	p.t.Helper()
	excused := 0
	p.compare(step, func(pf, tm snapshot) []string {
		var left []string
		left, excused = diffSnapshots(pf, tm, known)
		return left
	})
	if excused > 0 && !p.t.Failed() {
		p.t.Logf("%s: agrees with tmux apart from %d row(s) of known differences", step, excused)
	}
}

// expectSameText is expectSame for states where the sides may split the same
// rows differently between history and screen: it compares history and screen
// joined, without the blank rows at the end. Every use must carry a comment
// saying why the stricter comparison does not apply.
func (p *pair) expectSameText(step string) {
	p.t.Helper()
	join := func(s snapshot) snapshot {
		all := append(slices.Clone(s.History), s.Screen...)
		for len(all) > 0 && all[len(all)-1] == "" {
			all = all[:len(all)-1]
		}
		return snapshot{History: []string{}, Screen: all}
	}
	p.compare(step, func(pf, tm snapshot) []string {
		left, _ := diffSnapshots(join(pf), join(tm), nil)
		return left
	})
	if strict, _ := diffSnapshots(p.paneflow(), p.tmux(), nil); len(strict) == 0 {
		p.t.Logf("%s: screen and history now agree row for row; the text-only comparison could be made strict", step)
	}
}

// compare polls both sides until diff reports nothing, or until stateTimeout
// has passed. A real difference therefore takes stateTimeout to report; a
// side that is merely slow never fails the test.
func (p *pair) compare(step string, diff func(pf, tm snapshot) []string) {
	p.t.Helper()
	deadline := time.Now().Add(stateTimeout)
	for {
		pf, tm := p.paneflow(), p.tmux()
		left := diff(pf, tm)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			n := len(left)
			if len(left) > maxReportedRows {
				left = append(left[:maxReportedRows], fmt.Sprintf("  … and %d more", n-maxReportedRows))
			}
			p.t.Errorf("%s: Paneflow differs from tmux in %d row(s) (screen %d rows, history paneflow %d / tmux %d rows):\n%s\npaneflow screen:\n%s\ntmux screen:\n%s",
				step, n, len(tm.Screen), len(pf.History), len(tm.History),
				strings.Join(left, "\n"), numbered(pf.Screen), numbered(tm.Screen))
			return
		}
		time.Sleep(pollInterval)
	}
}

// diffSnapshots returns one readable entry per differing row, skipping the
// known differences, and how many rows it skipped. History rows are aligned from the newest row (the one
// next to the screen), so a different history length shows up as rows
// missing at the old end.
func diffSnapshots(pf, tm snapshot, known []knownDiff) (diffs []string, excused int) {
	var out []string
	row := func(area string, i int, a, b string, aok, bok bool) {
		if aok && bok && a == b {
			return
		}
		if aok && bok && slices.Contains(known, knownDiff{paneflow: a, tmux: b}) {
			excused++
			return
		}
		show := func(s string, ok bool) string {
			if !ok {
				return "(no row)"
			}
			return fmt.Sprintf("%q", s)
		}
		out = append(out, fmt.Sprintf("  %s row %3d\n    paneflow %s\n    tmux     %s", area, i, show(a, aok), show(b, bok)))
	}
	for i := range max(len(pf.Screen), len(tm.Screen)) {
		a, aok := at(pf.Screen, i)
		b, bok := at(tm.Screen, i)
		row("screen", i, a, b, aok, bok)
	}
	// History rows are numbered as tmux numbers them (from the oldest) but
	// aligned from the newest.
	n := max(len(pf.History), len(tm.History))
	for k := n - 1; k >= 0; k-- {
		ia, ib := len(pf.History)-n+k, len(tm.History)-n+k
		a, aok := at(pf.History, ia)
		b, bok := at(tm.History, ib)
		i := ib
		if !bok {
			i = ia
		}
		row("history", i, a, b, aok, bok)
	}
	return out, excused
}

func at(s []string, i int) (string, bool) {
	if i < 0 || i >= len(s) {
		return "", false
	}
	return s[i], true
}

// numbered renders rows with their numbers for failure messages.
func numbered(rows []string) string {
	var b strings.Builder
	for i, r := range rows {
		fmt.Fprintf(&b, "  %3d|%s\n", i, r)
	}
	return b.String()
}
