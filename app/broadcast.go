package app

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// groupColours are the broadcast groups' stripe colours, picked by the
// group name's hash.
var groupColours = []color.NRGBA{
	{R: 0x58, G: 0xa6, B: 0xff, A: 0xff}, {R: 0xbc, G: 0x8c, B: 0xff, A: 0xff},
	{R: 0x3f, G: 0xb9, B: 0x50, A: 0xff}, {R: 0xff, G: 0x7b, B: 0x72, A: 0xff},
	{R: 0x39, G: 0xc5, B: 0xcf, A: 0xff}, {R: 0xf7, G: 0x78, B: 0xba, A: 0xff},
}

// groupColour is the stripe colour of group name.
func groupColour(name string) color.NRGBA {
	h := fnv.New32a()
	h.Write([]byte(name))
	return groupColours[h.Sum32()%uint32(len(groupColours))]
}

// groupMembers lists the open panes of group name, in sidebar order.
func (s *shell) groupMembersLocked(name string) []uint64 {
	var ids []uint64
	if s.pos.snap == nil {
		return nil
	}
	for _, id := range s.pos.snap.Order {
		if s.panes.groups[id] == name {
			ids = append(ids, id)
		}
	}
	return ids
}

// setGroupLocked puts pane id in broadcast group name ("" takes it out)
// and shows the group's stripe on its view. Groups are not saved.
func (s *shell) setGroupLocked(id uint64, name string) {
	name = strings.TrimSpace(name)
	if name == "" {
		delete(s.panes.groups, id)
	} else {
		s.panes.groups[id] = name
		s.panes.lastGroup = name
	}
	s.stripeLocked(id)
	s.chrome.comp.update()
	if s.pos.snap != nil {
		s.chrome.side.update(sidebarModel(s.pos.snap, &s.agents, s.panes.groups))
	}
}

// stripeLocked shows pane id's group stripe on its view, if it has one.
func (s *shell) stripeLocked(id uint64) {
	v := s.panes.views[id]
	if v == nil {
		return
	}
	if g, ok := s.panes.groups[id]; ok {
		v.SetStripe(groupColour(g))
	} else {
		v.SetStripe(nil)
	}
}

// toggleBroadcastLocked takes the focused pane out of its broadcast
// group, or asks for a group name to put it in (the last one used is
// offered).
func (s *shell) toggleBroadcastLocked() {
	id := s.pos.focus
	if id == 0 {
		return
	}
	if _, ok := s.panes.groups[id]; ok {
		s.setGroupLocked(id, "")
		return
	}
	entry := newKeyEntry(false)
	entry.SetText(s.panes.lastGroup)
	var names []string
	for _, g := range s.panes.groups {
		if !slices.Contains(names, g) {
			names = append(names, g)
		}
	}
	slices.Sort(names)
	hint := "Panes of a group share a coloured stripe; the composer can send one prompt to all of them (prefill only)."
	if len(names) > 0 {
		hint += fmt.Sprintf(" Groups: %s.", strings.Join(names, ", "))
	}
	d := dialog.NewForm("Add pane to broadcast group", "Add", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Group", entry), widget.NewFormItem("", widget.NewLabel(hint))},
		func(ok bool) {
			if ok {
				s.guard(func() { s.setGroupLocked(id, entry.Text) })
			}
		}, s.w)
	s.showDialogLocked(d, entry, d.Submit, d.Hide)
}
