package app

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/config"
)

// errNoConfigFile is the settings view's answer when the window has no
// configuration file to write (Options.ConfigPath is "").
var errNoConfigFile = errors.New("this window has no configuration file (its directory could not be found); settings cannot be saved")

// settingKind is how a setting is edited.
type settingKind int

const (
	settingChoice settingKind = iota // one of choices
	settingText                      // free text
	settingInt                       // an integer in [lo, hi]
	settingFloat                     // a number in [lo, hi]
	settingBool                      // on or off
)

// settingDef is one row of the settings view: a key of paneflow.toml
// (config's spelling; see the field docs of config.Config), how it is
// edited, and its value in a configuration.
type settingDef struct {
	group, key, label string
	// server marks the keys the server reads when it starts (the window
	// applies the others at once).
	server  bool
	kind    settingKind
	choices []string
	lo, hi  float64
	hint    string
	get     func(config.Config) any // a string, bool, int64 or float64
}

// settingDefs are the settings view's rows, in order; the group starts a
// new section.
var settingDefs = []settingDef{
	{group: "Appearance", key: "theme", label: "Theme", kind: settingChoice, choices: []string{config.ThemeDark, config.ThemeLight},
		get: func(c config.Config) any { return c.Theme }},
	{group: "Appearance", key: "font_family", label: "Font family", kind: settingText, hint: "an installed family; empty: the bundled monospace font",
		get: func(c config.Config) any { return c.FontFamily }},
	{group: "Appearance", key: "font_size", label: "Font size", kind: settingFloat, lo: 8, hi: 32, hint: "points, 8–32",
		get: func(c config.Config) any { return c.FontSize }},
	{group: "Appearance", key: "line_height", label: "Line height", kind: settingFloat, lo: 1, hi: 2.5, hint: "1.0–2.5 times the font's",
		get: func(c config.Config) any { return c.LineHeight }},
	{group: "Appearance", key: "terminal.cursor_shape", label: "Cursor", kind: settingChoice, choices: []string{config.CursorBlock, config.CursorBeam, config.CursorUnderline},
		get: func(c config.Config) any { return c.Terminal.CursorShape }},
	{group: "Appearance", key: "terminal.cursor_blink", label: "Cursor blink", kind: settingChoice, choices: []string{config.BlinkTerminalControlled, config.BlinkOn, config.BlinkOff},
		get: func(c config.Config) any { return c.Terminal.CursorBlink }},
	{group: "Terminal", key: "default_shell", label: "Shell", server: true, kind: settingText, hint: "for new panes; empty: $SHELL",
		get: func(c config.Config) any { return c.DefaultShell }},
	{group: "Terminal", key: "terminal.scrollback_lines", label: "Scrollback", server: true, kind: settingInt, lo: 100, hi: 100000, hint: "lines per new pane, 100–100000",
		get: func(c config.Config) any { return int64(c.Terminal.ScrollbackLines) }},
	{group: "Terminal", key: "terminal.screen_history_disk_kib", label: "History on disk", server: true, kind: settingInt, lo: 0, hi: 1 << 20, hint: "KiB per pane of full-screen history kept on disk, 0: off; from the server's next start",
		get: func(c config.Config) any { return int64(c.Terminal.ScreenHistoryDiskKiB) }},
	{group: "Terminal", key: "terminal.scroll_multiplier", label: "Wheel speed", kind: settingFloat, lo: 0.1, hi: 10, hint: "0.1–10 times 3 lines a notch",
		get: func(c config.Config) any { return c.Terminal.ScrollMultiplier }},
	{group: "Terminal", key: "shell_integration", label: "Shell integration", server: true, kind: settingBool, hint: "keeps the agent launch shim in PATH, reports the directory",
		get: func(c config.Config) any { return c.ShellIntegration }},
	{group: "Notifications", key: "notify_when_agent_waiting", label: "When an agent waits", kind: settingChoice,
		choices: []string{config.NotifyPrimaryScreen, config.NotifyAllScreens, config.NotifyNever},
		get:     func(c config.Config) any { return c.NotifyWhenAgentWaiting }},
	{group: "Notifications", key: "notify_without_window", label: "Without a window", server: true, kind: settingBool, hint: "the server notifies while no window is open",
		get: func(c config.Config) any { return c.NotifyWithoutWindow }},
	{group: "Agents", key: "agent_stall_threshold_secs", label: "Stalled after", server: true, kind: settingInt, lo: 30, hi: 86400, hint: "seconds of silence, 30–86400",
		get: func(c config.Config) any { return int64(c.AgentStallThreshold.Seconds()) }},
	{group: "Agents", key: "ai_injection_fence", label: "Fence pane reads", server: true, kind: settingBool, hint: "mark what agents read from panes as untrusted",
		get: func(c config.Config) any { return c.AIInjectionFence }},
	{group: "Agents", key: "ai_unrestricted", label: "Scripting gate open", server: true, kind: settingBool,
		hint: "scripts and agents may type into panes (send_text) without PANEFLOW_IPC_SCRIPTING=1",
		get:  func(c config.Config) any { return c.AIUnrestricted }},
	{group: "Agents", key: "submit_paste_delay_ms", label: "Submit delay", server: true, kind: settingInt, lo: 10, hi: 5000, hint: "ms between a pasted prompt and its Enter, 10–5000",
		get: func(c config.Config) any { return int64(c.SubmitPasteDelay.Milliseconds()) }},
	{group: "Window", key: "quit_action", label: "Quit", kind: settingChoice, choices: []string{config.QuitAsk, config.QuitDetach, config.QuitStop},
		get: func(c config.Config) any { return c.QuitAction }},
}

