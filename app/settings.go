package app

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"reflect"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/terminal"
)

// Font size limits of the font zoom (spec gui.md §5: 8–32 pt).
const (
	minFontSize = 8
	maxFontSize = 32
)

// configMsg starts the banner's messages about the configuration.
const configMsg = "config: "

// applyConfigLocked takes a configuration (at start, or reloaded): the
// keymap with the user's shortcuts, fonts, palette and Fyne theme. Its
// problems and warns (from reading the file) go to the banner; nothing
// here fails.
func (s *shell) applyConfigLocked(cfg config.Config, warns []string, initial bool) {
	if s.hosts() != nil && !initial {
		// Hosts added to the file are added; one taken out stays until
		// the window is opened again (a file that failed to parse lists
		// none, which must not detach every host).
		s.hosts().AddHosts(cfg.Hosts)
	}
	msgs := append(slices.Clip(warns), s.conf.take(cfg, initial, s.fontScale())...)
	dark := s.conf.dark()
	if th, ok := s.a.Settings().Theme().(variantTheme); !ok || th.dark != dark {
		s.a.Settings().SetTheme(variantTheme{dark: dark})
		if s.chrome.side != nil && s.pos.snap != nil {
			s.chrome.side.reset() // its texts carry colours: rebuild them
			s.chrome.side.update(sidebarModel(s.pos.snap, &s.agents, s.panes.groups))
		}
	}
	for _, v := range s.panes.views {
		v.SetFonts(s.conf.look.fonts)
		v.SetPalette(s.conf.look.palette)
		v.SetCursor(cursorShape(cfg.Terminal.CursorShape), blinkMode(cfg.Terminal.CursorBlink))
		v.SetScrollMultiplier(cfg.Terminal.ScrollMultiplier)
	}
	if s.chrome.banner != nil {
		// The file as read now is all that counts: the last reading's
		// problems go, fixed or not (those still there are shown again).
		s.chrome.banner.drop(configMsg)
		for _, m := range msgs {
			s.chrome.banner.show(configMsg + m)
		}
	} else {
		for _, m := range msgs {
			s.logf("paneflow: config: %s", m)
			s.chrome.notice(configMsg + m)
		}
	}
}

// fontScale is the canvas scale fonts are built for.
func (s *shell) fontScale() float32 {
	if s.w != nil {
		if sc := s.w.Canvas().Scale(); sc > 0 {
			return sc
		}
	}
	return 1
}

// rebuildFontsLocked builds the font set for the configured family at
// the current zoomed size and the canvas scale (paneLook.build).
func (s *shell) rebuildFontsLocked() error {
	return s.conf.look.build(s.conf.cfg, s.fontScale())
}

// setFontSizeLocked zooms every pane's font to size points (clamped to
// 8–32).
func (s *shell) setFontSizeLocked(size float64) {
	size = min(max(size, minFontSize), maxFontSize)
	if size == s.conf.look.size {
		return
	}
	s.conf.look.size = size
	if err := s.rebuildFontsLocked(); err != nil {
		// A font_family problem: it goes with the next reading of the
		// file, as applyConfigLocked's do.
		s.chrome.banner.show(configMsg + err.Error())
	}
	for _, v := range s.panes.views {
		v.SetFonts(s.conf.look.fonts)
	}
}

// checkScaleLocked rebuilds the fonts when the canvas scale changed (the
// window moved to another monitor, or the scale was only known once the
// window showed).
func (s *shell) checkScaleLocked() {
	if s.fontScale() == s.conf.look.scaleBuilt {
		return
	}
	if err := s.rebuildFontsLocked(); err != nil {
		s.logf("paneflow: %v", err)
	}
	for _, v := range s.panes.views {
		v.SetFonts(s.conf.look.fonts)
	}
}

// paneInset is the gap, in window units, between a pane's edges and its
// text; the broadcast stripe (termview.StripeWidth) lies in it, clear of
// the first column.
const paneInset = termview.StripeWidth + 2

