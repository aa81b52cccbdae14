package app

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// timelineView is the timeline of the agent in a pane, a panel: its
// turns (ai.history), newest first, each with when it began, how long it
// took, the tools it ran, its prompt (when the agent's hook gave it) and
// its result. Activating a turn opens the replay at the first screen
// shown in that turn (the newest before it when the turn showed none);
// the Replay button opens it at the newest screen. The pane's turns and
// screens are read on a goroutine of its own (host.goCall), cancelled
// when the view is dismissed. Its widgets are used holding the shell's
// lock (host.guard, host.do).
type timelineView struct {
	widget.BaseWidget
	host    historyHost
	pane    uint64
	name    string
	list    *pickList
	all     []proto.AITurn // every turn, newest first
	turns   []proto.AITurn // those matching the filter, as shown
	hist    []proto.AITurn // every turn, oldest first
	screens []proto.HeldScreen
	status  *widget.Label
	body    fyne.CanvasObject
	calls
}

var _ panel = (*timelineView)(nil)

// newTimelineView builds the timeline of pane id (named name) over h and
// starts reading it. The caller holds the shell's lock.
func newTimelineView(h historyHost, id uint64, name string) *timelineView {
	v := &timelineView{host: h, pane: id, name: name, list: newPickList("Filter the turns (prompt, tools, result)", h.guard), calls: newCalls()}
	v.ExtendBaseWidget(v)
	v.status = widget.NewLabel("reading the agent's turns…")
	v.status.Wrapping = fyne.TextWrapWord
	v.list.build = func(i int) fyne.CanvasObject { return turnRowObject(v.turns[i]) }
	v.list.activate = func(i int) {
		h.guard(func() {
			if h.shown(v) && i < len(v.turns) {
				h.openReplay(v.pane, v.name, screenOfTurn(v.turns[i], v.hist, v.screens), nil)
			}
		})
	}
	v.list.dismiss = func() { h.closePanel(v) }
	v.list.query.OnChanged = func(q string) {
		h.guard(func() {
			if h.shown(v) {
				v.turns = filterTurns(v.all, q)
				v.list.setRows(len(v.turns), 0)
			}
		})
	}
	replay := widget.NewButtonWithIcon("Replay screens", theme.MediaPlayIcon(), func() {
		h.guard(func() {
			if h.shown(v) {
				h.openReplay(v.pane, v.name, 0, nil)
			}
		})
	})
	v.list.setRows(0, 0)
	title := widget.NewLabelWithStyle("Agent timeline: pane "+vis.String(name), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(container.NewBorder(nil, nil, nil, replay, title), v.list.query, v.status)
	v.body = container.NewBorder(top, nil, nil, nil, v.list.scroll)
	cl, lid := h.paneClient(id)
	ctx := v.ctx
	h.goCall(func() {
		hist, herr := cl.AIHistory(ctx, proto.AIHistoryParams{SurfaceID: lid})
		list, serr := cl.SurfaceScreens(ctx, proto.SurfaceScreensParams{Target: proto.SurfaceTarget(lid)})
		if ctx.Err() != nil {
			return
		}
		h.do(func() {
			if !h.shown(v) {
				return
			}
			v.all = make([]proto.AITurn, len(hist.Turns))
			for i, t := range hist.Turns {
				v.all[len(v.all)-1-i] = t
			}
			v.screens, v.hist = list.Screens, hist.Turns
			v.turns = filterTurns(v.all, v.list.query.Text)
			v.list.setRows(len(v.turns), 0)
			v.status.SetText(timelineSummary(len(v.all), len(list.Screens), herr, serr))
		})
	})
	return v
}

// CreateRenderer draws the view.
func (v *timelineView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.body) }

// focusTarget is the filter field.
func (v *timelineView) focusTarget() fyne.Focusable { return v.list.query }

