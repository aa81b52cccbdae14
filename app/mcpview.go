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

// mcpView is the MCP view, a panel: each agent CLI's `paneflow` MCP
// entry (the output of `paneflow mcp status`) and the actions of
// `paneflow mcp` as a pick list. Its widgets are used holding the shell's
// lock (host.guard, host.do); the commands run on goroutines of their
// own, one at a time (run), so a pick made while one runs waits instead
// of being lost.
type mcpView struct {
	widget.BaseWidget
	host   panelHost
	list   *pickList
	status *widget.Label
	body   fyne.CanvasObject
	run    sync.Mutex // held while a command runs
}

var _ panel = (*mcpView)(nil)

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

// newMCPView builds the MCP view over h and starts reading the agents'
// status.
func newMCPView(h panelHost) *mcpView {
	v := &mcpView{host: h, list: newPickList("Enter runs the selected action; Escape closes", h.guard)}
	v.ExtendBaseWidget(v)
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
		h.guard(func() {
			if !h.shown(v) || i >= len(mcpActions) {
				return
			}
			args := mcpActions[i].args
			v.status.SetText("paneflow mcp " + strings.Join(args, " ") + "…")
			go v.runCommand(args)
		})
	}
	v.list.dismiss = func() { h.closePanel(v) }
	v.list.setRows(len(mcpActions), 0)
	fitScroll(v.list.scroll, 200) // every action shown: three rows
	header := widget.NewLabelWithStyle("Paneflow's MCP bridge in the agent CLIs", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	intro := widget.NewLabel(mcpIntroText)
	intro.Wrapping = fyne.TextWrapWord
	v.body = container.NewBorder(container.NewVBox(header, intro, v.list.query, v.list.scroll), nil, nil, nil, container.NewVScroll(v.status))
	go v.runCommand(nil)
	return v
}

// CreateRenderer draws the view.
func (v *mcpView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.body) }

// focusTarget is the action list's field.
func (v *mcpView) focusTarget() fyne.Focusable { return v.list.query }

// runCommand runs one `paneflow mcp` command (nil: only status), then
// status, and shows both; each outcome is also logged.
func (v *mcpView) runCommand(args []string) {
	v.run.Lock()
	defer v.run.Unlock()
	var text strings.Builder
	if args != nil {
		out, code := runMCP(args...)
		v.host.logf("paneflow: mcp %s (exit %d):\n%s", strings.Join(args, " "), code, strings.TrimRight(out, "\n"))
		fmt.Fprintf(&text, "$ paneflow mcp %s (exit %d)\n%s\n", strings.Join(args, " "), code, out)
	}
	out, code := runMCP("status")
	v.host.logf("paneflow: mcp status (exit %d):\n%s", code, strings.TrimRight(out, "\n"))
	fmt.Fprintf(&text, "$ paneflow mcp status\n%s", out)
	v.host.do(func() {
		if v.host.shown(v) {
			v.status.SetText(text.String())
		}
	})
}
