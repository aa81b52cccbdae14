//go:build linux

package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The search benchmark (issue 34): 100 panes, each holding 10,000 lines of
// scrollback and having shown 1,000 full screens, searched for a regular
// expression that matches once in each pane's scrollback and once on one
// of its full screens.
const (
	searchPanes      = 100
	searchLines      = 10000
	searchScreens    = 1000
	searchPattern    = `needle-\d+`
	searchGrep       = `needle-[0-9]+`
	searchMark       = "needle-4242"
	searchDone       = "search-data-done"
	searchPerSpace   = 25 // panes per workspace (the default cap is 64)
	searchSamples    = 20
	searchCLISamples = 10
)

// searchWords is the vocabulary of the synthetic agent session.
var searchWords = strings.Fields("the a file test build run error func return value pane screen agent tool read " +
	"edit write search result turn prompt model token commit branch merge diff patch line column index cache " +
	"buffer lock thread queue server client socket frame event hook status done failed passed")

// searchData returns what every pane prints: searchLines lines of
// transcript (one holding searchMark) that end in the scrollback, then
// searchScreens full screens, each entered and left (so Paneflow records
// each): an agent's transcript scrolling two lines a screen, a status line
// that changes every screen (one holding searchMark) and an input line;
// then searchDone.
func searchData() []byte {
	r := rand.New(rand.NewPCG(34, 34))
	line := func(n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%6d ", n)
		for b.Len() < 60+n%15 {
			b.WriteString(searchWords[r.IntN(len(searchWords))])
			b.WriteByte(' ')
		}
		return strings.TrimRight(b.String(), " ")
	}
	var b bytes.Buffer
	for i := range searchLines + srvRows {
		l := line(i)
		if i == searchLines/2 {
			l += " " + searchMark
		}
		b.WriteString(l + "\r\n")
	}
	transcript := make([]string, 2*searchScreens+srvRows)
	for i := range transcript {
		transcript[i] = line(1_000_000 + i)
	}
	for s := range searchScreens {
		b.WriteString("\x1b[?1049h\x1b[H\x1b[2J")
		for y := range srvRows - 2 {
			fmt.Fprintf(&b, "\x1b[%dH%s", y+1, transcript[2*s+y])
		}
		status := fmt.Sprintf("* Working... (%ds, %d tokens, esc to interrupt)", s, 1000+7*s)
		if s == searchScreens/2 {
			status += " " + searchMark
		}
		fmt.Fprintf(&b, "\x1b[%dH%s\x1b[%dH> ", srvRows-1, status, srvRows)
		b.WriteString("\x1b[?1049l")
	}
	b.WriteString(searchDone + "\r\n")
	return b.Bytes()
}

// BenchmarkSearchAll measures one search over every pane's scrollback and
// full-screen history: surface.search_all of searchPattern over a reused
// connection (socket, ms; issue 34's target ≤ 50 ms; server-cpu-ms: the
// server's CPU time per search, the mean over the samples), and `paneflow search
// --all` as a process against `tmux capture-pane -p -S -` of every pane (in
// one tmux client) piped to grep -E, a process start each (cli, ms; target
// ≤ 1× tmux). Both sides' panes printed the same output; tmux keeps none
// of the full screens, so its grep reads less text and finds half the
// matches. Sub-benchmarks socket (Paneflow only) and cli/paneflow,
// cli/tmux.
func BenchmarkSearchAll(b *testing.B) {
	dir := b.TempDir()
	data := filepath.Join(dir, "session.txt")
	if err := os.WriteFile(data, searchData(), 0o600); err != nil {
		b.Fatal(err)
	}
	command := "cat " + shQuote(data) + "; exec sleep 1000000"

	pf := startPaneflow(b)
	c := pf.dial(b)
	var ids []uint64
	for w := range searchPanes / searchPerSpace {
		panes := make([]map[string]any, searchPerSpace)
		for i := range panes {
			panes[i] = map[string]any{"command": command}
		}
		var r struct {
			SurfaceIDs []uint64 `json:"surface_ids"`
		}
		if err := c.call("workspace.up", map[string]any{"name": fmt.Sprintf("search%d", w), "layout": "tiled", "panes": panes}, &r); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, r.SurfaceIDs...)
	}
	for _, id := range ids {
		searchWait(b, fmt.Sprintf("surface %d", id), func() (string, error) {
			r, err := readPane(c, id, srvRows)
			return r.Text, err
		})
	}
	params := map[string]any{"pattern": searchPattern, "regex": true, "max_matches": 1000}
	var res struct {
		MatchCount    int  `json:"match_count"`
		PanesSearched int  `json:"panes_searched"`
		Truncated     bool `json:"truncated"`
	}
	check := func() {
		if res.PanesSearched < searchPanes || res.MatchCount != 2*searchPanes || res.Truncated {
			b.Fatalf("surface.search_all: %+v; want %d matches in %d panes", res, 2*searchPanes, searchPanes)
		}
	}
	var xs []float64
	var cpu time.Duration
	for i := range searchSamples + 3 {
		c0, err := procCPU(pf.cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := c.call("surface.search_all", params, &res); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		c1, err := procCPU(pf.cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		check()
		if i >= 3 {
			xs = append(xs, ms(d))
			cpu += c1 - c0
		}
	}
	b.Run("socket", func(b *testing.B) {
		b.ReportMetric(median(xs), "ms")
		// The server's CPU time per search (all its threads), which load
		// from other work on the machine does not inflate as it does the
		// wall time.
		b.ReportMetric(ms(cpu)/searchSamples, "server-cpu-ms")
	})

	sides := []processSide{{name: "paneflow", mk: func() *exec.Cmd {
		return pf.cli("search", "--all", "--regex", "--max", "1000", searchPattern)
	}}}
	if why := tmuxMissing(); why != "" {
		b.Log(why)
	} else {
		t := startTmux(b)
		if _, err := t.s.Command("set-option", "-g", "history-limit", strconv.Itoa(searchLines)); err != nil {
			b.Fatal(err)
		}
		var panes []string
		for range searchPanes {
			panes = append(panes, t.window(b, command))
		}
		for _, p := range panes {
			searchWait(b, "tmux pane "+p, func() (string, error) { return t.s.Command("capture-pane", "-p", "-t", p) })
		}
		capture := t.s.Cmd()
		line := make([]string, 0, len(capture.Args)+6*len(panes))
		for _, a := range capture.Args {
			line = append(line, shQuote(a))
		}
		for i, p := range panes {
			if i > 0 {
				line = append(line, `\;`)
			}
			line = append(line, "capture-pane", "-p", "-S", "-", "-t", shQuote(p))
		}
		script := strings.Join(line, " ") + " | grep -E " + shQuote(searchGrep)
		sides = append(sides, processSide{name: "tmux", mk: func() *exec.Cmd {
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Env = capture.Env
			return cmd
		}})
	}
	b.Run("cli", func(b *testing.B) { reportProcesses(b, searchCLISamples, searchMark, sides) })
}

// searchWait polls screen until it shows searchDone: ingesting 100 panes'
// output takes minutes on a small, loaded machine (either side), longer
// than the other benchmarks' setupTimeout.
func searchWait(b *testing.B, what string, screen func() (string, error)) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		text, err := screen()
		if err != nil {
			b.Fatalf("%s: %v", what, err)
		}
		if strings.Contains(text, searchDone) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s does not show %q after 10 minutes; it shows:\n%s", what, searchDone, text)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
