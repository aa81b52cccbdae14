package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2/widget"
	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/internal/userdir"
)

// This file holds the Diff view's hunk actions (issue 29): in the
// Unstaged scope a hunk is staged (git apply --cached) or reverted in the
// work tree (git apply -R), in the Staged scope unstaged (git apply
// --cached -R). Each patch is the hunk as git printed it under its file's
// header, so git itself checks that it still applies; git apply changes
// nothing when it does not. A reverted hunk is written to a file first
// and can be put back (Undo revert) for as long as the view is open, and
// by hand with git apply after that.

// Diff view scopes: what the diff compares.
const (
	// scopeBranch is the work tree against the point where its branch
	// left its base: committed, staged, unstaged and untracked changes.
	scopeBranch = "Branch"
	// scopeUnstaged is the work tree against the index, untracked files
	// included: what git add would stage.
	scopeUnstaged = "Unstaged"
	// scopeStaged is the index against HEAD: what git commit would
	// record.
	scopeStaged = "Staged"
)

// maxKeptReverts is how many reverted hunks' files are kept on disk; the
// oldest beyond it are removed.
const maxKeptReverts = 50

// hunkPatch is the patch of the hunk that lines[at] belongs to: its
// file's header lines and that hunk alone, with the @@ line at index
// head. ok is false when lines[at] is in no hunk (a file header, a
// binary file's note).
func hunkPatch(lines []diffLine, at int) (patch string, head int, ok bool) {
	if at < 0 || at >= len(lines) || lines[at].kind == 'h' {
		return "", -1, false
	}
	head = at
	for head >= 0 && lines[head].kind != '@' {
		if lines[head].kind == 'h' {
			return "", -1, false
		}
		head--
	}
	if head < 0 {
		return "", -1, false
	}
	top := head
	for top >= 0 && !(lines[top].kind == 'h' && strings.HasPrefix(lines[top].text, "diff --git ")) {
		top--
	}
	if top < 0 {
		return "", -1, false
	}
	var b strings.Builder
	for i := top; i < len(lines) && lines[i].kind == 'h'; i++ {
		b.WriteString(lines[i].text)
		b.WriteByte('\n')
	}
	b.WriteString(lines[head].text)
	b.WriteByte('\n')
	for i := head + 1; i < len(lines) && lines[i].kind != 'h' && lines[i].kind != '@'; i++ {
		if lines[i].kind != '\\' {
			b.WriteByte(lines[i].kind)
		}
		b.WriteString(lines[i].text)
		b.WriteByte('\n')
	}
	return b.String(), head, true
}

// Hunk actions.
const (
	hunkStage   = "stage"
	hunkUnstage = "unstage"
	hunkRevert  = "revert"
	hunkUndo    = "undo" // a reverted hunk applied again
)

// applyHunk applies patch in the work tree at root as action says. git
// apply checks the whole patch before it writes anything, so a patch
// that no longer applies leaves the index and the files as they were;
// the error then says so in words and carries git's own.
func applyHunk(ctx context.Context, root, action, patch string) error {
	args := []string{"apply", "--whitespace=nowarn"}
	switch action {
	case hunkStage:
		args = append(args, "--cached")
	case hunkUnstage:
		args = append(args, "--cached", "-R")
	case hunkRevert:
		args = append(args, "-R")
	case hunkUndo:
	default:
		return fmt.Errorf("diff: unknown hunk action %q", action)
	}
	// git apply reads and writes the files through the repository's
	// filters; they are off as they are for the diff.
	_, err := runGitIn(ctx, root, repoFilters(ctx, root), patch, append(args, "-"))
	if err == nil {
		return nil
	}
	where := "the index"
	if action == hunkRevert || action == hunkUndo {
		where = "the file"
	}
	if strings.Contains(err.Error(), "patch does not apply") || strings.Contains(err.Error(), "already exists") ||
		strings.Contains(err.Error(), "does not exist") || strings.Contains(err.Error(), "does not match index") {
		return fmt.Errorf("the hunk no longer applies: %s changed since the diff was read (%v)", where, err)
	}
	return err
}

