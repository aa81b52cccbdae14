package core

import (
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/internal/userdir"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/usage"
	"github.com/paneflow-go/paneflow/workspace"
)

// newUsage builds the usage subsystem from the configuration's [usage]
// table, keeping its day files in dir ("" none).
func newUsage(m *workspace.Manager, cfg config.Usage, dir string, logf func(string, ...any)) *usage.Usage {
	overrides := make(map[string]usage.PriceOverride, len(cfg.Prices))
	for model, p := range cfg.Prices {
		overrides[model] = usage.PriceOverride{
			Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, CacheWrite1h: p.CacheWrite1h,
			LongAbove: p.LongAbove, LongInput: p.LongInput, LongOutput: p.LongOutput, LongCacheRead: p.LongCacheRead, LongCacheWrite: p.LongCacheWrite,
		}
	}
	prices, warns := usage.NewPrices(overrides)
	for _, w := range warns {
		logf("paneflow: config: %s", w)
	}
	return usage.New(usage.Options{
		Panes:  usagePanes{m},
		Prices: prices,
		Dir:    dir,
		Daily:  usage.Limit{Tokens: cfg.DailyTokens, Cost: usage.USD(cfg.DailyCostUSD)},
		// The day's budget pauses unless the configuration says not to.
		DailyPause: cfg.DailyPause,
	})
}

// usageDir resolves Options.UsageDir: "" is the state directory's
// paneflow/usage, "-" keeps nothing on disk.
func (o Options) usageDir(getenv func(string) string, logf func(string, ...any)) string {
	switch o.UsageDir {
	case "-":
		return ""
	case "":
		base, err := userdir.Base(userdir.State, getenv, runtime.GOOS)
		if err != nil {
			logf("paneflow: usage: %v; the day's totals are kept in memory only", err)
			return ""
		}
		return filepath.Join(base, "paneflow", "usage")
	}
	return o.UsageDir
}

// usagePanes shows the workspace model to the usage subsystem, which
// does not import it.
type usagePanes struct{ m *workspace.Manager }

// Pane returns pane id's workspace and its title.
func (p usagePanes) Pane(id uint64) (usage.PaneInfo, bool) {
	ws, ok := p.m.WorkspaceOf(id)
	if !ok {
		return usage.PaneInfo{}, false
	}
	info := usage.PaneInfo{WorkspaceID: ws}
	for _, w := range p.m.Workspaces() {
		if w.ID == ws {
			info.Workspace = w.Title
		}
	}
	return info, true
}

// Interactive reports whether pane id's program turned bracketed paste
// on, as the agents' TUIs do and their print modes do not.
func (p usagePanes) Interactive(id uint64) bool {
	s, ok := p.m.Surface(id)
	return ok && s.Terminal().Emulator().Modes().BracketedPaste
}

// Press types keys into pane id, encoded for the modes its program set
// (the agents turn on the kitty keyboard protocol, where Escape is a CSI
// sequence).
func (p usagePanes) Press(id uint64, keys ...string) error {
	s, ok := p.m.Surface(id)
	if !ok {
		return fmt.Errorf("pane %d is closed", id)
	}
	for _, k := range keys {
		ev, err := terminal.ParseKey(k)
		if err != nil {
			return err
		}
		b, ok := terminal.EncodeKey(ev, s.Terminal().Emulator().Modes())
		if !ok {
			continue
		}
		if err := s.Terminal().SendInput(b); err != nil {
			return err
		}
	}
	return nil
}
