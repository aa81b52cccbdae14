package conform

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/test/internal/vtrelay"
)

// navigator walks vttest's menus depth first, choosing every entry the
// plan does not exclude, and names each result page after the entry
// that shows it.
type navigator struct {
	// exclude reports whether to skip the entry at path, described as
	// desc ("" when the menu page shown did not list it).
	exclude func(path, desc string) bool
	stack   []frame
	done    bool   // the main menu's Exit was chosen
	leaf    string // the entry chosen last
	page    int    // pages shown by leaf so far
	settles int    // events since leaf was chosen
}

type frame struct {
	path  string
	count int // entries besides Exit
	next  int // the next entry to choose
}

var (
	choiceRange = regexp.MustCompile(`\(0 - ([0-9]+)\): *$`)
	// menuEntry is a line of a menu: vttest marks the entries it does
	// not implement with "*" instead of ".".
	menuEntry = regexp.MustCompile(`(?m)^ +([0-9]+)([.*]) (.*)$`)
)

// notImplemented is the description given to entries vttest marks as
// not implemented.
const notImplemented = "(not implemented)"

// maxSettles bounds the events one entry may cause: an entry that keeps
// asking for input vttest's keys do not satisfy would otherwise never end.
const maxSettles = 400

// next returns the keys that answer e, and the page's name when e is a
// result page ("" otherwise).
func (n *navigator) next(e vtrelay.Event) (keys, page string, err error) {
	n.settles++
	if n.settles > maxSettles {
		return "", "", fmt.Errorf("entry %s: more than %d waits for input without returning to its menu (interactive? exclude it)", n.leaf, maxSettles)
	}
	switch e.Kind {
	case vtrelay.KindPage, vtrelay.KindOther:
		// Other waits are pages too: vttest waits for any key after
		// a reply that did not come, or shows a result without
		// "Push <RETURN>".
		n.page++
		return "\r", fmt.Sprintf("%s#%d", n.leaf, n.page), nil
	case vtrelay.KindMenu:
	default:
		return "", "", fmt.Errorf("unexpected event %q", e.Kind)
	}
	m := choiceRange.FindStringSubmatch(e.Text)
	if m == nil {
		return "", "", fmt.Errorf("menu %q: no choice range in %q", e.Menu, tail(e.Text))
	}
	count, _ := strconv.Atoi(m[1])
	path := e.Menu
	top := n.top()
	if path == vtrelay.MenuUnnamed && top != nil {
		// A menu without a title line: the one just left if it has
		// as many entries, else the entry just chosen.
		path = top.path
		if count != top.count {
			path = child(top.path, top.next-1)
		}
	}
	switch {
	case n.done:
		return "", "", fmt.Errorf("menu %q shown after the main menu was left", e.Menu)
	case top == nil && path == "":
		n.stack = append(n.stack, frame{path: path, count: count, next: 1})
	case top == nil:
		return "", "", fmt.Errorf("menu %q shown first, not the main menu", e.Menu)
	case top.path == path:
	case path == child(top.path, top.next-1):
		n.stack = append(n.stack, frame{path: path, count: count, next: 1})
	default:
		return "", "", fmt.Errorf("menu %q shown while in menu %q after entry %s", e.Menu, top.path, n.leaf)
	}
	n.settles = 0
	top = n.top()
	top.count = count
	desc := map[int]string{}
	for _, m := range menuEntry.FindAllStringSubmatch(e.Text, -1) {
		i, _ := strconv.Atoi(m[1])
		desc[i] = m[3]
		if m[2] == "*" {
			desc[i] = notImplemented
		}
	}
	for top.next <= count && n.exclude(child(top.path, top.next), desc[top.next]) {
		top.next++
	}
	if top.next > count {
		n.stack = n.stack[:len(n.stack)-1]
		n.done = len(n.stack) == 0
		return "0\r", "", nil
	}
	n.leaf, n.page = child(top.path, top.next), 0
	top.next++
	return strconv.Itoa(top.next-1) + "\r", "", nil
}

func (n *navigator) top() *frame {
	if len(n.stack) == 0 {
		return nil
	}
	return &n.stack[len(n.stack)-1]
}

func child(path string, i int) string {
	if path == "" {
		return strconv.Itoa(i)
	}
	return path + "." + strconv.Itoa(i)
}

func tail(s string) string {
	if len(s) > 200 {
		s = "…" + s[len(s)-200:]
	}
	return strings.TrimSpace(s)
}
