//go:build linux

package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/paneflow-go/paneflow/test/internal/servetest"
	"github.com/paneflow-go/paneflow/test/internal/webtest"
)

// bin is the command-line client, with paneflow-server beside it.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "paneflow-web-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "paneflow")
	if err := servetest.Build(dir, raceEnabled,
		servetest.Binary{Pkg: "cmd/paneflow", Tags: "nogui,client"},
		servetest.Binary{Pkg: "cmd/paneflow", Tags: "nogui", Out: "paneflow-server"},
		servetest.Binary{Pkg: "cmd/paneflow-ai-hook"},
	); err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// webServer is a `paneflow serve --web 127.0.0.1:0` with the scripting
// gate open.
type webServer struct {
	t    testing.TB
	sock string
	dir  string
	env  []string
	srv  *servetest.Server
}

func startWeb(t testing.TB, size string, extra ...string) *webServer {
	t.Helper()
	dir := servetest.TempDir(t, "pfw-")
	s := &webServer{t: t, dir: dir, sock: filepath.Join(dir, "pf.sock")}
	s.env = append(servetest.Env(dir), append([]string{"PANEFLOW_IPC_SCRIPTING=1", "PANEFLOW_SOCKET_PATH=" + s.sock}, extra...)...)
	s.srv = servetest.Start(t, servetest.Config{Bin: bin, Sock: s.sock, Dir: dir, Env: s.env, Size: size, Args: []string{"--web", "127.0.0.1:0"}})
	return s
}

