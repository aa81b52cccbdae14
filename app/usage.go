package app

import (
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/proto"
)

// What the agents cost, as the window shows it (issue 33): each pane's
// agent session and its current or last turn in the sidebar and the
// agents overview, each workspace's total in its sidebar card, the day's
// total and budget in the overview's header, and a flow run's in the
// launch pad when it ended. The figures come with every model snapshot
// (Backend.Usage), which a usage_changed event has the reader take
// without describing the panes again.

// tokenCount formats a number of tokens compactly: "812", "12.4k",
// "1.24M".
func tokenCount(n int64) string {
	f := float64(n)
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 99_950:
		return fmt.Sprintf("%.1fk", f/1e3)
	case n < 999_500:
		return fmt.Sprintf("%.0fk", f/1e3)
	case n < 99_950_000:
		return trimZero(fmt.Sprintf("%.2f", f/1e6)) + "M"
	case n < 999_500_000:
		return fmt.Sprintf("%.0fM", f/1e6)
	}
	return trimZero(fmt.Sprintf("%.2f", f/1e9)) + "B"
}

// trimZero drops a decimal part's trailing zeros ("1.50" → "1.5",
// "2.00" → "2").
func trimZero(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// dollars formats a cost: "$0.18", "$12.40", "$123", "<$0.01".
func dollars(usd float64) string {
	switch {
	case usd >= 99.5:
		return fmt.Sprintf("$%.0f", usd)
	case usd >= 0.005 || usd <= 0:
		return fmt.Sprintf("$%.2f", math.Max(usd, 0))
	}
	return "<$0.01"
}

// usageText is an amount of usage as the window shows it: its tokens,
// then its cost when some of them had a price ("12.4k tok · $0.18"; "≥"
// when others had none, whose cost is unknown). The cost is never
// guessed: tokens without a price show tokens only.
func usageText(u proto.Usage) string {
	t := tokenCount(u.Total) + " tok"
	if u.CostUSD == nil {
		return t
	}
	c := dollars(*u.CostUSD)
	if u.UnpricedTokens > 0 {
		c = "≥" + c
	}
	return t + " · " + c
}

// paneUsage is the sidebar's usage lines of a pane whose agent's usage
// is known: its session's and its current or last turn's.
func paneUsage(u proto.UsageStatus) (session, turn string) {
	return "session " + usageText(u.Session), "turn " + usageText(u.LastTurn)
}

// dayText is the overview's line about the day's usage: the total, and
// where the daily budget stands when the configuration sets one; level
// is widget.WarningImportance from 80 % of the budget on,
// DangerImportance once it is spent.
func dayText(sum proto.UsageSummary) (string, widget.Importance) {
	line := "Today: " + usageText(sum.Total)
	d := sum.Daily
	if d == nil {
		return line, widget.MediumImportance
	}
	var limits []string
	frac := 0.0
	if d.LimitTokens > 0 {
		limits = append(limits, tokenCount(d.LimitTokens)+" tok")
		frac = math.Max(frac, float64(d.Used.Total)/float64(d.LimitTokens))
	}
	if d.LimitCostUSD > 0 {
		limits = append(limits, dollars(d.LimitCostUSD))
		if d.Used.CostUSD != nil {
			frac = math.Max(frac, *d.Used.CostUSD/d.LimitCostUSD)
		}
	}
	if len(limits) == 0 {
		return line, widget.MediumImportance
	}
	line += fmt.Sprintf(" — %.0f %% of the daily budget (%s)", math.Floor(frac*100), strings.Join(limits, ", "))
	switch {
	case frac >= 1:
		return line + ": exceeded", widget.DangerImportance
	case frac >= 0.8:
		return line, widget.WarningImportance
	}
	return line, widget.MediumImportance
}

// probeUsageLocked writes where each sidebar usage line that changed
// since the last call is, with its text, when PANEFLOW_UI_PROBE=1 and
// Fyne's loop has started (the
// GUI tests find it on the screen): `ui-probe sidebar-usage pane=N
// text="…" x=… y=…` for a pane's session, `… turn=N …` for its turn,
// `… workspace=N …` for a workspace's total.
func (s *shell) probeUsageLocked() {
	if os.Getenv("PANEFLOW_UI_PROBE") != "1" {
		return
	}
	select {
	case <-s.life.started:
	default:
		// Work posted before Fyne's loop runs waits for it, and start
		// applies the first snapshot before: the reader's first one,
		// within a tick, is probed.
		return
	}
	for _, cv := range s.chrome.side.views {
		lines := map[string]fyne.CanvasObject{}
		if cv.usage != nil {
			lines[fmt.Sprintf("workspace=%d", cv.data.ID)] = cv.usage
		}
		for id, rv := range cv.rows {
			if rv.data.Usage == "" {
				continue
			}
			for _, t := range canvasTexts(rv.obj) {
				switch strings.TrimSpace(t.Text) {
				case rv.data.Usage:
					lines[fmt.Sprintf("pane=%d", id)] = t
				case rv.data.Turn:
					lines[fmt.Sprintf("turn=%d", id)] = t
				}
			}
		}
		for key, o := range lines {
			if s.chrome.probes.usage[key] == o {
				continue
			}
			// A row is built anew whenever its content changes (its text
			// or another line's): each new line is probed once drawn.
			s.chrome.probes.usage[key] = o
			what := fmt.Sprintf("sidebar-usage %s text=%q", key, strings.TrimSpace(o.(*canvas.Text).Text))
			s.probeUsageLater(key, o, what, 200)
		}
	}
}

// probeUsageLater writes line o's probe once a frame has placed it (a
// row scrolled out of the sidebar's view, or not laid out yet, has no
// place), looking every 50 ms, tries times at most, until the line is
// replaced or the window quits. (Posted work alone can run many times
// before a frame: probeLater's tries would all be spent before it.)
func (s *shell) probeUsageLater(key string, o fyne.CanvasObject, what string, tries int) {
	time.AfterFunc(50*time.Millisecond, func() {
		s.do(func() {
			if s.life.quitting || s.chrome.probes.usage[key] != o {
				return
			}
			if l, ok := s.probeLineLocked(what, o); ok && o.Size().Width > 0 {
				fmt.Fprintln(os.Stderr, l)
				return
			}
			if tries > 1 {
				s.probeUsageLater(key, o, what, tries-1)
			}
		})
	})
}

// canvasTexts is every canvas text in o (containers and tap boxes
// walked).
func canvasTexts(o fyne.CanvasObject) []*canvas.Text {
	switch o := o.(type) {
	case *canvas.Text:
		return []*canvas.Text{o}
	case *fyne.Container:
		var out []*canvas.Text
		for _, c := range o.Objects {
			out = append(out, canvasTexts(c)...)
		}
		return out
	case *tapBox:
		return canvasTexts(o.content)
	}
	return nil
}
