//go:build linux

package e2e

import (
	"slices"
	"testing"
)

// TestWorkspaceMoveRename runs `paneflow workspace move|rename` against a
// real server: by index and by title, the tab order and titles as
// workspace.list reports them after, and the refusals.
func TestWorkspaceMoveRename(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.mustCLI(nil, "new", "--name", "build")
	s.mustCLI(nil, "new", "--name", "docs")
	titles := func() []string {
		var out []string
		for _, w := range s.workspaces() {
			out = append(out, w.Title)
		}
		return out
	}
	first := titles()[0]

	if got := s.mustCLI(nil, "workspace", "move", "docs", "0").stdout; got != "moved workspace 'docs' from 2 to 0\n" {
		t.Errorf("workspace move docs 0: got %q", got)
	}
	if got, want := titles(), []string{"docs", first, "build"}; !slices.Equal(got, want) {
		t.Errorf("after move docs 0: titles %q, want %q", got, want)
	}
	if ws := s.workspaces(); !ws[1].Active {
		t.Errorf("after the move the first workspace (now at 1) should still be active: %+v", ws)
	}
	var moved struct {
		Index int `json:"index"`
	}
	if s.mustCLI(&moved, "workspace", "move", "0", "2", "--json"); moved.Index != 2 {
		t.Errorf("workspace move 0 2 --json: got %+v, want index 2", moved)
	}
	if got, want := titles(), []string{first, "build", "docs"}; !slices.Equal(got, want) {
		t.Errorf("after move 0 2: titles %q, want %q", got, want)
	}

	var renamed struct {
		Index int    `json:"index"`
		Title string `json:"title"`
	}
	if s.mustCLI(&renamed, "workspace", "rename", "build", "  ci\x07 runs ", "--json"); renamed.Index != 1 || renamed.Title != "ci runs" {
		t.Errorf("workspace rename build --json: got %+v, want index 1 titled \"ci runs\"", renamed)
	}
	if got := s.mustCLI(nil, "workspace", "rename", "2", "notes").stdout; got != "renamed workspace 2 from 'docs' to 'notes'\n" {
		t.Errorf("workspace rename 2 notes: got %q", got)
	}
	if got, want := titles(), []string{first, "ci runs", "notes"}; !slices.Equal(got, want) {
		t.Errorf("after the renames: titles %q, want %q", got, want)
	}

	s.wantCode(3, []string{"no workspace is titled 'docs'", "1 'ci runs'"}, "workspace", "move", "docs", "0")
	s.wantCode(3, []string{"no workspace at index 3"}, "workspace", "rename", "3", "x")
	s.wantCode(1, []string{"cannot move workspace 0 to 3: there are 3 workspaces"}, "workspace", "move", "0", "3")
	s.wantCode(2, []string{"<to> must be a non-negative integer"}, "workspace", "move", "0", "last")
	s.wantCode(1, []string{"must not be empty"}, "workspace", "rename", "0", "\x07")
	if got, want := titles(), []string{first, "ci runs", "notes"}; !slices.Equal(got, want) {
		t.Errorf("after the refusals: titles %q, want %q (nothing should change)", got, want)
	}
}