// settingRow is a settingDef's widget in the open view.
type settingRow struct {
	def    settingDef
	choice *widget.Select
	entry  *keyEntry
	check  *widget.Check
}

// formatSetting returns a value as a text field shows it.
func formatSetting(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// value reads the row's widget: a value of the type def.get returns, or
// an error saying what is wrong with what was typed.
func (r *settingRow) value() (any, error) {
	switch r.def.kind {
	case settingChoice:
		return r.choice.Selected, nil
	case settingBool:
		return r.check.Checked, nil
	case settingText:
		return strings.TrimSpace(r.entry.Text), nil
	}
	t := strings.TrimSpace(r.entry.Text)
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || f < r.def.lo || f > r.def.hi || r.def.kind == settingInt && f != math.Trunc(f) {
		what := "a number"
		if r.def.kind == settingInt {
			what = "a whole number"
		}
		return nil, fmt.Errorf("%s: want %s from %s to %s, got %q", r.def.label, what, formatSetting(r.def.lo), formatSetting(r.def.hi), t)
	}
	if r.def.kind == settingInt {
		return int64(f), nil
	}
	return f, nil
}

// settingsPanel is the settings view: every setting of paneflow.toml a
// user would change, grouped, and Save, which writes the changed ones
// into the file in place (config.Save: the user's comments and layout
// stay, a backup is kept). The window applies the saved file through its
// configuration watcher, as after an edit by hand. It is a panel: its
// widgets are used on the UI goroutine only.
type settingsPanel struct {
	widget.BaseWidget
	host panelHost
	path string
	// base holds each row's value as the rows were filled (after a
	// save, the saved values), by key: Save writes only what differs.
	base   map[string]any
	rows   []*settingRow
	status *widget.Label
	save   *widget.Button
	first  fyne.Focusable
	body   fyne.CanvasObject
}

var _ panel = (*settingsPanel)(nil)

// newSettingsPanel builds the settings view over cfg, saving to path
// ("" cannot save); shortcuts is the label of the shortcuts sheet's key.
func newSettingsPanel(host panelHost, cfg config.Config, path, shortcuts string) *settingsPanel {
	p := &settingsPanel{host: host, path: path, base: map[string]any{}}
	p.ExtendBaseWidget(p)
	p.status = widget.NewLabel("")
	p.status.Wrapping = fyne.TextWrapWord
	p.save = widget.NewButton("Save", p.submit)
	p.save.Importance = widget.HighImportance
	var sections []fyne.CanvasObject
	var form *widget.Form
	group := ""
	for _, d := range settingDefs {
		r := p.newRow(d, cfg)
		p.rows = append(p.rows, r)
		p.base[d.key] = d.get(cfg)
		if d.group != group {
			group = d.group
			form = widget.NewForm()
			sections = append(sections, widget.NewLabelWithStyle(group, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), form)
		}
		label := d.label
		if d.server {
			label += " *"
		}
		item := widget.NewFormItem(label, r.widget())
		item.HintText = d.hint
		form.AppendItem(item)
	}
	where := "Saved in " + path + ", changing only the values you change (your comments stay; the old file is kept as " + config.FileName + config.BackupSuffix + ")."
	if path == "" {
		where = errNoConfigFile.Error() + "."
		p.save.Disable()
	}
	note := widget.NewLabel("* read by the server when it starts: new panes get them after Stop everything and a new start. " +
		"Everything else applies at once. Keyboard shortcuts (" + shortcuts + ") are [shortcuts] in the file.")
	note.Wrapping = fyne.TextWrapWord
	whereLabel := widget.NewLabel(where)
	whereLabel.Wrapping = fyne.TextWrapWord
	header := widget.NewLabelWithStyle("Settings", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	keysBtn := widget.NewButton("Keyboard shortcuts…", func() { host.runAction(p, keymap.ShowShortcuts) })
	closeBtn := widget.NewButton("Close", func() { host.closePanel(p) })
	buttons := container.NewHBox(keysBtn, closeBtn, p.save)
	footer := container.NewVBox(p.status, container.NewBorder(nil, nil, nil, buttons))
	p.body = container.NewBorder(container.NewVBox(header, whereLabel), footer, nil, nil,
		container.NewVScroll(container.NewVBox(append(sections, note)...)))
	return p
}

// newRow builds d's widget showing its value in cfg.
func (p *settingsPanel) newRow(d settingDef, cfg config.Config) *settingRow {
	r := &settingRow{def: d}
	v := d.get(cfg)
	switch d.kind {
	case settingChoice:
		r.choice = widget.NewSelect(d.choices, nil)
		r.choice.SetSelected(v.(string))
	case settingBool:
		r.check = widget.NewCheck("", nil)
		r.check.SetChecked(v.(bool))
	default:
		r.entry = newKeyEntry(false)
		r.entry.SetText(formatSetting(v))
		r.entry.onKey = func(ev *fyne.KeyEvent) bool {
			switch ev.Name {
			case fyne.KeyReturn, fyne.KeyEnter:
				p.submit()
			case fyne.KeyEscape:
				p.host.closePanel(p)
			default:
				return false
			}
			return true
		}
		if p.first == nil {
			p.first = r.entry
		}
	}
	return r
}

// widget is the row's editing widget.
func (r *settingRow) widget() fyne.CanvasObject {
	switch {
	case r.choice != nil:
		return r.choice
	case r.check != nil:
		return r.check
	}
	return r.entry
}

// row returns the row of key, nil when the view has none.
func (p *settingsPanel) row(key string) *settingRow {
	for _, r := range p.rows {
		if r.def.key == key {
			return r
		}
	}
	return nil
}

// edits returns the settings changed from base, or the first typing
// error.
func (p *settingsPanel) edits() ([]config.Edit, error) {
	var out []config.Edit
	for _, r := range p.rows {
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		if v == p.base[r.def.key] {
			continue
		}
		if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
			v = int64(f) // written as 14, not 14.0; the file takes both
		}
		out = append(out, config.Edit{Key: r.def.key, Value: v})
	}
	return out, nil
}

// submit saves the changed settings.
func (p *settingsPanel) submit() {
	if p.path == "" {
		p.status.SetText(errNoConfigFile.Error())
		return
	}
	edits, err := p.edits()
	if err != nil {
		p.status.SetText("Not saved: " + err.Error())
		return
	}
	if len(edits) == 0 {
		p.status.SetText("Nothing changed.")
		return
	}
	keys := make([]string, len(edits))
	for i, e := range edits {
		keys[i] = e.Key
	}
	p.save.Disable()
	p.status.SetText("Saving " + strings.Join(keys, ", ") + "…")
	p.host.saveConfig(edits, func(err error) { p.saved(edits, err) })
}

// saved shows how the save went; on success the saved values become the
// base the next save compares with. It runs holding the shell's lock
// (see panelHost.saveConfig).
func (p *settingsPanel) saved(edits []config.Edit, err error) {
	p.save.Enable()
	if err != nil {
		p.status.SetText("Not saved: " + err.Error())
		return
	}
	keys := make([]string, len(edits))
	for i, e := range edits {
		keys[i] = e.Key
	}
	for _, e := range edits {
		if r := p.row(e.Key); r != nil {
			p.base[e.Key], _ = r.value()
		}
	}
	p.status.SetText("Saved " + strings.Join(keys, ", ") + ".")
}

// CreateRenderer draws the view.
func (p *settingsPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.body)
}

// focusTarget is the first text field.
func (p *settingsPanel) focusTarget() fyne.Focusable { return p.first }

// openSettingsLocked opens the settings view (or closes it when open).
func (s *shell) openSettingsLocked() {
	togglePanelLocked(s, func(h shellHost) *settingsPanel {
		return newSettingsPanel(h, s.conf.cfg, s.o.ConfigPath, s.conf.keys.Label(keymap.ShowShortcuts))
	}, fyne.NewSize(760, 640))
}
