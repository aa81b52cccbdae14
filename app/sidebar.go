package app

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// sidebarWidth is the sidebar's width in window units (spec gui.md §1).
const sidebarWidth = 240

// paneRow is what the sidebar shows about one pane.
type paneRow struct {
	ID      uint64
	Name    string // display name, or the title when it says more
	Cwd     string
	Cmd     string
	Exited  bool
	Code    int
	Focused bool
	Waiting bool
	Glyph   string // agent status glyph, "" without an agent
	Status  string // agent status text
	Ports   string // listening TCP ports, as "3000 8080"
	// Team is the agent team the pane is in; Teammate its teammate name
	// ("" for the lead) and Color the teammate's colour name. Teammates
	// are listed, indented, under their lead.
	Team, Teammate, Color string
	// TeamName is the team's name as Claude Code's config.json says, ""
	// when that is Team; the sidebar shows it instead of Team.
	TeamName string
	// Group is the pane's broadcast group, "" for none.
	Group string
	// Branch is the git branch of the pane's directory, "" outside a
	// repository.
	Branch string
	// Checks is the checks badge of the worktree the pane's directory is
	// in ("checks ✓ 12s", see checksBadge), "" when its checks did not
	// run since the server started.
	Checks string
	// Usage and Turn are what the pane's agent session and its current
	// or last turn used ("session 12.4k tok · $0.18", "turn …"), ""
	// until its agent's records were read.
	Usage, Turn string
}

// workspaceCard is what the sidebar shows about one workspace.
type workspaceCard struct {
	Index  int
	ID     uint64
	Title  string
	Cwd    string
	Active bool
	Agents int // panes with an agent
	// Usage is what the workspace's agents used since the server started
	// ("12.4k tok · $0.18"), "" when none used any.
	Usage string
	Panes []paneRow
	// Host is the slot of the remote host the workspace is on, 0 for the
	// window's own server (see hostSlot).
	Host int
}

// sidebarModel builds the cards from a model snapshot, the agents and
// worktree checks known and the panes' broadcast groups (nil: none); the
// result is compared to
// the shown one to skip useless rebuilds.
func sidebarModel(snap *snapshot, agents *agentBoard, groups map[uint64]string) []workspaceCard {
	cards := make([]workspaceCard, len(snap.Workspaces))
	byWS := map[uint64]int{}
	for i, w := range snap.Workspaces {
		cards[i] = workspaceCard{Index: i, ID: w.ID, Title: w.Title, Cwd: w.Cwd, Active: w.Active, Host: hostSlot(w.ID)}
		if u, ok := snap.WorkspaceUsage[w.ID]; ok {
			cards[i].Usage = usageText(u)
		}
		byWS[w.ID] = i
	}
	for _, s := range snap.Surfaces {
		i, ok := byWS[s.WorkspaceID]
		if !ok {
			continue
		}
		row := paneRow{ID: s.ID, Name: s.Name, Exited: s.Exited, Focused: snap.Focused[s.ID]}
		if s.Title != "" && s.CustomName == "" && !strings.EqualFold(s.Title, s.Name) {
			row.Name = s.Name + " — " + s.Title
		}
		if s.Cwd != nil {
			row.Cwd = *s.Cwd
		}
		if s.Cmd != nil {
			row.Cmd = *s.Cmd
		}
		if s.ExitCode != nil {
			row.Code = *s.ExitCode
		}
		row.Ports = snap.Ports[s.ID]
		row.Group = groups[s.ID]
		row.Branch = snap.Branches[s.ID]
		row.Checks = paneChecks(snap, agents.checks, s.ID)
		if u, ok := snap.Usage[s.ID]; ok {
			row.Usage, row.Turn = paneUsage(u)
		}
		if st, ok := agents.status(s.ID); ok {
			row.Glyph, row.Status = statusLine(st)
			row.Waiting = st.State == stateWaiting
			cards[i].Agents++
		}
		if tm, ok := snap.Teams[s.ID]; ok {
			row.Team, row.Teammate, row.Color, row.TeamName = tm.Team, tm.Teammate, tm.Color, tm.TeamName
		}
		cards[i].Panes = append(cards[i].Panes, row)
	}
	for i := range cards {
		cards[i].Panes = groupTeams(cards[i].Panes)
	}
	return cards
}

