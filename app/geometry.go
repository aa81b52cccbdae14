package app

import (
	"math"

	"github.com/paneflow-go/paneflow/workspace"
)

// rect is an axis-aligned rectangle in window units.
type rect struct{ X, Y, W, H float32 }

func (r rect) right() float32  { return r.X + r.W }
func (r rect) bottom() float32 { return r.Y + r.H }

// divRect is the hit area of one divider: between children Index and
// Index+1 of the split at Path, which lays its children out side by side
// when Vertical (the divider is then a vertical bar dragged along x) and
// stacked otherwise. Span is the split's extent along the drag axis
// without the dividers, which converts a drag in pixels to a ratio change.
type divRect struct {
	R        rect
	Path     []int
	Index    int
	Vertical bool
	Span     float32
}

// tiling is where each pane of a layout tree goes inside an area.
type tiling struct {
	Panes    map[uint64]rect
	Order    []uint64 // panes in depth-first order
	Dividers []divRect
}

// tile lays tree out inside area, with dividers gap wide between the
// children of each split. Ratios are read as given (the model keeps them
// normalized); a child never gets a negative size.
func tile(tree *workspace.LayoutNode, area rect, gap float32) tiling {
	t := tiling{Panes: map[uint64]rect{}}
	if tree != nil {
		t.add(tree, area, gap, nil)
	}
	return t
}

func (t *tiling) add(n *workspace.LayoutNode, r rect, gap float32, path []int) {
	if n.Type != workspace.NodeSplit || len(n.Children) == 0 {
		var id uint64
		if len(n.Surfaces) > 0 {
			id = n.Surfaces[0].SurfaceID
		}
		t.Panes[id] = r
		t.Order = append(t.Order, id)
		return
	}
	vertical := n.Direction == "vertical"
	k := len(n.Children)
	total := r.H
	if vertical {
		total = r.W
	}
	span := max(total-gap*float32(k-1), 0)
	sum := 0.0
	for i := range k {
		sum += ratioAt(n.Ratios, i, k)
	}
	pos := float32(0)
	acc := 0.0
	for i := range k {
		acc += ratioAt(n.Ratios, i, k)
		end := float32(math.Round(float64(span) * acc / sum))
		if i == k-1 {
			end = span
		}
		size := max(end-pos, 0)
		offset := pos + gap*float32(i)
		cr := rect{X: r.X, Y: r.Y + offset, W: r.W, H: size}
		dr := rect{X: r.X, Y: cr.bottom(), W: r.W, H: gap}
		if vertical {
			cr = rect{X: r.X + offset, Y: r.Y, W: size, H: r.H}
			dr = rect{X: cr.right(), Y: r.Y, W: gap, H: r.H}
		}
		childPath := append(append([]int(nil), path...), i)
		t.add(&n.Children[i], cr, gap, childPath)
		if i < k-1 {
			t.Dividers = append(t.Dividers, divRect{R: dr, Path: append([]int(nil), path...), Index: i, Vertical: vertical, Span: span})
		}
		pos = end
	}
}

// ratioAt is ratio i of a split with k children; missing or unusable
// entries count as an even share.
func ratioAt(r []float64, i, k int) float64 {
	if i < len(r) && r[i] > 0 && !math.IsInf(r[i], 0) && !math.IsNaN(r[i]) {
		return r[i]
	}
	return 1 / float64(k)
}

// dragRatios returns the ratios of a split after its divider Index moved
// by delta pixels (positive: right or down) over a split whose children
// span span pixels: the two children next to the divider trade share, and
// neither gets smaller than minPx (or than 1% of the split). ok is false
// when nothing can move.
func dragRatios(ratios []float64, index int, delta, span, minPx float32) (out []float64, ok bool) {
	k := len(ratios)
	if index < 0 || index+1 >= k || span <= 0 {
		return nil, false
	}
	out = make([]float64, k)
	sum := 0.0
	for i := range k {
		out[i] = ratioAt(ratios, i, k)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	floor := max(float64(minPx/span), 0.01)
	a, b := out[index], out[index+1]
	pair := a + b
	if pair < 2*floor {
		return nil, false
	}
	na := a + float64(delta/span)
	na = min(max(na, floor), pair-floor)
	if math.Abs(na-a) < 1e-9 {
		return nil, false
	}
	out[index], out[index+1] = na, pair-na
	return out, true
}

// Directions of a keyboard focus move.
type direction int

const (
	dirLeft direction = iota
	dirRight
	dirUp
	dirDown
)

// neighbour picks the pane a focus move in dir goes to from pane from:
// among the panes entirely on that side whose extent overlaps from's on
// the other axis, the nearest; ties go to the one overlapping most, then
// the one nearest the top-left. ok is false when there is none.
func neighbour(panes map[uint64]rect, order []uint64, from uint64, dir direction) (uint64, bool) {
	src, ok := panes[from]
	if !ok {
		return 0, false
	}
	const eps = 0.5
	var best uint64
	found := false
	var bestDist, bestOverlap float32
	var bestRect rect
	for _, id := range order {
		if id == from {
			continue
		}
		r := panes[id]
		var dist, overlap float32
		switch dir {
		case dirLeft:
			dist = src.X - r.right()
			overlap = min(src.bottom(), r.bottom()) - max(src.Y, r.Y)
		case dirRight:
			dist = r.X - src.right()
			overlap = min(src.bottom(), r.bottom()) - max(src.Y, r.Y)
		case dirUp:
			dist = src.Y - r.bottom()
			overlap = min(src.right(), r.right()) - max(src.X, r.X)
		case dirDown:
			dist = r.Y - src.bottom()
			overlap = min(src.right(), r.right()) - max(src.X, r.X)
		}
		if dist < -eps || overlap <= eps {
			continue
		}
		better := !found || dist < bestDist-eps ||
			(math.Abs(float64(dist-bestDist)) <= eps && (overlap > bestOverlap+eps ||
				(math.Abs(float64(overlap-bestOverlap)) <= eps && (r.Y < bestRect.Y || (r.Y == bestRect.Y && r.X < bestRect.X)))))
		if better {
			best, found, bestDist, bestOverlap, bestRect = id, true, dist, overlap, r
		}
	}
	return best, found
}
