package specfind

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writeFile writes text to p, making its directory.
func writeFile(t testing.TB, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "a", "b")
	lib := filepath.Join(root, "lib")
	writeFile(t, filepath.Join(root, "paneflow.workspace.toml"), "")
	writeFile(t, filepath.Join(root, "a", "review.flow.toml"), "")
	writeFile(t, filepath.Join(root, "a", "b", "notes.toml"), "") // not named as a spec
	writeFile(t, filepath.Join(root, "a", "b", "flow.toml"), "")
	writeFile(t, filepath.Join(lib, "dev.toml"), "[[panes]]\ncommand = \"sh\"\n")
	writeFile(t, filepath.Join(lib, "pipeline.toml"), "name = \"p\"\n\n  [[ step ]]\nid = \"a\"\n")
	writeFile(t, filepath.Join(lib, ".hidden.toml"), "")
	writeFile(t, filepath.Join(lib, "readme.md"), "")
	recentFile := filepath.Join(lib, "dev.toml")
	got := Discover(cwd, lib, []string{filepath.Join(root, "gone.workspace.toml"), recentFile})
	var lines []string
	for _, e := range got {
		rel, _ := filepath.Rel(root, e.Path)
		lines = append(lines, rel+" "+e.Kind+" "+e.Origin)
	}
	want := []string{
		"lib/dev.toml workspace recent",
		"a/b/flow.toml flow project",
		"a/review.flow.toml flow project",
		"paneflow.workspace.toml workspace project",
		"lib/pipeline.toml flow library",
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("Discover:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got := Discover("", "", nil); len(got) != 0 {
		t.Fatalf("nothing to look at gave %v", got)
	}
}

func TestKind(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"flow.toml", "", KindFlow},
		{"x.flow.toml", "", KindFlow},
		{"paneflow.workspace.toml", "[[step]]\n", KindWorkspace}, // the name wins
		{"a.toml", "name = \"a\"\n[[ step ]]\nid = \"s\"\n", KindFlow},
		{"b.toml", "[[panes]]\ncommand = \"sh\"\n", KindWorkspace},
		{"c.toml", "steps = \"[[step]]\"\n", KindWorkspace}, // not a table header
	} {
		p := filepath.Join(dir, c.name)
		writeFile(t, p, c.text)
		if got := Kind(p); got != c.want {
			t.Errorf("Kind(%s) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Kind(filepath.Join(dir, "missing.toml")); got != KindWorkspace {
		t.Errorf("a missing file is %q", got)
	}
}

func TestRecent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", "recent-specs.json")
	if got := LoadRecent(p); got != nil {
		t.Fatalf("no file gave %v", got)
	}
	var list []string
	for i := range MaxRecent + 3 {
		list = NoteRecent(list, "/s/"+strconv.Itoa(i))
	}
	given := slices.Clone(list)
	list = NoteRecent(list, "/s/5")
	if len(list) != MaxRecent || list[0] != "/s/5" || list[1] != "/s/22" || slices.Index(list[1:], "/s/5") >= 0 {
		t.Fatalf("list = %v", list)
	}
	if !slices.Equal(NoteRecent(given, "x")[1:], given[:MaxRecent-1]) || given[0] != "/s/22" {
		t.Fatal("NoteRecent changed the list it was given")
	}
	if err := SaveRecent(p, list); err != nil {
		t.Fatal(err)
	}
	if got := LoadRecent(p); !slices.Equal(got, list) {
		t.Fatalf("read back %v", got)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	writeFile(t, p, "{not a list")
	if got := LoadRecent(p); got != nil {
		t.Fatalf("a broken file gave %v", got)
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "paneflow.workspace.toml")
	writeFile(t, ws, "name = \"w\"\n\n[[panes]]\ncommand = \"sh\"\ncwd = \"sub\"\n")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := Resolve(context.Background(), Entry{Path: ws, Kind: KindWorkspace}, dir)
	if r.Err != nil || r.WS == nil || r.Flow != nil || len(r.WS.Panes) != 1 {
		t.Fatalf("workspace: %+v", r)
	}
	if text := r.PlanText(); !strings.Contains(text, filepath.Join(dir, "sub")) {
		t.Errorf("the plan does not show the cwd resolved against the spec's directory:\n%s", text)
	}
	bad := filepath.Join(dir, "bad.workspace.toml")
	writeFile(t, bad, "name = \"w\"\n[[panes]]\ncomand = \"sh\"\n")
	r = Resolve(context.Background(), Entry{Path: bad, Kind: KindWorkspace}, dir)
	if r.Err == nil || r.Loc.Line != 3 || r.PlanText() != "" {
		t.Fatalf("typo: %v at %+v", r.Err, r.Loc)
	}
	big := filepath.Join(dir, "big.workspace.toml")
	writeFile(t, big, strings.Repeat("#", MaxSize+1))
	if r = Resolve(context.Background(), Entry{Path: big, Kind: KindWorkspace}, dir); r.Err == nil || !strings.Contains(r.Err.Error(), "larger") {
		t.Fatalf("big: %v", r.Err)
	}
	r = Resolve(context.Background(), Entry{Path: filepath.Join(dir, "gone.toml")}, dir)
	if !errors.Is(r.Err, os.ErrNotExist) {
		t.Fatalf("gone: %v", r.Err)
	}
}