// sidebar is the left column: a "+" button and one card per workspace.
// Its methods run on the UI goroutine.
type sidebar struct {
	root  fyne.CanvasObject
	list  *fyne.Container
	shown []workspaceCard
	// views holds the widgets of the shown cards by workspace ID, so an
	// update rebuilds only the rows whose content changed; nil after
	// reset.
	views   map[uint64]*cardView
	scroll  *container.Scroll // scrolls list
	listMin fyne.Size         // list's minimum size at the last update
	onWS    func(index int)   // a workspace card was tapped
	onPane  func(id uint64)   // a pane row was tapped
	onNewWS func()            // the "+" button
	// width is the column's width, which lines are cut to fit; 0 means
	// sidebarWidth (setWidth).
	width float32
	// onCollapse is the collapse button (the sidePanel sets it); nil
	// does nothing.
	onCollapse func()
	agents     *widget.Button               // opens the agents overview; its label counts them
	onPort     func(id uint64, port string) // a port chip of pane id was tapped; nil shows none
	// onChecks, when set, makes a pane row's checks badge tappable: the
	// pane's id.
	onChecks func(id uint64)
	home     func() string // the home directory, to shorten paths
	// launchPad opens the launch pad (onLaunchPad); launchers holds one
	// button per installed agent (setAgentLaunchers).
	launchPad   *widget.Button
	onLaunchPad func()
	launchers   *fyne.Container
	// hosts are the remote hosts, each shown as a header above its
	// workspaces' cards (setHosts); headers holds their widgets by slot,
	// with what each shows. onAddHost, when set, adds an "Add host…"
	// button below the cards; addHost is that button.
	hosts     []hostStatus
	headers   map[int]headerView
	ownHeader fyne.CanvasObject
	onAddHost func()
	// probedChips are the port chips whose place was written for the GUI
	// tests (hostports.go), by "pane=N port=P".
	probedChips map[string]fyne.CanvasObject
	// onRemoveHost, when set, puts a remove button in each other host's
	// header: the host's address.
	onRemoveHost func(address string)
	addHost      *widget.Button
	hostsDirty   bool // hosts changed since the last update
}

// headerView is one host header's widget and the status it shows.
type headerView struct {
	data hostStatus
	obj  fyne.CanvasObject
}

// setHosts shows hosts' headers from the next update on.
func (sb *sidebar) setHosts(hosts []hostStatus) {
	if !slices.Equal(hosts, sb.hosts) {
		sb.hosts = slices.Clone(hosts)
		sb.hostsDirty = true
	}
}

