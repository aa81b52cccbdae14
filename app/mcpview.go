package app

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/mcpinstall"
)

// mcpView is the open MCP view: each agent CLI's `paneflow` MCP entry
// (the output of `paneflow mcp status`) and the actions of `paneflow mcp`
// as a pick list. Its widgets are used holding the shell's lock; the
// commands run on goroutines of their own, one at a time (run), so a
// pick made while one runs waits instead of being lost. nil when closed.
type mcpView struct {
	list   *pickList
	status *widget.Label
	pop    *popup
	run    sync.Mutex // held while a command runs
}

// mcpActions are the view's rows: a title and the `paneflow mcp`
// arguments it runs.
var mcpActions = []struct {
	title string
	args  []string
}{
	{"Install for the detected agents (read-only tools)", []string{"install"}},
	{"Install with orchestration (--orchestrate: spawn and drive other agents)", []string{"install", "--orchestrate"}},
	{"Remove the entries", []string{"uninstall"}},
}

// runMCP runs `paneflow mcp args…` in this process's environment and
// returns its output (stdout and stderr) and exit status.
func runMCP(args ...string) (string, int) {
	var out bytes.Buffer
	code := mcpinstall.RunCommand(args, &out, &out, mcpinstall.Env{Getenv: os.Getenv, GOOS: runtime.GOOS, Install: "choose an Install action above"})
	return out.String(), code
}

// openMCPLocked opens the MCP view (or closes it when open) and reads
// the agents' status.
func (s *shell) openMCPLocked() {
	if shownAs[*mcpView](s) != nil {
		s.closeOverlayLocked()
		return
	}
	s.closeOverlaysLocked()
	v := &mcpView{list: newPickList("Enter runs the selected action; Escape closes", s.guard)}
	v.status = widget.NewLabel("reading the agents' configuration…")
	v.status.TextStyle = fyne.TextStyle{Monospace: true}
	v.status.Wrapping = fyne.TextWrapWord
	fg := theme.Color(theme.ColorNameForeground)
	v.list.build = func(i int) fyne.CanvasObject {
		t := canvas.NewText(mcpActions[i].title, fg)
		t.TextSize = nameSize + 1
		return t
	}
	v.list.activate = func(i int) {
		s.guard(func() {
			if s.top != v || i >= len(mcpActions) {
				return
			}
			args := mcpActions[i].args
			v.status.SetText("paneflow mcp " + strings.Join(args, " ") + "…")
			go s.mcpRun(v, args)
		})
	}
	v.list.dismiss = func() { s.guard(func() { closeShownLocked[*mcpView](s) }) }
	v.list.setRows(len(mcpActions), 0)
	fitScroll(v.list.scroll, 200) // every action shown: three rows
	header := widget.NewLabelWithStyle("Paneflow's MCP bridge in the agent CLIs", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	intro := widget.NewLabel(mcpIntroText)
	intro.Wrapping = fyne.TextWrapWord
	body := container.NewBorder(container.NewVBox(header, intro, v.list.query, v.list.scroll), nil, nil, nil, container.NewVScroll(v.status))
	s.top = v
	v.pop = s.showPopupLocked(body, fyne.NewSize(760, 420), v.list.query)
	go s.mcpRun(v, nil)
}

// mcpRun runs one `paneflow mcp` command (nil: only status), then status,
// and shows both in v; each outcome is also logged.
func (s *shell) mcpRun(v *mcpView, args []string) {
	v.run.Lock()
	defer v.run.Unlock()
	var text strings.Builder
	if args != nil {
		out, code := runMCP(args...)
		s.logf("paneflow: mcp %s (exit %d):\n%s", strings.Join(args, " "), code, strings.TrimRight(out, "\n"))
		fmt.Fprintf(&text, "$ paneflow mcp %s (exit %d)\n%s\n", strings.Join(args, " "), code, out)
	}
	out, code := runMCP("status")
	s.logf("paneflow: mcp status (exit %d):\n%s", code, strings.TrimRight(out, "\n"))
	fmt.Fprintf(&text, "$ paneflow mcp status\n%s", out)
	s.do(func() {
		if s.top == v {
			v.status.SetText(text.String())
		}
	})
}
