//go:build linux

package conform

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	update      = flag.Bool("update", false, "rewrite testdata/paneflow/*.golden from this run")
	recordXterm = flag.Bool("record-xterm", false, "run vttest in real xterm under Xvfb and rewrite testdata/xterm/*.golden")
)

// skipped are vttest's menu entries the suite does not run, by their
// description, each with why. Everything else vttest offers runs.
var skipped = map[string]string{
	"Exit":                    "leaves the menu (the navigator chooses it last)",
	"Exit to main menu":       "leaves the menu (the navigator chooses it last)",
	"Test of keyboard":        "asks a person to press keys; keys are given to vttest directly, never through the emulator",
	"Test of VT52 mode":       "the relay cannot tell when a VT52 terminal has parsed a chunk (no CSI 5 n in VT52 mode)",
	"Modify test-parameters":  "changes vttest's own settings, tests nothing",
	"Test Printer (MC)":       "printer-controller mode swallows the relay's status request",
	"Set window title":        "reads a title typed by a person, again and again",
	"Font features":           "asks for font names and sizes typed by a person",
	"Mouse features":          "reads mouse events from a person",
	"Tektronix 4014 features": "switches to a Tektronix window (xterm only)",
	// The dtterm window operations move, resize, iconify and raise the
	// window; an emulator without a window ignores them, so the pages
	// only show vttest's instructions.
	"Window modify-operations (dtterm)":      "moves and resizes the window: nothing to see in an emulator without one",
	"Test Keyboard Status":                   "the keyboard language report is a setting of the keyboard, not of the emulator",
	"Test Keyboard Layout with G0 Selection": "reads keys typed by a person",
	"Test User-Defined Keys (DECUDK)":        "reads function keys pressed by a person",
}

// settingPrefixes start the descriptions of menu entries that change
// vttest's settings instead of running a test: toggles ("Enable
// highlighting…", "Disable ERM…"), which would change every later
// page, and the character-set choosers ("Specify G0 (now ASCII)"), which
// open a menu whose entries pick a set and return.
var settingPrefixes = []string{"Enable ", "Disable ", "Specify G"}

// backLinks are entries of vttest's submenus that lead back up to a menu
// already being walked (the VT320 menu's "Test VT220 features" reruns
// the VT220 menu): walking them again repeats pages.
var backLinks = regexp.MustCompile(`^Test VT[2-5]20 features`)

// plan reports whether the suite skips the entry at path described as desc.
func plan(path, desc string) bool {
	if _, ok := skipped[desc]; ok {
		return true
	}
	for _, p := range settingPrefixes {
		if strings.HasPrefix(desc, p) {
			return true
		}
	}
	return desc == notImplemented || backLinks.MatchString(desc)
}