func newSidebar(onWS func(int), onPane func(uint64), onNewWS, onAgents func(), home string) *sidebar {
	sb := &sidebar{onWS: onWS, onPane: onPane, onNewWS: onNewWS, home: func() string { return home }}
	sb.list = container.NewVBox()
	sb.scroll = container.NewVScroll(sb.list)
	sb.agents = widget.NewButtonWithIcon("Agents", theme.AccountIcon(), onAgents)
	sb.agents.Importance = widget.LowImportance
	sb.agents.Alignment = widget.ButtonAlignLeading
	add := widget.NewButtonWithIcon("", theme.ContentAddIcon(), func() { sb.onNewWS() })
	add.Importance = widget.LowImportance
	collapse := widget.NewButtonWithIcon("", theme.NavigateBackIcon(), func() {
		if sb.onCollapse != nil {
			sb.onCollapse()
		}
	})
	collapse.Importance = widget.LowImportance
	header := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Workspaces", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), container.NewHBox(add, collapse))
	width := canvas.NewRectangle(color.Transparent)
	width.SetMinSize(fyne.NewSize(sidebarWidth, 0))
	bg := newThemedFill(theme.ColorNameHeaderBackground)
	sb.launchPad = widget.NewButtonWithIcon("Launch pad", theme.MediaPlayIcon(), func() {
		if sb.onLaunchPad != nil {
			sb.onLaunchPad()
		}
	})
	sb.launchPad.Importance = widget.LowImportance
	sb.launchPad.Alignment = widget.ButtonAlignLeading
	sb.launchers = container.NewGridWrap(fyne.NewSize(sidebarWidth/2-6, 30))
	sb.scroll.OnScrolled = func(fyne.Position) { sb.cull() }
	viewport := container.New(cullLayout{sb}, sb.scroll)
	sb.root = container.NewStack(bg, width, container.NewBorder(container.NewVBox(sb.agents, sb.launchPad, sb.launchers, header), nil, nil, nil, viewport))
	return sb
}

// setAgentBadge shows the number of panes with an agent and of agents
// waiting for input on the sidebar's Agents entry; the waiting count is
// its badge, emphasised.
func (sb *sidebar) setAgentBadge(panes, waiting int) {
	label := "Agents"
	if panes > 0 {
		label = fmt.Sprintf("Agents (%d)", panes)
	}
	imp := widget.LowImportance
	if waiting > 0 {
		label += fmt.Sprintf("  ● %d waiting", waiting)
		imp = widget.WarningImportance
	}
	if sb.agents.Text != label || sb.agents.Importance != imp {
		sb.agents.Text = label
		sb.agents.Importance = imp
		sb.agents.Refresh()
	}
}

// cardView is the widgets of one shown workspace card: the card, its
// body (header lines, then one object per pane row) and the pane rows
// by pane ID with the content each shows.
type cardView struct {
	data  workspaceCard
	box   *tapBox
	body  *fyne.Container
	title fyne.CanvasObject
	cwd   fyne.CanvasObject
	usage fyne.CanvasObject // the workspace's usage line, nil when none
	rows  map[uint64]rowView
}

// rowView is one pane row's widget and the content it shows.
type rowView struct {
	data paneRow
	obj  fyne.CanvasObject
}

// update shows cards. Only what changed is rebuilt: a card equal to the
// shown one keeps its widget untouched, and a changed card keeps its
// widget and the rows that did not change; only new or changed rows
// (and header lines) are built, and only they are drawn anew.
func (sb *sidebar) update(cards []workspaceCard) {
	if sb.views != nil && !sb.hostsDirty && slices.EqualFunc(cards, sb.shown, cardEqual) {
		return
	}
	sb.hostsDirty = false
	views := make(map[uint64]*cardView, len(cards))
	objs := make([]fyne.CanvasObject, 0, len(cards)+len(sb.hosts)+2)
	changed := false
	addCards := func(host int) {
		for _, c := range cards {
			if c.Host != host {
				continue
			}
			cv := sb.views[c.ID]
			switch {
			case cv == nil:
				cv = sb.newCardView(c)
			case !cardEqual(cv.data, c):
				sb.refill(cv, c)
				changed = true
			}
			views[c.ID] = cv
			objs = append(objs, cv.box)
		}
	}
	if len(sb.hosts) > 0 {
		if sb.ownHeader == nil {
			sb.ownHeader = sb.hostHeader(hostStatus{State: hostConnected})
		}
		objs = append(objs, sb.ownHeader)
	}
	addCards(0)
	headers := make(map[int]headerView, len(sb.hosts))
	for _, h := range sb.hosts {
		hv, ok := sb.headers[h.Slot]
		if !ok || hv.data != h {
			hv = headerView{data: h, obj: sb.hostHeader(h)}
		}
		headers[h.Slot] = hv
		objs = append(objs, hv.obj)
		addCards(h.Slot)
	}
	sb.headers = headers
	if sb.onAddHost != nil {
		if sb.addHost == nil {
			sb.addHost = widget.NewButtonWithIcon("Add host…", theme.ComputerIcon(), func() { sb.onAddHost() })
			sb.addHost.Importance = widget.LowImportance
			sb.addHost.Alignment = widget.ButtonAlignLeading
		}
		objs = append(objs, sb.addHost)
	}
	sb.views = views
	sb.shown = cards
	if !slices.Equal(objs, sb.list.Objects) {
		sb.list.Objects = objs
		changed = true
	}
	if !changed {
		return
	}
	// A card that grew or shrank moves the ones below it and resizes
	// its own body (Resize lays out again what changed size).
	relayout(sb.list)
	if m := sb.list.MinSize(); m != sb.listMin {
		sb.listMin = m
		sb.scroll.Refresh() // resizes the list to its new height
	}
	sb.cull()
}