// revertDir is where reverted hunks are kept: $XDG_STATE_HOME/paneflow/reverted
// (or the platform's state directory).
func revertDir() (string, error) {
	base, err := userdir.Base(userdir.State, os.Getenv, runtime.GOOS)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "paneflow", "reverted"), nil
}

// keepRevert writes a hunk about to be reverted to a file of its own in
// dir (made private when missing) and removes the oldest beyond
// maxKeptReverts; it returns the file's path. Its first line says how
// to put it back.
func keepRevert(dir, root, file, patch string, now time.Time) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name := now.UTC().Format("20060102T150405.000000000") + "-" + strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(filepath.Base(file)) + ".patch"
	p := filepath.Join(dir, name)
	note := "Reverted in the Diff view of " + root + "; put back with: git -C '" + root + "' apply '" + p + "'\n"
	if err := os.WriteFile(p, []byte(note+patch), 0o600); err != nil {
		return "", err
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > maxKeptReverts {
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".patch") {
				names = append(names, e.Name())
			}
		}
		slices.Sort(names) // named by time
		for _, n := range names[:max(0, len(names)-maxKeptReverts)] {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
	return p, nil
}

// revertedHunk is a hunk the view reverted, for Undo revert.
type revertedHunk struct {
	root  string // the work tree
	file  string // the file it changed
	patch string // the hunk, as applied forward
	kept  string // the file it was kept in
}

// chooseHunk makes the hunk grid row row shows the one the hunk
// buttons act on, -1 none; its @@ row is marked.
func (dv *diffView) chooseHunk(row int) {
	dv.hunk = -1
	if row >= 0 && row < len(dv.refs) && dv.refs[row].line >= 0 {
		if _, head, ok := hunkPatch(dv.lines, dv.refs[row].line); ok {
			dv.hunk = head
		}
	}
	dv.markHunk()
}

// markHunk marks the chosen hunk's @@ row and sets the hunk
// buttons for the scope and the choice.
func (dv *diffView) markHunk() {
	for i := range dv.grid.Rows {
		dv.grid.Rows[i].Style = unmarkHunk(dv.grid.Rows[i].Style)
	}
	scope := dv.scope.Selected
	// Another host's hunks are not staged or reverted from here: git
	// apply runs on this machine.
	dv.stageBtn.Hidden = scope == scopeBranch || dv.remote
	dv.revertBtn.Hidden = scope != scopeUnstaged || dv.remote
	dv.undoBtn.Hidden = len(dv.reverted) == 0
	dv.stageBtn.SetText("Stage hunk")
	if scope == scopeStaged {
		dv.stageBtn.SetText("Unstage hunk")
	}
	if dv.hunk >= 0 && dv.hunk < len(dv.lines) && dv.busy == "" {
		dv.stageBtn.Enable()
		dv.revertBtn.Enable()
		for i, ref := range dv.refs {
			if ref.line != dv.hunk {
				continue
			}
			if sel, ok := dv.grid.Rows[i].Style.(*selectedStyle); ok {
				// The comment's selection stays outermost, where its
				// own unmarking looks.
				dv.grid.Rows[i].Style = &selectedStyle{was: &hunkStyle{selectedStyle{was: sel.was}}}
			} else {
				dv.grid.Rows[i].Style = &hunkStyle{selectedStyle{was: dv.grid.Rows[i].Style}}
			}
		}
	} else {
		dv.stageBtn.Disable()
		dv.revertBtn.Disable()
	}
	if dv.busy != "" {
		dv.undoBtn.Disable()
	} else {
		dv.undoBtn.Enable()
	}
	dv.stageBtn.Refresh()
	dv.revertBtn.Refresh()
	dv.undoBtn.Refresh()
	dv.grid.Refresh()
}

// hunkStyle marks the chosen hunk's @@ row: its own style on the
// selection's background.
type hunkStyle struct{ selectedStyle }

// unmarkHunk is st without a hunk mark, at any depth.
func unmarkHunk(st widget.TextGridStyle) widget.TextGridStyle {
	switch v := st.(type) {
	case *hunkStyle:
		return unmarkHunk(v.was)
	case *selectedStyle:
		return &selectedStyle{was: unmarkHunk(v.was)}
	}
	return st
}