// TestVttest runs vttest's menus against Paneflow's emulator and checks
// every result page twice:
//
//   - against testdata/paneflow (text, cursor and renditions): any change
//     in what the emulator shows fails, so a fix or a regression is seen;
//   - against testdata/xterm, recorded from real xterm (-record-xterm):
//     the pages that differ must be exactly those DIFFERENCES.md lists,
//     each with the reason, and the share that match is the suite's
//     conformance figure.
//
// `go test ./test/conform -run TestVttest -args -update` rewrites
// testdata/paneflow after a deliberate change (review every changed
// page); `-args -record-xterm` re-records xterm's (needs xterm and Xvfb).
func TestVttest(t *testing.T) {
	vt := vttestPath(t)
	if *recordXterm {
		pages, _ := runVttest(t, vt, plan, &xtermTerm{})
		writeGoldens(t, "xterm", pages)
		return
	}
	pages, log := runVttest(t, vt, plan, &emulatorTerm{})
	if *update {
		writeGoldens(t, "paneflow", pages)
		return
	}
	got := map[string]string{}
	for _, p := range pages {
		for k, v := range p.sections() {
			got[k] = v
		}
	}
	own := readGoldens(t, "paneflow")
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(own)) {
		g, ok := got[name]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s: the page was not shown", name))
		case g != own[name]:
			bad = append(bad, fmt.Sprintf("%s differs from testdata/paneflow:\n%s", name, lineDiff(own[name], g)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := own[name]; !ok {
			bad = append(bad, fmt.Sprintf("%s: a page with no golden (run with -update and review it):\n%s", name, got[name]))
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d sections of %d pages differ from testdata/paneflow:\n\n%s", len(bad), len(pages), strings.Join(bad, "\n\n"))
		logAround(t, log, pages, own)
	}

	xterm := readGoldens(t, "xterm")
	listed := readDifferences(t)
	same := 0
	for _, p := range pages {
		diff := p.xtermDiff(xterm)
		_, isListed := listed[p.name]
		switch {
		case len(diff) == 0 && isListed:
			t.Errorf("%s now shows what xterm shows: take it out of DIFFERENCES.md", p.name)
		case len(diff) == 0:
			same++
		case !isListed:
			t.Errorf("%s differs from xterm and DIFFERENCES.md does not say why:\n%s", p.name, strings.Join(diff, "\n"))
		}
		delete(listed, p.name)
	}
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		t.Errorf("DIFFERENCES.md names page %s, which the run did not show", name)
	}
	t.Logf("vttest: %d of %d pages as xterm shows them (%.1f%%)", same, len(pages), 100*float64(same)/float64(len(pages)))
}

// logAround shows the relay's log around the first pages that differ
// from their goldens: how vttest got there (keys, replies, the read it
// was found waiting in).
func logAround(t *testing.T, log relayLog, pages []page, own map[string]string) {
	shown := 0
	for _, p := range pages {
		differs := false
		for k, v := range p.sections() {
			differs = differs || own[k] != v
		}
		if !differs {
			continue
		}
		t.Logf("relay log up to %s (event #%d):\n%s", p.name, p.seq, log.around(p.seq))
		if shown++; shown == 3 {
			return
		}
	}
}

// xtermDiff is how p differs from what xterm showed (nil: not at all).
func (p page) xtermDiff(xterm map[string]string) []string {
	if _, ok := xterm[p.name]; !ok {
		// vttest took another path in xterm (e.g. a reply that made it
		// show one page more here).
		return []string{"xterm showed no such page"}
	}
	var diff []string
	sec := p.sections()
	for _, k := range []string{p.name, p.name + " attrs"} {
		if xterm[k] != sec[k] {
			diff = append(diff, fmt.Sprintf("%s:\n%s", k, lineDiff(xterm[k], sec[k])))
		}
	}
	return diff
}

// sections are a page's entries in a golden file: its text under its
// name and, if any, its renditions and line sizes under "name attrs".
func (p page) sections() map[string]string {
	m := map[string]string{p.name: p.screen.text}
	if p.screen.attrs != "" {
		m[p.name+" attrs"] = p.screen.attrs
	}
	return m
}

// goldenFile is the golden file of a page: one per top-level menu.
func goldenFile(name string) string {
	top, _, _ := strings.Cut(name, "#")
	top, _, _ = strings.Cut(top, ".")
	return top + ".golden"
}

// sectionMark starts each section of a golden file.
const sectionMark = "=== "

func writeGoldens(t *testing.T, which string, pages []page) {
	dir := filepath.Join("testdata", which)
	old, _ := filepath.Glob(filepath.Join(dir, "*.golden"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]*strings.Builder{}
	var order []string
	for _, p := range pages {
		f := goldenFile(p.name)
		if files[f] == nil {
			files[f] = &strings.Builder{}
			order = append(order, f)
		}
		fmt.Fprintf(files[f], "%s%s\n%s", sectionMark, p.name, p.screen.text)
		if p.screen.attrs != "" {
			fmt.Fprintf(files[f], "%s%s attrs\n%s", sectionMark, p.name, p.screen.attrs)
		}
	}
	for _, f := range order {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(files[f].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %d pages into %s", len(pages), dir)
}

// readGoldens reads every section of testdata/<which>/*.golden.
func readGoldens(t testing.TB, which string) map[string]string {
	files, _ := filepath.Glob(filepath.Join("testdata", which, "*.golden"))
	if len(files) == 0 {
		t.Fatalf("no goldens in testdata/%s", which)
	}
	m := map[string]string{}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var name string
		var body strings.Builder
		flush := func() {
			if name != "" {
				m[name] = body.String()
			}
			body.Reset()
		}
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if line == "" {
				continue
			}
			if rest, ok := strings.CutPrefix(line, sectionMark); ok {
				flush()
				name = strings.TrimSuffix(rest, "\n")
				continue
			}
			if name == "" {
				t.Fatalf("%s: text before the first %q line", path, sectionMark)
			}
			body.WriteString(line)
		}
		flush()
	}
	return m
}

// lineDiff shows the lines of want and got that differ, by number.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "  line %d\n    want %q\n    got  %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// differenceEntry is a line of DIFFERENCES.md naming pages: "- `1#2`, `2#3`: why".
var differenceEntry = regexp.MustCompile("^- ((?:`[0-9.#]+`(?:, )?)+): +(.+)$")

// readDifferences returns the pages DIFFERENCES.md lists, with why.
func readDifferences(t *testing.T) map[string]string {
	b, err := os.ReadFile("DIFFERENCES.md")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		e := differenceEntry.FindStringSubmatch(line)
		if e == nil {
			continue
		}
		for _, name := range strings.Split(e[1], ", ") {
			m[strings.Trim(name, "`")] = e[2]
		}
	}
	return m
}