// hostHeader builds the header line of a host's group of cards: its
// address (the window's own server: "This machine") and its connection
// state, with the reason when it is not connected.
func (sb *sidebar) hostHeader(h hostStatus) fyne.CanvasObject {
	name := "This machine"
	if h.Slot != 0 {
		name = strings.TrimPrefix(h.Address, "ssh://")
	}
	muted := theme.Color(theme.ColorNamePlaceHolder)
	lines := []fyne.CanvasObject{sb.text("⌂ "+name, titleSize, theme.Color(theme.ColorNameForeground), true)}
	if h.Slot != 0 && sb.onRemoveHost != nil {
		address := h.Address
		rm := widget.NewButtonWithIcon("", theme.ContentRemoveIcon(), func() { sb.onRemoveHost(address) })
		rm.Importance = widget.LowImportance
		lines[0] = container.NewBorder(nil, nil, nil, rm, lines[0])
	}
	if h.Slot != 0 {
		state, c := "● connected", theme.Color(theme.ColorNameSuccess)
		switch h.State {
		case hostConnecting:
			state, c = "◌ connecting…", muted
		case hostReconnecting:
			state, c = "↻ reconnecting…", theme.Color(theme.ColorNameWarning)
		case hostFailed:
			state, c = "✗ cannot connect", theme.Color(theme.ColorNameError)
		}
		lines = append(lines, sb.text("  "+state, captionSize, c, h.State != hostConnected))
		// The reason, on up to two lines.
		for i, r := 0, []rune(h.Err); i < 2 && len(r) > 0; i++ {
			n := min(len(r), sb.maxRunes(captionSize)-2)
			if i == 1 && n < len(r) {
				n = len(r) // cut with "…" by text
			}
			lines = append(lines, sb.text("  "+string(r[:n]), captionSize, muted, false))
			r = r[n:]
		}
	}
	return container.New(layout.NewCustomPaddedLayout(8, 2, 4, 4), container.NewVBox(lines...))
}

// cull marks the pane rows that lie outside the list's scrolled viewport
// as culled, and the others not. Fyne walks the whole widget tree twice
// per frame (minimum sizes, then painting) and draws every text, on
// screen or not: with a hundred panes, the sidebar's off-screen rows
// cost a frame more than the rest of the window's widgets together.
// A culled row keeps its size and place; it is only left out of those
// walks. It runs after every change of the rows' positions (update), of
// the offset (OnScrolled) and of the viewport's size (cullLayout).
func (sb *sidebar) cull() {
	top := sb.scroll.Offset.Y
	bottom := top + sb.scroll.Size().Height
	for _, cv := range sb.views {
		y0 := cv.box.Position().Y + cv.body.Position().Y
		for _, o := range cv.body.Objects {
			if b, ok := o.(*tapBox); ok {
				y := y0 + b.Position().Y
				b.setCulled(y+b.Size().Height < top || y > bottom)
			}
		}
	}
}