// timelineSummary is the timeline's status line.
func timelineSummary(turns, screens int, herr, serr error) string {
	var parts []string
	switch {
	case herr != nil:
		parts = append(parts, "turns: "+herr.Error())
	case turns == 0:
		parts = append(parts, timelineNoTurnsText)
	default:
		parts = append(parts, count(turns, "turn", "turns, newest first")+". Enter replays the screens of the turn.")
	}
	if serr != nil {
		parts = append(parts, "screens: "+serr.Error())
	} else {
		parts = append(parts, count(screens, "screen", "screens")+" held.")
	}
	return strings.Join(parts, " ")
}

// filterTurns is the turns whose agent, prompt, tools or result hold q
// (any case); all of them when q is empty.
func filterTurns(turns []proto.AITurn, q string) []proto.AITurn {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return turns
	}
	var out []proto.AITurn
	for _, t := range turns {
		hay := strings.ToLower(t.Tool + " " + t.Prompt + " " + strings.Join(t.Tools, " ") + " " + t.Result)
		if strings.Contains(hay, q) {
			out = append(out, t)
		}
	}
	return out
}

// turnRowObject draws one turn: its number, agent, start, duration and
// tools, and its result under them.
func turnRowObject(t proto.AITurn) fyne.CanvasObject {
	head := canvas.NewText(turnTitle(t), theme.Color(theme.ColorNameForeground))
	head.TextSize = nameSize + 1
	head.TextStyle = fyne.TextStyle{Bold: true}
	result := t.Result
	if result == "" {
		result = "(no result reported)"
	}
	res := canvas.NewText(firstLineOf(vis.String(result), 150), theme.Color(theme.ColorNamePlaceHolder))
	res.TextSize = nameSize
	if t.Prompt == "" {
		return container.NewVBox(head, res)
	}
	prompt := canvas.NewText("> "+firstLineOf(vis.String(t.Prompt), 150), theme.Color(theme.ColorNameForeground))
	prompt.TextSize = nameSize
	prompt.TextStyle = fyne.TextStyle{Italic: true}
	return container.NewVBox(head, prompt, res)
}

// turnTitle is a turn's first line.
func turnTitle(t proto.AITurn) string {
	start := t.StartedAt
	if at, err := time.Parse(time.RFC3339Nano, t.StartedAt); err == nil {
		start = at.Local().Format("15:04:05")
	}
	took := "running"
	if t.DurationMS != nil {
		took = (time.Duration(*t.DurationMS) * time.Millisecond).Round(100 * time.Millisecond).String()
		if t.End != "" && t.End != "stop" {
			took += " (" + t.End + ")"
		}
	}
	tools := "no tools"
	if len(t.Tools) > 0 {
		tools = "tools: " + strings.Join(t.Tools, ", ")
	}
	return vis.String(fmt.Sprintf("turn %d · %s · %s · %s · %s", t.Turn, t.Tool, start, took, tools))
}

// firstLineOf is s's first line, cut to most runes.
func firstLineOf(s string, most int) string {
	s, _, cut := strings.Cut(s, "\n")
	if r := []rune(s); len(r) > most {
		return string(r[:most-1]) + "…"
	} else if cut {
		return s + " …"
	}
	return s
}

// screenOfTurn is the screen to replay for turn t: the first of screens
// (oldest first) shown in it (proto.TurnShownIn over turns, oldest
// first), else the newest shown before it began; 0 (the newest) when
// there is none.
func screenOfTurn(t proto.AITurn, turns []proto.AITurn, screens []proto.HeldScreen) uint64 {
	start, err := time.Parse(time.RFC3339Nano, t.StartedAt)
	if err != nil {
		return 0
	}
	var before uint64
	for _, hs := range screens {
		in, ok := proto.TurnShownIn(hs.FirstShown, turns)
		if ok && in.Turn == t.Turn {
			return hs.Screen
		}
		if at, err := time.Parse(time.RFC3339Nano, hs.FirstShown); err == nil && at.Before(start) {
			before = hs.Screen
		}
	}
	return before
}
