package workspace

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestLayoutUnmarshal(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		want    LayoutNode
	}{
		{name: "pane", in: `{"type":"pane"}`, want: LayoutNode{Type: NodePane}},
		{
			name: "split",
			in:   `{"type":"split","direction":"vertical","ratios":[0.3,0.7],"children":[{"type":"pane"},{"type":"pane","surfaces":[{"custom_name":"x"}]}]}`,
			want: LayoutNode{Type: NodeSplit, Direction: "vertical", Ratios: []float64{0.3, 0.7}, Children: []LayoutNode{
				{Type: NodePane}, {Type: NodePane, Surfaces: []SurfaceDefinition{{CustomName: "x"}}},
			}},
		},
		{name: "missing type", in: `{"surfaces":[]}`, wantErr: `missing field "type"`},
		{name: "unknown type", in: `{"type":"tab"}`, wantErr: `unknown variant "tab"`},
		{name: "nested unknown", in: `{"type":"split","children":[{"type":"x"}]}`, wantErr: `unknown variant "x"`},
		{name: "bad env", in: `{"type":"pane","surfaces":[{"env":{"A":1}}]}`, wantErr: "cannot unmarshal number"},
		{name: "not an object", in: `[1]`, wantErr: "cannot unmarshal array"},
		{name: "null child", in: `{"type":"split","children":[null]}`, wantErr: "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got LayoutNode
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Unmarshal(%s) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unmarshal(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func pane() LayoutNode { return LayoutNode{Type: NodePane} }

func split(dir string, children ...LayoutNode) LayoutNode {
	return LayoutNode{Type: NodeSplit, Direction: dir, Children: children}
}

func TestNormalize(t *testing.T) {
	defPane := LayoutNode{Type: NodePane, Surfaces: []SurfaceDefinition{{SurfaceType: "terminal"}}}
	many := make([]LayoutNode, 40)
	for i := range many {
		many[i] = pane()
	}
	tests := []struct {
		name      string
		in        LayoutNode
		maxLeaves int
		want      LayoutNode
	}{
		{"zero value", LayoutNode{}, 64, defPane},
		{"one-child split padded", split("vertical", pane()), 64,
			LayoutNode{Type: NodeSplit, Direction: "vertical", Ratios: []float64{0.5, 0.5}, Children: []LayoutNode{defPane, defPane}}},
		{"unknown direction", split("diagonal", pane(), pane()), 64,
			LayoutNode{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{0.5, 0.5}, Children: []LayoutNode{defPane, defPane}}},
		{"legacy ratio clamped", LayoutNode{Type: NodeSplit, Ratio: ptr(0.95), Children: []LayoutNode{pane(), pane()}}, 64,
			LayoutNode{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{0.9, 0.1}, Children: []LayoutNode{defPane, defPane}}},
		{"legacy ratio NaN", LayoutNode{Type: NodeSplit, Ratio: ptr(math.NaN()), Children: []LayoutNode{pane(), pane()}}, 64,
			LayoutNode{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{0.5, 0.5}, Children: []LayoutNode{defPane, defPane}}},
		{"legacy ratio ignored for 3", LayoutNode{Type: NodeSplit, Ratio: ptr(0.2), Children: []LayoutNode{pane(), pane(), pane()}}, 64,
			LayoutNode{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, Children: []LayoutNode{defPane, defPane, defPane}}},
		{"ratios scaled", LayoutNode{Type: NodeSplit, Ratios: []float64{1, 3}, Children: []LayoutNode{pane(), pane()}}, 64,
			LayoutNode{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{0.5, 0.5}, Children: []LayoutNode{defPane, defPane}}},
		{"ratios padded and floored", LayoutNode{Type: NodeSplit, Ratios: []float64{0}, Children: []LayoutNode{pane(), pane()}}, 64,
			LayoutNode{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{0.01 / 0.51, 0.5 / 0.51}, Children: []LayoutNode{defPane, defPane}}},
		{"ratios non-finite", LayoutNode{Type: NodeSplit, Ratios: []float64{math.Inf(1), 0.5}, Children: []LayoutNode{pane(), pane()}}, 64,
			LayoutNode{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{0.5, 0.5}, Children: []LayoutNode{defPane, defPane}}},
		{"leaf budget collapses", split("vertical", pane(), split("horizontal", pane(), pane())), 2,
			LayoutNode{Type: NodeSplit, Direction: "vertical", Ratios: []float64{0.5, 0.5}, Children: []LayoutNode{defPane, defPane}}},
		{"leaf budget 1", split("vertical", pane(), pane()), 1, defPane},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			got.Normalize(tt.maxLeaves)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Normalize mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("children capped", func(t *testing.T) {
		got := LayoutNode{Type: NodeSplit, Children: many}
		got.Normalize(64)
		if n := len(got.Children); n != MaxSplitChildren {
			t.Errorf("children after Normalize = %d, want %d", n, MaxSplitChildren)
		}
		if n := got.Leaves(); n != MaxSplitChildren {
			t.Errorf("leaves after Normalize = %d, want %d", n, MaxSplitChildren)
		}
	})
}

func TestLayoutJSONRoundTrip(t *testing.T) {
	in := `{"type":"split","direction":"vertical","ratios":[0.25,0.75],"children":[{"type":"pane","surfaces":[{"surface_type":"terminal","surface_id":3,"custom_name":"api","focus":true}]},{"type":"pane","surfaces":[]}]}`
	var l LayoutNode
	if err := json.Unmarshal([]byte(in), &l); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("round trip:\n got %s\nwant %s", out, in)
	}
}

// shape renders a tree compactly: V[..] side by side, H[..] stacked, p = pane.
func shape(l LayoutNode) string {
	if l.Type != NodeSplit {
		return "p"
	}
	var parts []string
	for _, c := range l.Children {
		parts = append(parts, shape(c))
	}
	d := "H"
	if l.Direction == "vertical" {
		d = "V"
	}
	return d + "[" + strings.Join(parts, " ") + "]"
}

func TestPresetLayout(t *testing.T) {
	tests := []struct {
		preset    string
		n, main   int
		want      string
		wantOrder []int
	}{
		{PresetEvenH, 1, 0, "p", []int{0}},
		{PresetEvenH, 3, 0, "V[p p p]", []int{0, 1, 2}},
		{"bogus", 2, 0, "V[p p]", []int{0, 1}},
		{PresetEvenV, 3, 0, "H[p p p]", []int{0, 1, 2}},
		{PresetMainVertical, 2, 0, "V[p p]", []int{0, 1}},
		{PresetMainVertical, 4, 2, "V[p H[p p p]]", []int{2, 0, 1, 3}},
		{PresetMainVertical, 3, 9, "V[p H[p p]]", []int{0, 1, 2}},
		{PresetTiled, 2, 0, "V[p p]", []int{0, 1}},
		{PresetTiled, 3, 0, "H[V[p p] p]", []int{0, 1, 2}},
		{PresetTiled, 5, 0, "H[V[p p p] V[p p]]", []int{0, 1, 2, 3, 4}},
		{PresetTiled, 7, 0, "H[V[p p p] V[p p p] p]", []int{0, 1, 2, 3, 4, 5, 6}},
		{PresetTiled, 10, 0, "H[V[p p p p] V[p p p p] V[p p]]", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			l, order := PresetLayout(tt.preset, tt.n, tt.main)
			if got := shape(l); got != tt.want {
				t.Errorf("PresetLayout(%q, %d) = %s, want %s", tt.preset, tt.n, got, tt.want)
			}
			if diff := cmp.Diff(tt.wantOrder, order); diff != "" {
				t.Errorf("order mismatch (-want +got):\n%s", diff)
			}
			if got := l.Leaves(); got != tt.n {
				t.Errorf("leaves = %d, want %d", got, tt.n)
			}
			// A preset is already normal.
			norm := l
			norm.Normalize(64)
			if diff := cmp.Diff(shape(l), shape(norm)); diff != "" {
				t.Errorf("normalizing changed the shape: %s", diff)
			}
		})
	}
	t.Run("tiled sizes", func(t *testing.T) {
		// Row sizes from spec specs.md §4.
		want := map[int]string{13: "4 4 4 1", 17: "5 5 5 2", 21: "5 5 5 5 1", 26: "6 6 6 6 2", 32: "6 6 6 6 6 2"}
		for n, rows := range want {
			l, _ := PresetLayout(PresetTiled, n, 0)
			var got []string
			for _, r := range l.Children {
				got = append(got, strconv.Itoa(r.Leaves()))
			}
			if g := strings.Join(got, " "); g != rows {
				t.Errorf("tiled %d rows = %s, want %s", n, g, rows)
			}
		}
	})
}

func treeShape(n *node) string {
	if n == nil {
		return ""
	}
	if n.leaf() {
		return strconv.FormatUint(n.surface.id, 10)
	}
	var parts []string
	for _, c := range n.children {
		parts = append(parts, treeShape(c))
	}
	d := "H"
	if n.dir == Vertical {
		d = "V"
	}
	return d + "[" + strings.Join(parts, " ") + "]"
}

func checkParents(t *testing.T, n *node) {
	t.Helper()
	if n == nil || n.leaf() {
		return
	}
	if len(n.children) < 2 || len(n.ratios) != len(n.children) {
		t.Errorf("split with %d children and %d ratios", len(n.children), len(n.ratios))
	}
	sum := 0.0
	for i, c := range n.children {
		if c.parent != n {
			t.Errorf("child %d has the wrong parent", i)
		}
		sum += n.ratios[i]
		checkParents(t, c)
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("ratios %v sum to %v, want 1", n.ratios, sum)
	}
}

func TestSplitAndRemove(t *testing.T) {
	s := func(id uint64) *Surface { return &Surface{id: id} }
	s1, s2, s3, s4 := s(1), s(2), s(3), s(4)
	root := newLeaf(s1)
	root = splitLeaf(root, s1.leaf, Vertical, s2)
	if got := treeShape(root); got != "V[1 2]" {
		t.Fatalf("after split = %s, want V[1 2]", got)
	}
	root = splitLeaf(root, s1.leaf, Vertical, s3) // same direction: sibling, halves s1's share
	if got := treeShape(root); got != "V[1 3 2]" {
		t.Fatalf("after sibling split = %s, want V[1 3 2]", got)
	}
	if diff := cmp.Diff([]float64{0.25, 0.25, 0.5}, root.ratios); diff != "" {
		t.Errorf("ratios mismatch (-want +got):\n%s", diff)
	}
	root = splitLeaf(root, s2.leaf, Horizontal, s4) // other direction: nests
	if got := treeShape(root); got != "V[1 3 H[2 4]]" {
		t.Fatalf("after nested split = %s, want V[1 3 H[2 4]]", got)
	}
	checkParents(t, root)

	root = removeLeaf(root, s3.leaf) // its share goes to the previous sibling
	if got := treeShape(root); got != "V[1 H[2 4]]" {
		t.Fatalf("after removing 3 = %s", got)
	}
	if diff := cmp.Diff([]float64{0.5, 0.5}, root.ratios); diff != "" {
		t.Errorf("ratios mismatch (-want +got):\n%s", diff)
	}
	root = removeLeaf(root, s2.leaf) // the nested split collapses into 4
	if got := treeShape(root); got != "V[1 4]" {
		t.Fatalf("after removing 2 = %s", got)
	}
	checkParents(t, root)
	root = removeLeaf(root, s1.leaf)
	if got := treeShape(root); got != "4" || root.parent != nil {
		t.Fatalf("after removing 1 = %s (parent %v), want a bare leaf", got, root.parent)
	}
	if root = removeLeaf(root, s4.leaf); root != nil {
		t.Fatalf("after removing the last leaf root = %v, want nil", root)
	}
}