// cullLayout gives the sidebar's scroll all the room and culls the rows
// the new viewport does not show.
type cullLayout struct{ sb *sidebar }

// Layout is part of fyne.Layout.
func (l cullLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.Position{})
		o.Resize(size)
	}
	l.sb.cull()
}

// MinSize is part of fyne.Layout.
func (l cullLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objs {
		m = m.Max(o.MinSize())
	}
	return m
}

// reset drops every built widget: the next update builds all cards
// anew (their texts carry the theme's colours).
func (sb *sidebar) reset() {
	sb.views = nil
	sb.shown = nil
	sb.headers, sb.ownHeader, sb.addHost = nil, nil, nil
}

// relayout lays c's objects out again and asks for the window to be
// painted again. It neither refreshes c (Container.Refresh redraws every
// object in it) nor calls canvas.Refresh on it, which frees the texture
// of every text in c: with a card of 50 rows, each agent update had Fyne
// rasterise and upload all of the card's texts on screen again. New
// objects get their textures when first painted; moved ones keep theirs.
// A change of c's minimum size reaches its parents at the next frame
// (Fyne checks minimum sizes before painting).
func relayout(c *fyne.Container) {
	if c.Layout != nil {
		c.Layout.Layout(c.Objects, c.Size())
	}
	markDirty(c)
}

// markDirty asks for the canvas o is on to be painted again, as Fyne's own
// Container.Move does, without freeing any texture; when the canvas does
// not say how (Fyne's test driver), it falls back on canvas.Refresh.
func markDirty(o fyne.CanvasObject) {
	if a := fyne.CurrentApp(); a != nil && a.Driver() != nil {
		if c, ok := a.Driver().CanvasForObject(o).(interface{ SetDirty() }); ok {
			c.SetDirty()
			return
		}
	}
	canvas.Refresh(o)
}

// newCardView builds one workspace's card.
func (sb *sidebar) newCardView(c workspaceCard) *cardView {
	cv := &cardView{body: container.NewVBox()}
	cv.box = newTapBox(container.New(layout.NewCustomPaddedLayout(6, 6, 8, 6), cv.body), func() { sb.onWS(cv.data.Index) })
	sb.refill(cv, c)
	return cv
}

// refill makes cv show c, rebuilding only the header lines and pane rows
// whose content differs from what cv shows.
func (sb *sidebar) refill(cv *cardView, c workspaceCard) {
	old := cv.data
	fresh := cv.title == nil
	if fresh || old.Index != c.Index || old.Title != c.Title || (old.Agents > 0) != (c.Agents > 0) {
		title := fmt.Sprintf("%d  %s", c.Index+1, c.Title)
		if c.Agents > 0 {
			title += "  ●"
		}
		cv.title = sb.text(title, titleSize, theme.Color(theme.ColorNameForeground), true)
	}
	if fresh || old.Cwd != c.Cwd {
		cv.cwd = sb.text(sb.shortPath(c.Cwd), captionSize, theme.Color(theme.ColorNamePlaceHolder), false)
	}
	if fresh || old.Usage != c.Usage {
		cv.usage = nil
		if c.Usage != "" {
			cv.usage = sb.text("agents used "+c.Usage, captionSize, theme.Color(theme.ColorNamePlaceHolder), false)
		}
	}
	rows := make(map[uint64]rowView, len(c.Panes))
	objs := make([]fyne.CanvasObject, 0, 3+len(c.Panes))
	objs = append(objs, cv.title, cv.cwd)
	if cv.usage != nil {
		objs = append(objs, cv.usage)
	}
	for _, p := range c.Panes {
		rv, ok := cv.rows[p.ID]
		if !ok || rv.data != p {
			rv = rowView{data: p, obj: sb.paneRow(p)}
		}
		rows[p.ID] = rv
		objs = append(objs, rv.obj)
	}
	cv.rows = rows
	if fresh || old.Active != c.Active {
		cv.box.setHighlight(c.Active)
	}
	cv.data = c
	if !slices.Equal(objs, cv.body.Objects) {
		cv.body.Objects = objs
		relayout(cv.body)
	}
}

