package app

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/keymap"
)

// This file holds the Diff view's keys (issue 29): the keymap's DiffView
// actions move between the hunks shown and stage, unstage, revert or put
// back the chosen one, as its buttons do, and switch what is compared.
// They act while the Diff view is the overlay on top and no field of it
// has the keyboard (keys then reach the window's canvas), so they are
// plain letters by default.

// diffKeyLocked runs the Diff view action bound to key with mods, if the
// Diff view is open and on top; it reports whether one ran.
func (s *shell) diffKeyLocked(key fyne.KeyName, mods fyne.KeyModifier) bool {
	sp := s.views.top
	if sp == nil || s.conf.keys == nil || s.w.Canvas().Overlays().Top() != sp.pop.pop {
		return false // a dialog of the view (Land…) or another overlay is on top
	}
	dv, ok := sp.p.(*diffView)
	if !ok {
		return false
	}
	a, ok := s.conf.keys.LookupIn(keymap.DiffView, key, mods)
	if !ok {
		return false
	}
	dv.action(a)
	return true
}

// keyName is a's first keystroke as a person reads it, for a hint; a
// name of the action when the user unbound it.
func (dv *diffView) keyName(a keymap.Action) string {
	if l := dv.host.keys().Label(a); l != "" {
		return l
	}
	return "the " + string(a) + " key"
}

// keysLine is the Diff view's line of keys, from the live keymap.
func (dv *diffView) keysLine() string {
	k := func(a keymap.Action) string {
		if l := dv.host.keys().Label(a); l != "" {
			return l
		}
		return "—"
	}
	return fmt.Sprintf("Keys: %s/%s hunk · %s stage · %s revert · %s undo revert · %s compare · Esc close",
		k(keymap.DiffNextHunk), k(keymap.DiffPrevHunk), k(keymap.DiffStageHunk), k(keymap.DiffRevertHunk),
		k(keymap.DiffUndoRevert), k(keymap.DiffNextScope))
}

// action runs a Diff view action. A hunk action that
// its button could not run (hidden in this comparison, no hunk chosen,
// another host's files) says why in the view's status line instead.
func (dv *diffView) action(a keymap.Action) {
	switch a {
	case keymap.DiffNextHunk:
		dv.stepHunk(1)
	case keymap.DiffPrevHunk:
		dv.stepHunk(-1)
	case keymap.DiffNextScope:
		// Not SetSelected: its OnChanged takes the shell's lock.
		opts := dv.scope.Options
		dv.scope.Selected = opts[(slices.Index(opts, dv.scope.Selected)+1)%len(opts)]
		dv.scope.Refresh()
		dv.scopeChanged(dv.scope.Selected)
		dv.setStatus("Comparing "+dv.scope.Selected+".", false)
	case keymap.DiffStageHunk:
		if dv.hunkKeyReady(dv.stageBtn, "Stage works when comparing Unstaged or Staged") {
			dv.hunkAction(hunkStage)
		}
	case keymap.DiffRevertHunk:
		if dv.hunkKeyReady(dv.revertBtn, "Revert works when comparing Unstaged") {
			dv.hunkAction(hunkRevert)
		}
	case keymap.DiffUndoRevert:
		switch {
		case dv.busy != "":
		case len(dv.reverted) == 0:
			dv.setStatus("No reverted hunk to put back.", true)
		default:
			dv.hunkAction(hunkUndo)
		}
	}
}

// hunkKeyReady reports whether btn (a hunk button) would act now;
// when not, the status line says why (where, when btn is hidden).
func (dv *diffView) hunkKeyReady(btn *passButton, where string) bool {
	switch {
	case dv.busy != "":
		return false
	case dv.remote:
		dv.setStatus("Hunks of another host's files are not staged or reverted from here.", true)
		return false
	case btn.Hidden:
		dv.setStatus(where+": press "+dv.keyName(keymap.DiffNextScope)+" to compare another way.", true)
		return false
	case btn.Disabled():
		dv.setStatus("Choose a hunk first: "+dv.keyName(keymap.DiffNextHunk)+" or "+dv.keyName(keymap.DiffPrevHunk)+", or click a line of one.", true)
		return false
	}
	return true
}

// hunkRows are the grid rows of the hunks shown (each hunk's first @@
// row), top to bottom.
func hunkRows(dv *diffView) []int {
	var rows []int
	last := -1
	for i, ref := range dv.refs {
		if ref.comment != "" || ref.line < 0 || ref.line >= len(dv.lines) || dv.lines[ref.line].kind != '@' || ref.line == last {
			continue
		}
		last = ref.line
		rows = append(rows, i)
	}
	return rows
}

// stepHunk chooses the hunk after (dir 1) or before (dir -1) the
// chosen one among those shown, the first or last when none is chosen,
// scrolls its @@ row into view and says which it is.
func (dv *diffView) stepHunk(dir int) {
	rows := hunkRows(dv)
	if len(rows) == 0 {
		dv.setStatus("No hunks here.", false)
		return
	}
	at := -1
	for i, r := range rows {
		if dv.refs[r].line == dv.hunk {
			at = i
		}
	}
	switch {
	case at < 0 && dir > 0:
		at = 0
	case at < 0:
		at = len(rows) - 1
	default:
		at = min(max(at+dir, 0), len(rows)-1)
	}
	row := rows[at]
	dv.chooseHunk(row)
	dv.grid.showRow(row)
	l := dv.lines[dv.refs[row].line]
	dv.setStatus(fmt.Sprintf("Hunk %d of %d: %s %s", at+1, len(rows), l.file, strings.TrimSpace(l.text)), false)
}
