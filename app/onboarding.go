package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
)

// HintFileName is the file, in the per-user state directory, whose
// existence means the window's first-start hint was shown (see
// Options.HintPath).
const HintFileName = "first-start-hint-shown"

// The empty states' lines: what to do when a view has nothing to show.
// Each names the live keystroke of what it suggests (keys).

// firstStartHint is the line the window shows above the panes the first
// time it opens.
func firstStartHint(keys *keymap.Map) string {
	return "New here? " + keyed(keys, keymap.CommandPalette) + " lists every command · " +
		keyed(keys, keymap.QuickLaunch) + " launches an agent in a new worktree · " +
		keyed(keys, keymap.ShowShortcuts) + " shows the keys · " +
		keyed(keys, keymap.OpenSettings) + " settings"
}

// overviewEmptyText is the agents overview's header when it lists none:
// filtered says a filter or a search hid them.
func overviewEmptyText(keys *keymap.Map, filtered bool) string {
	if filtered {
		return "Agents — none match: clear the search or choose All"
	}
	return "Agents — none yet: an agent CLI (Claude Code, Codex, Gemini, opencode) started in any pane is listed here; " +
		keyed(keys, keymap.QuickLaunch) + " starts one"
}

// launchPadEmptyText is the launch pad's status when it found no spec.
func launchPadEmptyText(keys *keymap.Map) string {
	return "No specs found: put a paneflow.workspace.toml or flow.toml in the project (or any .toml in the config folder's workspaces/), or write one from a template with " +
		keyed(keys, keymap.NewFromTemplate) + "."
}

// timelineNoTurnsText is the timeline's line when the pane's agent
// reported no turn.
const timelineNoTurnsText = "No turns yet: start an agent CLI (Claude Code, Codex, Gemini, opencode) in this pane; each turn it reports is listed here."

// searchNoMatchText is the search view's line when nothing matched.
const searchNoMatchText = "Nothing matched: try fewer letters, turn off Regex, or ignore case."

// mcpIntroText is the MCP view's line under its title.
const mcpIntroText = "The MCP entry lets an agent CLI list and drive your panes: choose Install, then start the agent again."

// keyed is an action's keystroke, or its palette title when it has none.
func keyed(keys *keymap.Map, a keymap.Action) string {
	if l := keys.Label(a); l != "" {
		return l
	}
	return "“" + actionTitles[a] + "” in the palette"
}

// hintBar is the first-start hint: one line above the panes with a close
// button. It is shown on the window's first start only (hintDue), and
// hides when closed or when the command palette, its main advice, opens.
type hintBar struct {
	root *fyne.Container
	text *widget.Label
}

// newHintBar builds the bar showing text; onClose runs when its button is
// pressed (without the shell's lock).
func newHintBar(text string, onClose func()) *hintBar {
	h := &hintBar{text: widget.NewLabel(text)}
	h.text.Truncation = fyne.TextTruncateEllipsis
	h.text.Importance = widget.MediumImportance
	closeBtn := widget.NewButtonWithIcon("", theme.CancelIcon(), onClose)
	closeBtn.Importance = widget.LowImportance
	h.root = container.NewBorder(nil, nil, widget.NewIcon(theme.InfoIcon()), closeBtn, h.text)
	return h
}

// hintDue reports whether the first-start hint is to be shown: path is
// set and no file is there yet. It then creates the file (its directory
// too), so that the hint is shown once; a failure to create it shows the
// hint anyway (and again next time).
func hintDue(path string) bool {
	if path == "" {
		return false
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	}
	return true
}

// hintLocked builds the first-start hint when it is due (nil when not).
func (s *shell) hintLocked() fyne.CanvasObject {
	if !hintDue(s.o.HintPath) {
		return nil
	}
	s.chrome.hint = newHintBar(firstStartHint(s.conf.keys), func() { s.guard(s.chrome.hideHint) })
	return s.chrome.hint.root
}

// emptyFiltered reports whether an overview filter or query hides rows
// (the filter is not "All" or the query is not blank).
func emptyFiltered(filter, query string) bool {
	return filter != "" && filter != filterAll || strings.TrimSpace(query) != ""
}