func cardEqual(a, b workspaceCard) bool {
	return a.Index == b.Index && a.ID == b.ID && a.Title == b.Title && a.Cwd == b.Cwd && a.Host == b.Host &&
		a.Active == b.Active && a.Agents == b.Agents && a.Usage == b.Usage && slices.Equal(a.Panes, b.Panes)
}

// shortPath replaces the home directory with "~".
func (sb *sidebar) shortPath(p string) string {
	if h := sb.home(); h != "" && (p == h || strings.HasPrefix(p, h+string(filepath.Separator))) {
		return "~" + p[len(h):]
	}
	return p
}

// Text sizes of the sidebar.
const (
	titleSize   = 14
	nameSize    = 13
	captionSize = 11
)

// maxRunes is how many runes of text of size fit a sidebar line at the
// sidebar's width: a rough glyph width keeps lines inside the column;
// Fyne's canvas text does not truncate by itself.
func (sb *sidebar) maxRunes(size float32) int {
	w := sb.width
	if w == 0 {
		w = sidebarWidth
	}
	return int((w - 24) / (size * 0.5))
}

// setWidth sets the width the sidebar's lines are cut to fit and, when
// it changed, builds the shown cards again with lines cut to it.
func (sb *sidebar) setWidth(w float32) {
	if w == sb.width || (sb.width == 0 && w == sidebarWidth) {
		return
	}
	sb.width = w
	if sb.views == nil {
		return
	}
	cards := sb.shown
	sb.reset()
	sb.update(cards)
}

// fitDetail is a pane row's detail line, lead then head (command, team)
// and path joined by " · ", within max runes: the path keeps its end (its
// last directories say most, and cutting the line's end cut them off), the
// head is cut at its end first, down to a third of the line.
func fitDetail(lead, head, path string, max int) string {
	join := func(h, p string) string {
		switch {
		case h == "":
			return lead + p
		case p == "":
			return lead + h
		}
		return lead + h + " · " + p
	}
	line := join(head, path)
	over := len([]rune(line)) - max
	if over <= 0 || path == "" {
		return line
	}
	if h := []rune(head); len(h) > max/3 {
		cut := min(over, len(h)-max/3)
		head = string(h[:len(h)-cut-1]) + "…"
		over -= cut
	}
	if p := []rune(path); over > 0 && len(p) > over+1 {
		path = "…" + string(p[over+1:])
	}
	return join(head, path)
}

// text is one line of sidebar text cut to fit the sidebar.
func (sb *sidebar) text(s string, size float32, c color.Color, bold bool) *canvas.Text {
	if r, m := []rune(s), sb.maxRunes(size); len(r) > m {
		s = string(r[:m-1]) + "…"
	}
	t := canvas.NewText(s, c)
	t.TextSize = size
	t.TextStyle.Bold = bold
	return t
}

// statusColor is the colour of an agent status line.
func statusColor(p paneRow) color.Color {
	switch {
	case p.Waiting:
		return theme.Color(theme.ColorNameWarning)
	case p.Glyph == "✗":
		return theme.Color(theme.ColorNameError)
	case p.Glyph == "✓":
		return theme.Color(theme.ColorNameSuccess)
	case p.Glyph == "◐":
		return theme.Color(theme.ColorNamePrimary)
	}
	return theme.Color(theme.ColorNamePlaceHolder)
}

