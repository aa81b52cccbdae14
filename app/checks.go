package app

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2/theme"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/proto"
)

// checksBadge is what the sidebar's pane rows and the agents overview say
// of a worktree's checks (a bus.ChecksChanged): "checks … test" while a
// run goes on (the check running), "checks ✓ 12s" when they passed (the
// checks' durations added up), "checks ✗ lint, test" naming the failing
// ones; "" when none ran.
func checksBadge(ev bus.ChecksChanged) string {
	switch ev.Status {
	case proto.CheckRunning:
		for _, c := range ev.Checks {
			if c.Status == proto.CheckRunning {
				return "checks … " + c.Name
			}
		}
		return "checks …"
	case proto.CheckFail:
		var failed []string
		for _, c := range ev.Checks {
			if c.Status == proto.CheckFail {
				failed = append(failed, c.Name)
			}
		}
		return "checks ✗ " + strings.Join(failed, ", ")
	case proto.CheckPass:
		if len(ev.Checks) == 0 {
			return ""
		}
		return "checks ✓ " + checksDuration(time.Duration(ev.DurationMS)*time.Millisecond)
	}
	return ""
}

// checksDuration is a run's duration: "<0.1s", "0.4s" under a second,
// else as shortDuration ("12s", "3m").
func checksDuration(d time.Duration) string {
	if d < 100*time.Millisecond {
		return "<0.1s"
	}
	if d < time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return shortDuration(d)
}

// checksColor is the colour of a checks badge.
func checksColor(badge string) color.Color {
	switch {
	case strings.HasPrefix(badge, "checks ✓"):
		return theme.Color(theme.ColorNameSuccess)
	case strings.HasPrefix(badge, "checks ✗"):
		return theme.Color(theme.ColorNameError)
	}
	return theme.Color(theme.ColorNamePrimary)
}

// paneChecks is the checks badge of pane id: that of the worktree its
// directory is in (snap.Roots), "" when its checks never ran since the
// server started.
func paneChecks(snap *snapshot, checks map[string]bus.ChecksChanged, id uint64) string {
	root, ok := snap.Roots[id]
	if !ok {
		return ""
	}
	ev, ok := checks[root]
	if !ok {
		return ""
	}
	return checksBadge(ev)
}