// cli runs the client and returns its stdout; a failure fails the test.
func (s *webServer) cli(args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = s.env, s.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		s.t.Fatalf("paneflow %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// pairLink asks the server for a pairing link.
func (s *webServer) pairLink(readOnly bool) string {
	s.t.Helper()
	args := []string{"web", "pair", "--json"}
	if readOnly {
		args = append(args, "--read-only")
	}
	var res struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(s.cli(args...)), &res); err != nil || !strings.Contains(res.URL, "/pair#") {
		s.t.Fatalf("web pair: %v (url %q)", err, res.URL)
	}
	return res.URL
}

// serverRows is `paneflow read` of pane id: its last n lines.
func (s *webServer) serverRows(id uint64, n int) []string {
	s.t.Helper()
	text := s.cli("read", strconv.FormatUint(id, 10), "--raw", "--lines", strconv.Itoa(max(n, 1)))
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	if n == 0 {
		return nil
	}
	return lines
}

// sameRows waits until the page's rows of pane id equal `paneflow read`'s
// for every row (the page follows the server at 30 frames a second; a
// program may still be drawing), and fails with both otherwise.
func (s *webServer) sameRows(ctx context.Context, id uint64, what string) []string {
	s.t.Helper()
	deadline := time.Now().Add(webtest.PollTimeout)
	for {
		page := webtest.Rows(s.t, ctx)
		server := s.serverRows(id, len(page))
		if len(page) > 0 && slicesEqual(page, server) {
			return page
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: the page's rows differ from paneflow read's:\npage:\n%s\nserver:\n%s", what, strings.Join(page, "\n"), strings.Join(server, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// panes is the ids of the server's panes, in `paneflow ls` order.
func (s *webServer) panes() []uint64 {
	s.t.Helper()
	var ls struct {
		Surfaces []struct {
			ID uint64 `json:"surface_id"`
		} `json:"surfaces"`
	}
	if err := json.Unmarshal([]byte(s.cli("ls")), &ls); err != nil || len(ls.Surfaces) == 0 {
		s.t.Fatalf("ls: %v (%d panes)", err, len(ls.Surfaces))
	}
	ids := make([]uint64, len(ls.Surfaces))
	for i, sf := range ls.Surfaces {
		ids[i] = sf.ID
	}
	return ids
}

// firstPane is the id of the server's first pane.
func (s *webServer) firstPane() uint64 { return s.panes()[0] }

// lastPane is the id of the newest pane.
func (s *webServer) lastPane() uint64 { return slices.Max(s.panes()) }

// TestBrowserPairsAndMirrorsAPane pairs a browser with the link, sees the
// overview list the pane, opens it, reads every row back against the
// server's, types into the composer and sees the text echo in the pane,
// then runs vim and compares again.
func TestBrowserPairsAndMirrorsAPane(t *testing.T) {
	ctx := webtest.Browser(t)
	s := startWeb(t, "80x24")
	id := s.firstPane()
	webtest.Pair(t, ctx, s.pairLink(false))
	card := webtest.Get(t, ctx, "the overview", chromedp.Text(chromedp.CSS(fmt.Sprintf(`#panes .card[data-id="%d"]`, id))))
	if !strings.Contains(card, "shell") {
		t.Errorf("the overview's card of pane %d reads %q, want its name (shell)", id, card)
	}
	webtest.Shot(t, ctx, "overview.png")

	webtest.Do(t, ctx, "opening the pane",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#panes .card[data-id="%d"]`, id))),
		webtest.Poll(`document.querySelectorAll('#scr .r').length === 24`),
	)
	s.sameRows(ctx, id, "the shell's first screen")

	// Output with colours, wide characters and a long wrapped line.
	s.cli("send", strconv.FormatUint(id, 10), "--submit", `printf '\033[1;31mred\033[0m 漢字 \033[44mblue\033[0m %s\n' "$(printf 'x%.0s' $(seq 1 100))"`)
	webtest.Do(t, ctx, "colour output", webtest.Poll(`window.paneflowRows().some(r => r.startsWith('red 漢字 blue'))`))
	s.sameRows(ctx, id, "after coloured output")

	// The composer: typed and submitted as `send --submit` does.
	webtest.Do(t, ctx, "typing into the composer",
		chromedp.SendKeys(chromedp.CSS("#prompt"), "echo hello-from-the-browser"),
		chromedp.Click(chromedp.CSS("#sendbtn")),
		webtest.Poll(`window.paneflowRows().includes('hello-from-the-browser')`),
	)
	rows := s.sameRows(ctx, id, "after the composer's prompt")
	if n := strings.Count(strings.Join(rows, "\n"), "hello-from-the-browser"); n != 2 {
		t.Errorf("the pane shows hello-from-the-browser %d times, want 2 (the command and its output)", n)
	}

	// A full-screen program.
	s.cli("send", strconv.FormatUint(id, 10), "--submit", "vim -u NONE -N +'syntax on' +'set number' "+filepath.Join(s.dir, "notes.go"))
	webtest.Do(t, ctx, "vim", webtest.Poll(`window.paneflowRows().some(r => /notes.go/.test(r))`))
	s.cli("send", strconv.FormatUint(id, 10), "ipackage main\n\nfunc main() {\n\tprintln(\"hi\")\n}")
	s.cli("key", strconv.FormatUint(id, 10), "escape")
	webtest.Do(t, ctx, "vim's text", webtest.Poll(`window.paneflowRows().some(r => r.includes('println("hi")'))`))
	s.sameRows(ctx, id, "vim")
	webtest.Shot(t, ctx, "vim.png")
}

// TestReadOnlyBrowserCannotType pairs read-only: the page says so and its
// controls are off, and the server refuses its writes (the web package's
// unit tests check the refusal itself).
func TestReadOnlyBrowserCannotType(t *testing.T) {
	ctx := webtest.Browser(t)
	s := startWeb(t, "80x24")
	id := s.firstPane()
	webtest.Pair(t, ctx, s.pairLink(true))
	webtest.Do(t, ctx, "the read-only page",
		chromedp.Navigate(webtest.Base(s.pairLink(false))+fmt.Sprintf("#pane/%d", id)),
		webtest.Poll(`document.querySelectorAll('#scr .r').length === 24`),
	)
	notice := webtest.Get(t, ctx, "the notice", chromedp.Text(chromedp.CSS("#notice")))
	disabled := webtest.Get(t, ctx, "the composer", chromedp.Evaluate[bool](`document.getElementById('sendbtn').disabled && document.getElementById('prompt').disabled`))
	if !strings.Contains(notice, "read-only") || !disabled {
		t.Errorf("read-only page: notice %q, composer disabled %v; want a read-only notice and the composer off", notice, disabled)
	}
}

// TestScrollbackInThePage: "Earlier output" fetches the scrollback above
// the screen (screen.rows), 100 lines at a time, drawn with the screen's
// renderer; the scrollback and the screen together read as `paneflow
// read` reads the pane, line for line.
func TestScrollbackInThePage(t *testing.T) {
	ctx := webtest.Browser(t)
	s := startWeb(t, "80x24")
	id := s.firstPane()
	link := s.pairLink(false)
	webtest.Pair(t, ctx, link)
	s.cli("send", strconv.FormatUint(id, 10), "--submit", "seq 1 150")
	webtest.Do(t, ctx, "the pane",
		chromedp.Navigate(webtest.Base(link)+fmt.Sprintf("#pane/%d", id)),
		webtest.Poll(`window.paneflowRows().includes('150')`),
	)
	for i := 0; ; i++ {
		if webtest.Get(t, ctx, "the button", chromedp.Evaluate[bool](`document.getElementById('more').hidden`)) {
			break // the whole scrollback is shown
		}
		if i == 3 {
			t.Fatalf("Earlier output is still offered after %d presses (100 lines each) of a 128-line scrollback", i)
		}
		n := len(webtest.Get(t, ctx, "the history", chromedp.Evaluate[[]string](`window.paneflowHistory()`)))
		webtest.Do(t, ctx, "earlier output",
			chromedp.Click(chromedp.CSS("#more")),
			webtest.Poll(fmt.Sprintf(`window.paneflowHistory().length > %d`, n)),
		)
	}
	hist := webtest.Get(t, ctx, "the history", chromedp.Evaluate[[]string](`window.paneflowHistory()`))
	page := append(hist, webtest.Rows(t, ctx)...)
	if server := s.serverRows(id, len(page)); !slices.Equal(page, server) {
		t.Errorf("the page's scrollback and screen differ from paneflow read's:\npage:\n%s\nserver:\n%s", strings.Join(page, "\n"), strings.Join(server, "\n"))
	}
	if len(hist) != 128 || !strings.HasSuffix(hist[0], "seq 1 150") {
		t.Errorf("the page's scrollback has %d lines %q, want 128 from the prompt's line", len(hist), hist)
	}
}

// TestLargerTextOnAPhone: on a phone-sized page an 80-column pane fits
// only in a tiny font; "Larger text" makes it readable (13px or more)
// with the rows scrolling sideways, keeps every row as the server has
// it, is kept across a reload, and "Fit width" fits it again.
func TestLargerTextOnAPhone(t *testing.T) {
	ctx := webtest.Browser(t)
	s := startWeb(t, "80x24")
	id := s.firstPane()
	link := s.pairLink(false)
	webtest.Pair(t, ctx, link)
	page := webtest.Base(link) + fmt.Sprintf("#pane/%d", id)
	// A line as wide as the pane (only a long line can be wider than
	// the page).
	s.cli("send", strconv.FormatUint(id, 10), "--submit", `printf '%079d|\n' 0`)
	fontPx := `parseFloat(getComputedStyle(document.getElementById('scr')).fontSize)`
	sideways := `(() => { const w = document.getElementById('scrwrap'); return w.scrollWidth > w.clientWidth + 20; })()`
	webtest.Do(t, ctx, "the pane at its fitted size",
		chromedp.Navigate(page),
		webtest.Poll(`window.paneflowRows().some(r => r.endsWith('0|'))`),
		webtest.Poll(`document.getElementById('scr').style.fontSize !== ''`),
	)
	if px := webtest.Get(t, ctx, "the fitted font", chromedp.Evaluate[float64](fontPx)); px >= 10 {
		t.Fatalf("an 80-column pane on a 390px page fits at %.1fpx; the test expects a small font", px)
	}
	webtest.Do(t, ctx, "larger text",
		chromedp.Click(chromedp.CSS("#zoom")),
		webtest.Poll(fontPx+` >= 13`),
	)
	webtest.Do(t, ctx, "the long line scrolling sideways",
		webtest.Poll(sideways),
	)
	s.sameRows(ctx, id, "with larger text")
	webtest.Shot(t, ctx, "larger-text.png")
	webtest.Do(t, ctx, "larger text after a reload",
		chromedp.Reload(),
		webtest.Poll(`document.querySelectorAll('#scr .r').length === 24`),
		webtest.Poll(fontPx+` >= 13`),
		webtest.Poll(`document.getElementById('zoom').textContent === 'Fit width'`),
	)
	webtest.Do(t, ctx, "fit width again",
		chromedp.Click(chromedp.CSS("#zoom")),
		webtest.Poll(fontPx+` < 10`),
		webtest.Poll(`!`+sideways),
	)
}
