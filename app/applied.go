package app

import (
	"strings"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/config"
)

// appliedConfig is the configuration as the window applied it
// (applyConfigLocked): the file's values, the key map built from its
// [shortcuts] and how the panes are drawn (fonts, palette, the zoomed
// size) from its font and theme keys. The three change together, from
// one reading of the file. Guarded by the shell's lock.
type appliedConfig struct {
	cfg  config.Config
	keys *keymap.Map
	look paneLook
}

// take applies cfg for a canvas at scale: the key map with cfg's
// shortcuts, the fonts again when a font key changed (always when
// initial) and the palette of its theme. It returns the problems found
// (shortcuts it does not know, a font that failed to load); nothing here
// fails.
func (c *appliedConfig) take(cfg config.Config, initial bool, scale float32) []string {
	old := c.cfg
	c.cfg = cfg
	keys := keymap.Default(goos)
	msgs := keys.Override(cfg.Shortcuts)
	c.keys = keys
	if initial || cfg.FontFamily != old.FontFamily || cfg.LineHeight != old.LineHeight || cfg.FontSize != old.FontSize {
		c.look.size = cfg.FontSize
		if err := c.look.build(cfg, scale); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	c.look.setTheme(c.dark())
	return msgs
}

// dark reports whether the configured theme is dark (any but "light").
func (c *appliedConfig) dark() bool { return !strings.EqualFold(c.cfg.Theme, "light") }