// viewOptionsLocked are the options of a new pane view.
func (s *shell) viewOptionsLocked(id uint64) termview.Options {
	o := termview.Options{
		Post:             s.post,
		ScrollMultiplier: s.conf.cfg.Terminal.ScrollMultiplier,
		Keys:             s.onViewKey,
		OnFocus: func() {
			// Runs while the shell may hold mu (when it focused the view
			// itself, after the model changed): no UI state here.
			if s.kb.selfFocused(id) {
				return
			}
			s.work.mutate("focus", func() error {
				if cur, ok := s.b.FocusedSurface(s.workspaceOf(id)); ok && cur == id {
					return nil
				}
				return s.b.Focus(id)
			})
		},
		ProbeName:   fmt.Sprint(id),
		OnInput:     s.noteInput,
		Menu:        s.paneMenu,
		CursorBlink: blinkMode(s.conf.cfg.Terminal.CursorBlink),
		CursorShape: cursorShape(s.conf.cfg.Terminal.CursorShape),
		Inset:       paneInset,
	}
	s.conf.look.viewOptions(&o)
	if os.Getenv("PANEFLOW_RENDER_PROBE") == "1" {
		o.Probe = os.Stderr
	}
	return o
}

// workspaceOf returns the id of pane id's workspace, 0 if it is gone.
func (s *shell) workspaceOf(id uint64) uint64 {
	for _, p := range s.b.Panes() {
		if p.ID == id {
			return p.WorkspaceID
		}
	}
	return 0
}

// cursorShape maps terminal.cursor_shape to the shape drawn while the
// program has chosen none.
func cursorShape(v string) terminal.CursorShape {
	switch v {
	case config.CursorBeam:
		return terminal.CursorBar
	case config.CursorUnderline:
		return terminal.CursorUnderline
	}
	return terminal.CursorBlock
}

// blinkMode maps terminal.cursor_blink to the view's mode.
func blinkMode(v string) termview.BlinkMode {
	switch strings.ToLower(v) {
	case "on":
		return termview.BlinkOn
	case "off":
		return termview.BlinkOff
	}
	return termview.BlinkProgram
}

// watchConfig reloads the configuration file when it changes and applies
// it on the UI goroutine. The watcher's first reading is applied too when
// it differs from the one the window started with (Options.Config and
// ConfigWarnings, read earlier): a file fixed in between must not leave
// its old warning on screen.
func (s *shell) watchConfig(ctx context.Context, path string) {
	s.life.wg.Add(1)
	lastCfg, lastWarns := s.o.Config, s.o.ConfigWarnings
	go func() {
		defer s.life.wg.Done()
		err := config.Watch(ctx, path, func(c config.Config, warns []string) {
			if reflect.DeepEqual(c, lastCfg) && slices.Equal(warns, lastWarns) {
				return // the reading the window has
			}
			lastCfg, lastWarns = c, warns
			s.do(func() {
				if !s.life.quitting {
					s.applyConfigLocked(c, warns, false)
				}
			})
		})
		if err != nil && ctx.Err() == nil {
			s.logf("paneflow: config watch: %v", err)
		}
	}()
}

// variantTheme is Fyne's default theme forced to the dark or light
// variant, following the configured theme.
type variantTheme struct{ dark bool }

var _ fyne.Theme = variantTheme{}

func (t variantTheme) variant() fyne.ThemeVariant {
	if t.dark {
		return theme.VariantDark
	}
	return theme.VariantLight
}

// Color returns the default theme's colour in the forced variant.
func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return theme.DefaultTheme().Color(n, t.variant())
}

// Font returns the default theme's font.
func (t variantTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

// Icon returns the default theme's icon.
func (t variantTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

// Size returns the default theme's size.
func (t variantTheme) Size(n fyne.ThemeSizeName) float32 { return theme.DefaultTheme().Size(n) }
