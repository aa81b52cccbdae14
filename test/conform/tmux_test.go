//go:build linux

package conform

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/test/internal/tmuxtest"
	"github.com/paneflow-go/paneflow/test/internal/vtrelay"
)

// BenchmarkVttest runs vttest once in Paneflow's emulator and once in a
// tmux pane, through the same relay and plan, and reports for each how
// many result pages show what xterm showed (testdata/xterm): the
// conformance figures `make bench` prints beside each other
// (pages-as-xterm; %-as-xterm, of the pages xterm showed, so both sides
// share one denominator; pages, how many the run showed: a terminal that
// leaves a report unanswered makes vttest show more). Run it with
// -benchtime=1x: each iteration is a whole vttest run.
func BenchmarkVttest(b *testing.B) {
	vt := vttestPath(b)
	xterm := readGoldens(b, "xterm")
	xtermPages := 0
	for k := range xterm {
		if !strings.HasSuffix(k, " attrs") {
			xtermPages++
		}
	}
	for _, side := range []struct {
		name string
		term func(b *testing.B) vtTerminal
	}{
		{"paneflow", func(*testing.B) vtTerminal { return &emulatorTerm{} }},
		{"tmux", func(b *testing.B) vtTerminal { return &tmuxTerm{s: tmuxtest.New(b, tmuxtest.Options{Term: "xterm"})} }},
	} {
		b.Run(side.name, func(b *testing.B) {
			var same, total int
			for range b.N {
				pages, _ := runVttest(b, vt, plan, side.term(b))
				total = len(pages)
				same = 0
				for _, p := range pages {
					if len(p.xtermDiff(xterm)) == 0 {
						same++
					}
				}
			}
			b.ReportMetric(float64(same), "pages-as-xterm")
			b.ReportMetric(float64(total), "pages")
			b.ReportMetric(100*float64(same)/float64(xtermPages), "%-as-xterm")
		})
	}
}

// tmuxTerm is a pane of a private tmux server (tmuxtest, TERM=xterm):
// the other multiplexer the conformance figure is compared with. Its
// screen is read with capture-pane -e; tmux keeps no line sizes.
type tmuxTerm struct {
	s    *tmuxtest.Server
	pane *tmuxtest.Pane
}

func (m *tmuxTerm) start(t testing.TB, argv, env []string) func() {
	p, err := m.s.NewPane(tmuxtest.PaneOptions{Argv: argv, Env: env, Cols: screenCols, Rows: screenRows})
	if err != nil {
		t.Fatal(err)
	}
	m.pane = p
	return m.s.Close
}

// read captures the pane: the relay announced e after tmux answered its
// cursor request, so tmux has parsed everything vttest wrote before it.
func (m *tmuxTerm) read(t testing.TB, _ *vtrelay.Conn, e vtrelay.Event) screen {
	out, err := m.s.Command("capture-pane", "-p", "-e", "-t", m.pane.ID())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	rows := make([]string, screenRows)
	attrs := make([]string, screenRows)
	for y := range min(len(lines), screenRows) {
		rows[y], attrs[y] = parseSGRLine(lines[y])
	}
	return makeScreen(e, rows, attrs, nil)
}

// parseSGRLine splits a line of capture-pane -e output into its text and
// its VT100 renditions, one digit per character (as in screen.attrs).
// tmux writes an SGR only where renditions change, so they last until
// the next one.
func parseSGRLine(l string) (text, attrs string) {
	var tb strings.Builder
	var ab []byte
	d := 0
	for len(l) > 0 {
		if strings.HasPrefix(l, "\x1b[") {
			end := strings.IndexFunc(l[2:], func(r rune) bool { return r >= 0x40 && r <= 0x7e })
			if end < 0 {
				break
			}
			if l[2+end] == 'm' {
				d = applySGR(d, l[2:2+end])
			}
			l = l[3+end:]
			continue
		}
		if l[0] == 0x1b { // another escape (an OSC 8 link): skip to its ST
			if i := strings.Index(l, "\x1b\\"); i >= 0 {
				l = l[i+2:]
				continue
			}
			break
		}
		r, n := utf8.DecodeRuneInString(l)
		if d&hidden != 0 {
			r = ' ' // concealed text is not shown (see emulatorTerm.read)
		}
		tb.WriteRune(r)
		ab = append(ab, charDigit(r, d&^hidden))
		l = l[n:]
	}
	return tb.String(), string(ab)
}

// hidden marks concealed text (SGR 8) among parseSGRLine's renditions.
const hidden = 16

// applySGR applies the parameters ps of one SGR to the rendition digits
// d (1 bold, 2 underline, 4 blink, 8 inverse) and hidden; colours are
// skipped.
func applySGR(d int, ps string) int {
	f := strings.Split(ps, ";")
	for i := 0; i < len(f); i++ {
		p, _, _ := strings.Cut(f[i], ":")
		n, _ := strconv.Atoi(p)
		switch n {
		case 0:
			d = 0
		case 1:
			d |= 1
		case 4:
			d |= 2
		case 5:
			d |= 4
		case 7:
			d |= 8
		case 8:
			d |= hidden
		case 28:
			d &^= hidden
		case 22:
			d &^= 1
		case 24:
			d &^= 2
		case 25:
			d &^= 4
		case 27:
			d &^= 8
		case 38, 48, 58:
			if strings.Contains(f[i], ":") || i+1 >= len(f) {
				continue
			}
			switch f[i+1] {
			case "5":
				i += 2
			case "2":
				i += 4
			}
		}
	}
	return d
}