// paneRow builds one pane's lines.
func (sb *sidebar) paneRow(p paneRow) fyne.CanvasObject {
	mark := "   "
	if p.Focused {
		mark = "▸ "
	}
	fg := theme.Color(theme.ColorNameForeground)
	muted := theme.Color(theme.ColorNamePlaceHolder)
	var detail []string
	switch {
	case p.Exited:
		detail = append(detail, fmt.Sprintf("exited (%d)", p.Code))
	case p.Cmd != "" && p.Teammate == "":
		// A teammate's command is Claude Code's long `sh -c` line: its
		// name and team say more.
		detail = append(detail, p.Cmd)
	}
	path := ""
	if p.Cwd != "" {
		path = sb.shortPath(p.Cwd)
	}
	indent := ""
	team := p.Team
	if p.TeamName != "" {
		team = p.TeamName
	}
	switch {
	case p.Teammate != "":
		indent = "  └ "
		if c, ok := teamColor(p.Color); ok {
			fg = c
		}
		if team != "" {
			detail = append([]string{"team " + team}, detail...)
		}
	case team != "":
		detail = append([]string{"lead of " + team}, detail...)
	}
	lines := []fyne.CanvasObject{sb.text(mark+indent+p.Name, nameSize, fg, p.Focused),
		sb.text(fitDetail("    "+indent, strings.Join(detail, " · "), path, sb.maxRunes(captionSize)), captionSize, muted, false)}
	if p.Branch != "" {
		lines = append(lines, sb.text("    "+indent+"⎇ "+p.Branch, captionSize, muted, false))
	}
	if p.Checks != "" {
		var badge fyne.CanvasObject = sb.text("    "+indent+p.Checks, captionSize, checksColor(p.Checks), false)
		if sb.onChecks != nil {
			id := p.ID
			badge = newTapBox(badge, func() { sb.onChecks(id) })
		}
		lines = append(lines, badge)
	}
	if p.Glyph != "" {
		lines = append(lines, sb.text("    "+p.Glyph+" "+p.Status, captionSize, statusColor(p), p.Waiting))
	}
	if p.Usage != "" {
		lines = append(lines, sb.text("    "+indent+p.Usage, captionSize, muted, false), sb.text("    "+indent+p.Turn, captionSize, muted, false))
	}
	if p.Group != "" {
		lines = append(lines, sb.text("    ▌ group "+p.Group, captionSize, groupColour(p.Group), false))
	}
	if p.Ports != "" && sb.onPort != nil {
		chips := []fyne.CanvasObject{sb.text("   ", captionSize, muted, false)}
		for _, port := range strings.Fields(p.Ports) {
			// A filled button: a low-importance one looked like plain text
			// until hovered.
			id := p.ID
			b := widget.NewButton(":"+port, func() { sb.onPort(id, port) })
			b.Importance = widget.MediumImportance
			chips = append(chips, b)
		}
		lines = append(lines, container.NewHBox(chips...))
	}
	id := p.ID
	b := newTapBox(container.New(layout.NewCustomPaddedLayout(2, 2, 0, 0), container.NewVBox(lines...)), func() { sb.onPane(id) })
	b.fixed = true // a row is rebuilt, never changed, when its pane's content changes
	return b
}

// themedFill is a rectangle filled with a colour of the current theme,
// read again on every Refresh. Fyne refreshes each widget of the window
// when the theme changes (a live `theme` edit); a plain canvas.Rectangle
// would keep the colour it was built with: the sidebar kept the old
// theme's background under the new theme's text colours until restart.
// Its fields are used on the UI goroutine only.
type themedFill struct {
	widget.BaseWidget
	name fyne.ThemeColorName
	rect *canvas.Rectangle
}

func newThemedFill(name fyne.ThemeColorName) *themedFill {
	f := &themedFill{name: name, rect: canvas.NewRectangle(theme.Color(name))}
	f.ExtendBaseWidget(f)
	return f
}

// CreateRenderer is part of fyne.Widget.
func (f *themedFill) CreateRenderer() fyne.WidgetRenderer { return themedFillRenderer{f} }

// themedFillRenderer draws a themedFill's rectangle in the theme's colour.
type themedFillRenderer struct{ f *themedFill }

