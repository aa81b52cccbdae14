package workspace

// node is one node of a workspace's layout tree: a leaf holding a surface,
// or a split holding at least two children with one ratio each. Nodes are
// guarded by Manager.mu.
type node struct {
	parent   *node
	surface  *Surface // non-nil for a leaf
	dir      Direction
	children []*node
	ratios   []float64
}

func (n *node) leaf() bool { return n.surface != nil }

// leaves appends the surfaces of the subtree in depth-first order, first
// child first.
func (n *node) leaves(out []*Surface) []*Surface {
	if n == nil {
		return out
	}
	if n.leaf() {
		return append(out, n.surface)
	}
	for _, c := range n.children {
		out = c.leaves(out)
	}
	return out
}

// count reports the number of leaves in the subtree.
func (n *node) count() int {
	if n == nil {
		return 0
	}
	if n.leaf() {
		return 1
	}
	c := 0
	for _, ch := range n.children {
		c += ch.count()
	}
	return c
}

// firstLeaf walks the first-child chain.
func (n *node) firstLeaf() *node {
	for n != nil && !n.leaf() {
		n = n.children[0]
	}
	return n
}

// newLeaf makes a leaf for s and links s to it.
func newLeaf(s *Surface) *node {
	n := &node{surface: s}
	s.leaf = n
	return n
}

// buildTree turns a normalized layout into nodes, taking one surface per
// pane from next in depth-first order.
func buildTree(l *LayoutNode, next func() *Surface) *node {
	if l.Type != NodeSplit {
		return newLeaf(next())
	}
	n := &node{dir: Horizontal, ratios: append([]float64(nil), l.Ratios...)}
	if l.Direction == "vertical" {
		n.dir = Vertical
	}
	for i := range l.Children {
		c := buildTree(&l.Children[i], next)
		c.parent = n
		n.children = append(n.children, c)
	}
	return n
}

// layout converts the subtree to its JSON form; def describes a leaf.
func (n *node) layout(def func(*Surface) SurfaceDefinition) LayoutNode {
	if n.leaf() {
		return LayoutNode{Type: NodePane, Surfaces: []SurfaceDefinition{def(n.surface)}}
	}
	l := LayoutNode{Type: NodeSplit, Direction: n.dir.String(), Ratios: append([]float64(nil), n.ratios...)}
	for _, c := range n.children {
		l.Children = append(l.Children, c.layout(def))
	}
	return l
}

// splitLeaf puts a new leaf for s next to target (spec ipc.md surface.split):
// when target's parent already splits in dir, the new leaf is inserted
// right after target and takes half of target's share; otherwise target
// is replaced by a new two-child split (target first, 50/50). It returns
// the tree's root, which changes when target was the root.
func splitLeaf(root, target *node, dir Direction, s *Surface) *node {
	leaf := newLeaf(s)
	if p := target.parent; p != nil && p.dir == dir {
		i := p.index(target)
		half := p.ratios[i] / 2
		p.ratios[i] = half
		p.children = insertAt(p.children, i+1, leaf)
		p.ratios = insertAt(p.ratios, i+1, half)
		leaf.parent = p
		return root
	}
	sp := &node{parent: target.parent, dir: dir, ratios: []float64{0.5, 0.5}}
	if p := target.parent; p != nil {
		p.children[p.index(target)] = sp
	} else {
		root = sp
	}
	target.parent, leaf.parent = sp, sp
	sp.children = []*node{target, leaf}
	return root
}

// removeLeaf takes leaf out of the tree and returns the new root (nil when
// leaf was the only one). The removed share goes to the previous sibling
// (the next one for a first child), so the neighbour takes the space; a
// split left with one child is replaced by that child, which inherits the
// split's place and share.
func removeLeaf(root, leaf *node) *node {
	p := leaf.parent
	leaf.parent = nil
	if p == nil {
		return nil
	}
	i := p.index(leaf)
	share := p.ratios[i]
	p.children = append(p.children[:i], p.children[i+1:]...)
	p.ratios = append(p.ratios[:i], p.ratios[i+1:]...)
	j := max(i-1, 0)
	p.ratios[j] += share
	if len(p.children) > 1 {
		return root
	}
	only := p.children[0]
	only.parent = p.parent
	if g := p.parent; g != nil {
		g.children[g.index(p)] = only
		return root
	}
	return only
}

func (n *node) index(c *node) int {
	for i, x := range n.children {
		if x == c {
			return i
		}
	}
	panic("workspace: node is not a child of its parent")
}

func insertAt[T any](s []T, i int, v T) []T {
	var zero T
	s = append(s, zero)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}
