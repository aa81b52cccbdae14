//go:build linux

package web

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/paneflow-go/paneflow/test/internal/fidelitydata"
	"github.com/paneflow-go/paneflow/test/internal/webtest"
)

// TestFidelityProgramsInTheBrowser shows the programs the terminal
// fidelity tests run (test/fidelity, on the same inputs) in the browser and
// reads every row back against the server's screen: ls's colours, CJK,
// emoji and combining text with absolute moves, multi-code-point clusters,
// less with overstrike paging to the end, and top redrawing itself.
func TestFidelityProgramsInTheBrowser(t *testing.T) {
	for _, p := range []string{"ls", "less", "top"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (scripts/deps.sh installs it)", p)
		}
	}
	ctx := webtest.Browser(t)
	s := startWeb(t, "80x24")
	id := s.firstPane()
	pane := strconv.FormatUint(id, 10)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(s.dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ls, err := exec.Command("sh", "-c", "ls --color=always -la /usr/bin | head -50").Output()
	if err != nil {
		t.Fatal(err)
	}
	write("ls.out", ls)
	write("wide.sh", []byte(fidelitydata.WideScript))
	write("emoji.sh", []byte(fidelitydata.EmojiScript))
	write("less.txt", append(fidelitydata.TextFile(200), "b\bbo\bol\bld\bd and _\bu_\bn_\bd_\be_\br\n"...))

	link := s.pairLink(false)
	webtest.Pair(t, ctx, link)
	webtest.Do(t, ctx, "the pane", chromedp.Navigate(webtest.Base(link)+fmt.Sprintf("#pane/%d", id)),
		webtest.Poll(`document.querySelectorAll('#scr .r').length === 24`))
	// Each command ends by printing DONE-2-<name>, which its own echo
	// (DONE-$((1+1))-<name>) does not contain.
	for _, c := range []struct{ name, cmd string }{
		{"ls", "cat ls.out"},
		{"wide", "sh wide.sh"},
		{"emoji", "sh emoji.sh"},
	} {
		s.cli("send", pane, "--submit", "clear; "+c.cmd+"; echo DONE-$((1+1))-"+c.name)
		webtest.Do(t, ctx, c.name, webtest.Poll(`window.paneflowRows().some(r => r.includes('DONE-2-`+c.name+`'))`))
		s.sameRows(ctx, id, c.name)
	}

	s.cli("send", pane, "--submit", "clear; less less.txt")
	webtest.Do(t, ctx, "less", webtest.Poll(`window.paneflowRows().some(r => /less\.txt/.test(r))`))
	s.sameRows(ctx, id, "less's first page")
	s.cli("send", pane, "G")
	webtest.Do(t, ctx, "less at the end", webtest.Poll(`window.paneflowRows().some(r => r.includes('END'))`))
	s.sameRows(ctx, id, "less at the end")
	webtest.Shot(t, ctx, "less.png")
	s.cli("send", pane, "q")

	s.cli("send", pane, "--submit", "clear; top -d 2")
	webtest.Do(t, ctx, "top", webtest.Poll(`window.paneflowRows().some(r => r.includes('PID'))`))
	s.sameRows(ctx, id, "top")
	webtest.Shot(t, ctx, "top.png")
	s.cli("send", pane, "q")
}