// hunkAction stages, unstages or reverts the chosen hunk (action
// by the scope for the stage button), on a goroutine of its own; the
// diff is read again after it, whether it applied or not.
func (dv *diffView) hunkAction(action string) {
	root := dv.root()
	if root == "" || dv.busy != "" || dv.remote {
		return
	}
	if action == hunkStage && dv.scope.Selected == scopeStaged {
		action = hunkUnstage
	}
	var patch, file string
	var undo revertedHunk
	if action == hunkUndo {
		if len(dv.reverted) == 0 {
			return
		}
		undo = dv.reverted[len(dv.reverted)-1]
		root, patch, file = undo.root, undo.patch, undo.file
	} else {
		var ok bool
		if dv.hunk >= 0 && dv.hunk < len(dv.lines) {
			patch, _, ok = hunkPatch(dv.lines, dv.hunk)
			file = dv.lines[dv.hunk].file
		}
		if !ok {
			dv.setStatus("Click a line of a hunk first, or choose one with "+dv.keyName(keymap.DiffNextHunk)+".", true)
			return
		}
	}
	dv.busy = action
	dv.markHunk()
	what := map[string]string{hunkStage: "Stage hunk", hunkUnstage: "Unstage hunk", hunkRevert: "Revert hunk", hunkUndo: "Undo revert"}[action]
	dv.host.goReview(dv.ctx, func(ctx context.Context) {
		kept := ""
		var err error
		if action == hunkRevert {
			// Kept before the work tree changes: if it cannot be kept,
			// nothing is reverted.
			var dir string
			if dir, err = revertDir(); err == nil {
				kept, err = keepRevert(dir, root, file, patch, time.Now())
			}
			if err != nil {
				err = fmt.Errorf("the hunk could not be kept for undo, so nothing was reverted: %w", err)
			}
		}
		if err == nil {
			err = applyHunk(ctx, root, action, patch)
		}
		if err == nil && action == hunkUndo {
			_ = os.Remove(undo.kept)
		}
		if err != nil && action == hunkRevert && kept != "" {
			_ = os.Remove(kept)
		}
		dv.host.do(func() {
			if !dv.host.shown(dv) {
				return
			}
			dv.busy = ""
			switch {
			case err != nil && action == hunkUndo:
				dv.setStatus(what+" of "+file+": "+err.Error()+"; the hunk is kept in "+undo.kept+" (git apply it by hand)", true)
			case err != nil:
				dv.setStatus(what+" of "+file+": "+err.Error()+"; the diff was read again.", true)
			case action == hunkRevert:
				dv.reverted = append(dv.reverted, revertedHunk{root: root, file: file, patch: patch, kept: kept})
				dv.setStatus("Reverted a hunk of "+file+" (Undo revert puts it back; it is kept in "+kept+").", false)
			case action == hunkUndo:
				dv.reverted = dv.reverted[:len(dv.reverted)-1]
				dv.setStatus("Put the reverted hunk of "+file+" back.", false)
			case action == hunkStage:
				dv.setStatus("Staged a hunk of "+file+".", false)
			default:
				dv.setStatus("Unstaged a hunk of "+file+".", false)
			}
			dv.hunk = -1
			dv.markHunk()
			select {
			case dv.reload <- struct{}{}:
			default:
			}
		})
	})
}

// hunkButtons are the Diff view's hunk buttons, hidden in the Branch
// scope.
func (dv *diffView) hunkButtons(keys *canvasKeys) []*passButton {
	dv.stageBtn = newPassButton("Stage hunk", nil, func() { dv.host.guard(func() { dv.hunkAction(hunkStage) }) }, keys)
	dv.revertBtn = newPassButton("Revert hunk", nil, func() { dv.host.guard(func() { dv.hunkAction(hunkRevert) }) }, keys)
	dv.undoBtn = newPassButton("Undo revert", nil, func() { dv.host.guard(func() { dv.hunkAction(hunkUndo) }) }, keys)
	return []*passButton{dv.stageBtn, dv.revertBtn, dv.undoBtn}
}
