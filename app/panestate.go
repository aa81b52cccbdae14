package app

import "github.com/paneflow-go/paneflow/app/termview"

// position is what the window shows: the model's snapshot it drew last,
// the workspace shown, its focused pane, the zoomed pane, and where
// jump_next_waiting went last. It changes only with the snapshot
// (applyLocked) and the actions that move the focus. Guarded by the
// shell's mu.
type position struct {
	snap       *snapshot
	wsID       uint64 // the workspace shown
	focus      uint64 // the focused pane of the workspace shown
	zoom       uint64 // the zoomed pane, 0 when none
	jumpCursor uint64 // the last pane jump_next_waiting went to
}

// paneName is pane id's name in the snapshot shown; unknown when the
// snapshot has no such pane.
func (p *position) paneName(id uint64, unknown string) string {
	if p.snap != nil {
		for _, in := range p.snap.Surfaces {
			if in.ID == id {
				return in.Name
			}
		}
	}
	return unknown
}

// paneMaps is what the window keeps per pane, by pane id. An entry goes
// with its pane (applyLocked, closeHostViewsLocked). Guarded by the
// shell's mu.
type paneMaps struct {
	views     map[uint64]*termview.View
	attention map[uint64]bool         // the panes drawn as waiting for the user
	queued    map[uint64]queuedPrompt // prompts waiting for their pane's agent to stop thinking
	groups    map[uint64]string       // each pane's broadcast group, if any
	lastGroup string                  // the group name given last (the next "Add to broadcast group" offers it)
}

func newPaneMaps() paneMaps {
	return paneMaps{
		views: map[uint64]*termview.View{}, attention: map[uint64]bool{},
		queued: map[uint64]queuedPrompt{}, groups: map[uint64]string{},
	}
}