func (r themedFillRenderer) Destroy()                     {}
func (r themedFillRenderer) Layout(s fyne.Size)           { r.f.rect.Resize(s) }
func (r themedFillRenderer) MinSize() fyne.Size           { return fyne.Size{} }
func (r themedFillRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.f.rect} }
func (r themedFillRenderer) Refresh() {
	if c := theme.Color(r.f.name); c != r.f.rect.FillColor {
		r.f.rect.FillColor = c
		r.f.rect.Refresh()
	}
}

// tapBox is a tappable container with an optional highlight behind it.
// Its fields are used on the UI goroutine only.
type tapBox struct {
	widget.BaseWidget
	content fyne.CanvasObject
	bg      *canvas.Rectangle
	onTap   func()
	row     int // the row it shows, in a virtualised pickList
	// culled leaves the box's content out of Fyne's walks (the layout
	// check and the painting) while it is scrolled out of view; its size
	// and place stay (see sidebar.cull).
	culled bool
	// fixed says the content never changes (a sidebar pane row), so its
	// minimum size is computed once (until a Refresh): Fyne asks every
	// object on screen for its minimum size before each frame, and each
	// container's answer asks all of its children again, down to every
	// text of every row.
	fixed bool
}

func newTapBox(content fyne.CanvasObject, onTap func()) *tapBox {
	b := &tapBox{content: content, onTap: onTap, bg: canvas.NewRectangle(color.Transparent)}
	b.bg.CornerRadius = 4
	b.ExtendBaseWidget(b)
	return b
}

func (b *tapBox) setHighlight(on bool) {
	if on {
		b.bg.FillColor = theme.Color(theme.ColorNameSelection)
	} else {
		b.bg.FillColor = color.Transparent
	}
	b.bg.Refresh()
}

// Tapped runs the box's action.
func (b *tapBox) Tapped(*fyne.PointEvent) {
	if b.onTap != nil {
		b.onTap()
	}
}

// setCulled culls the box or shows it again (see culled).
func (b *tapBox) setCulled(on bool) {
	if b.culled == on {
		return
	}
	b.culled = on
	canvas.Refresh(b) // the next frame walks it again, or no longer
}

// CreateRenderer is part of fyne.Widget.
func (b *tapBox) CreateRenderer() fyne.WidgetRenderer {
	stack := container.NewStack(b.bg, b.content)
	return &tapBoxRenderer{b: b, stack: stack, objs: []fyne.CanvasObject{stack}}
}

// tapBoxRenderer draws a tapBox: its highlight and content, nothing while
// it is culled.
type tapBoxRenderer struct {
	b     *tapBox
	stack *fyne.Container
	objs  []fyne.CanvasObject
	min   fyne.Size // the fixed box's minimum size, once known
	known bool
}

func (r *tapBoxRenderer) Destroy()           {}
func (r *tapBoxRenderer) Layout(s fyne.Size) { r.stack.Resize(s) }

func (r *tapBoxRenderer) MinSize() fyne.Size {
	if !r.b.fixed {
		return r.stack.MinSize()
	}
	if !r.known {
		r.min, r.known = r.stack.MinSize(), true
	}
	return r.min
}

func (r *tapBoxRenderer) Refresh() {
	r.known = false
	r.stack.Refresh()
}
func (r *tapBoxRenderer) Objects() []fyne.CanvasObject {
	if r.b.culled {
		return nil
	}
	return r.objs
}

// setAgentLaunchers shows one button per installed agent; a tap runs
// launch with it.
func (sb *sidebar) setAgentLaunchers(agents []installedAgent, launch func(installedAgent)) {
	objs := make([]fyne.CanvasObject, 0, len(agents))
	for _, a := range agents {
		b := widget.NewButtonWithIcon(a.Name, theme.ContentAddIcon(), func() { launch(a) })
		b.Importance = widget.LowImportance
		b.Alignment = widget.ButtonAlignLeading
		objs = append(objs, b)
	}
	sb.launchers.Objects = objs
	sb.launchers.Refresh()
}
