package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/proto"
)

// fakeCaller answers surface.list, surface.status and surface.send_text
// for a review.send test, and records the texts sent.
type fakeCaller struct {
	panes  []proto.SurfaceInfo
	tools  map[uint64]string // pane → its agent ("" none)
	gate   bool              // send_text answers the scripting gate's -32601
	sent   []proto.SurfaceSendTextParams
	closed []uint64
	status int
}

func (f *fakeCaller) Call(_ context.Context, method string, params, result any) error {
	var out any
	switch method {
	case proto.MethodSurfaceList:
		out = proto.SurfaceListResult{Surfaces: f.panes}
	case proto.MethodSurfaceStatus:
		t := params.(proto.Target)
		f.status++
		out = proto.SurfaceStatusResult{AgentStatus: proto.AgentStatus{SurfaceID: *t.SurfaceID, Tool: f.tools[*t.SurfaceID], TurnSeq: 7}}
	case proto.MethodSurfaceClose:
		p := params.(proto.SurfaceIDParams)
		f.closed = append(f.closed, *p.SurfaceID)
		out = proto.SurfaceCloseResult{Closed: true, SurfaceID: *p.SurfaceID}
	case proto.MethodSurfaceSendText:
		if f.gate {
			return &proto.Error{Code: -32601, Message: proto.MsgSendTextGate}
		}
		p := params.(proto.SurfaceSendTextParams)
		f.sent = append(f.sent, p)
		out = proto.SurfaceSendTextResult{Sent: true, Submitted: true, AgentTarget: true, InputReady: true}
	default:
		return fmt.Errorf("unexpected call %s", method)
	}
	b, _ := json.Marshal(out)
	return json.Unmarshal(b, result)
}

// newTestService is a Service keeping its files in a temporary directory,
// with fc as its socket.
func newTestService(t *testing.T, fc *fakeCaller) *Service {
	t.Helper()
	return New(Options{
		Dir:  filepath.Join(t.TempDir(), "review"),
		Dial: func(time.Duration) proto.Caller { return fc },
		Now:  func() time.Time { return time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC) },
	})
}

// call runs a handler with params and decodes its result into R.
func call[R any](t *testing.T, h func(context.Context, json.RawMessage) (any, error), params any) (R, error) {
	t.Helper()
	var r R
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h(context.Background(), b)
	if err != nil {
		return r, err
	}
	b, _ = json.Marshal(res)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r, nil
}

// ok is call that ends the test on an error.
func ok[R any](t *testing.T, h func(context.Context, json.RawMessage) (any, error), params any) R {
	t.Helper()
	r, err := call[R](t, h, params)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// numbered is n lines "line 1".."line n", newline-terminated.
func numbered(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCommentsFollowTheirCode: in a real repository, a comment on a range
// follows its lines when lines are inserted above, is outdated once the
// code is deleted and anchored again when it comes back; the comments are
// kept on disk (0600) for a new Service.
func TestCommentsFollowTheirCode(t *testing.T) {
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"src/a.go": numbered(1, 20), "b.txt": "x\n"})
	fc := &fakeCaller{}
	s := newTestService(t, fc)
	end := 12
	made := ok[proto.ReviewCommentResult](t, s.comment, proto.ReviewCommentParams{
		Worktree: filepath.Join(repo, "src"), Path: "src/a.go", StartLine: 10, EndLine: &end, Body: "rename these",
	})
	c := made.Comment
	if c.ID != "c1" || c.StartLine != 10 || c.EndLine != 12 || strings.Join(c.Code, "|") != "line 10|line 11|line 12" ||
		strings.Join(c.Before, "|") != "line 7|line 8|line 9" || strings.Join(c.After, "|") != "line 13|line 14|line 15" {
		t.Fatalf("comment = %+v", c)
	}
	if made.Worktree != repo {
		t.Errorf("worktree = %q, want %q", made.Worktree, repo)
	}
	// An absolute path and a one-line comment.
	ok[proto.ReviewCommentResult](t, s.comment, proto.ReviewCommentParams{
		Worktree: repo, Path: filepath.Join(repo, "b.txt"), StartLine: 1, Body: "drop this file",
	})

	list := func(all bool) []proto.ReviewComment {
		t.Helper()
		return ok[proto.ReviewListResult](t, s.list, proto.ReviewListParams{Worktree: repo, All: &all}).Comments
	}
	// Five lines inserted above: the comment moves down five.
	write(t, filepath.Join(repo, "src/a.go"), "new 1\nnew 2\nnew 3\nnew 4\nnew 5\n"+numbered(1, 20))
	got := list(false)
	if len(got) != 2 || got[0].StartLine != 15 || got[0].EndLine != 17 || got[0].Outdated {
		t.Fatalf("after the insert: %+v", got)
	}
	// The commented lines deleted: outdated, the lines kept.
	write(t, filepath.Join(repo, "src/a.go"), "new 1\n"+numbered(1, 9)+numbered(13, 8))
	got = list(false)
	if !got[0].Outdated || got[0].StartLine != 15 {
		t.Fatalf("after the delete: %+v", got[0])
	}
	// The code back, re-indented, elsewhere: anchored again.
	write(t, filepath.Join(repo, "src/a.go"), "\tline 10\n\tline 11\n\tline 12\n")
	got = list(false)
	if got[0].Outdated || got[0].StartLine != 1 || got[0].EndLine != 3 {
		t.Fatalf("after the code came back: %+v", got[0])
	}
	// The file gone: outdated.
	if err := os.Remove(filepath.Join(repo, "b.txt")); err != nil {
		t.Fatal(err)
	}
	if got = list(false); !got[1].Outdated {
		t.Fatalf("after the file went: %+v", got[1])
	}

	res := ok[proto.ReviewResolveResult](t, s.resolve, proto.ReviewResolveParams{Worktree: repo, IDs: []string{"c2"}})
	if strings.Join(res.Resolved, ",") != "c2" {
		t.Errorf("resolved %v", res.Resolved)
	}
	if got = list(false); len(got) != 1 || got[0].ID != "c1" {
		t.Errorf("open after resolving c2: %+v", got)
	}
	if got = list(true); len(got) != 2 || !got[1].Resolved {
		t.Errorf("all after resolving c2: %+v", got)
	}
	if _, err := call[proto.ReviewResolveResult](t, s.resolve, proto.ReviewResolveParams{Worktree: repo, IDs: []string{"c9"}}); err == nil || !strings.Contains(err.Error(), "no comment 'c9'") {
		t.Errorf("resolving c9: %v", err)
	}

	// A new Service over the same directory has them; the file is private.
	s2 := New(Options{Dir: s.o.Dir, Dial: s.o.Dial})
	again := ok[proto.ReviewListResult](t, s2.list, proto.ReviewListParams{Worktree: repo}).Comments
	if len(again) != 1 || again[0].ID != "c1" || again[0].StartLine != 1 {
		t.Errorf("a new service lists %+v", again)
	}
	fi, err := os.Stat(s.store.path(repo))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the comment file: %v, %v", fi, err)
	}
	// The next id is never one used before.
	c3 := ok[proto.ReviewCommentResult](t, s2.comment, proto.ReviewCommentParams{Worktree: repo, Path: "src/a.go", StartLine: 2, Body: "x"})
	if c3.Comment.ID != "c3" {
		t.Errorf("next id = %s, want c3", c3.Comment.ID)
	}
}

// TestCommentRefused: bad params are refused with a message and change
// nothing.
func TestCommentRefused(t *testing.T) {
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a.go": numbered(1, 5)})
	s := newTestService(t, &fakeCaller{})
	secret := filepath.Join(t.TempDir(), "secret")
	write(t, secret, "key\n")
	if err := os.Symlink(secret, filepath.Join(repo, "out")); err != nil {
		t.Fatal(err)
	}
	five, two := 6, 2
	for _, tc := range []struct {
		p    proto.ReviewCommentParams
		want string
	}{
		{proto.ReviewCommentParams{Worktree: "rel", Path: "a.go", StartLine: 1, Body: "x"}, "absolute"},
		{proto.ReviewCommentParams{Worktree: t.TempDir(), Path: "a.go", StartLine: 1, Body: "x"}, "not inside a git work tree"},
		{proto.ReviewCommentParams{Worktree: repo, Path: "../etc/passwd", StartLine: 1, Body: "x"}, "not a file inside the worktree"},
		{proto.ReviewCommentParams{Worktree: repo, Path: ".git/config", StartLine: 1, Body: "x"}, "inside .git"},
		{proto.ReviewCommentParams{Worktree: repo, Path: "a.go", StartLine: 1, Body: "  "}, "Missing 'body'"},
		{proto.ReviewCommentParams{Worktree: repo, Path: "a.go", StartLine: 5, EndLine: &five, Body: "x"}, "lines 5-6 are not in 'a.go' (5 lines)"},
		{proto.ReviewCommentParams{Worktree: repo, Path: "a.go", StartLine: 3, EndLine: &two, Body: "x"}, "lines 3-2"},
		{proto.ReviewCommentParams{Worktree: repo, Path: "nope.go", StartLine: 1, Body: "x"}, "cannot comment on 'nope.go'"},
		{proto.ReviewCommentParams{Worktree: repo, Path: "out", StartLine: 1, Body: "x"}, "out leads outside the worktree"},
	} {
		if _, err := call[proto.ReviewCommentResult](t, s.comment, tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
	if _, err := os.Stat(s.store.path(repo)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused comment wrote the file: %v", err)
	}
}

// TestCorruptFileKept: a comment file that does not parse is named in the
// error and never overwritten.
func TestCorruptFileKept(t *testing.T) {
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a.go": numbered(1, 5)})
	s := newTestService(t, &fakeCaller{})
	if err := os.MkdirAll(s.o.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, s.store.path(repo), "{not json")
	_, err := call[proto.ReviewCommentResult](t, s.comment, proto.ReviewCommentParams{Worktree: repo, Path: "a.go", StartLine: 1, Body: "x"})
	if err == nil || !strings.Contains(err.Error(), "left untouched") || !strings.Contains(err.Error(), s.store.path(repo)) {
		t.Errorf("comment over a corrupt file: %v", err)
	}
	if b, _ := os.ReadFile(s.store.path(repo)); string(b) != "{not json" {
		t.Errorf("the corrupt file became %q", b)
	}
}

// TestSendOnePrompt: review.send finds the one agent pane in the
// worktree, types every open, current comment as one prompt (file, lines,
// the code fenced, the comment), counts them sent and leaves outdated and
// resolved ones out; the scripting gate's refusal comes back as it is.
func TestSendOnePrompt(t *testing.T) {
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a.go": "func f() {\n\treturn ```x```\n}\n", "b.go": "gone\n"})
	sub, other := filepath.Join(repo, "sub"), t.TempDir()
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fc := &fakeCaller{
		panes: []proto.SurfaceInfo{{ID: 1, Cwd: &other}, {ID: 2, Cwd: &sub}, {ID: 3, Cwd: &repo}},
		tools: map[uint64]string{1: "claude", 2: "claude"}, // 3 is a shell
	}
	s := newTestService(t, fc)
	end := 2
	for _, p := range []proto.ReviewCommentParams{
		{Worktree: repo, Path: "a.go", StartLine: 1, EndLine: &end, Body: "return an error\ninstead"},
		{Worktree: repo, Path: "b.go", StartLine: 1, Body: "outdated soon"},
		{Worktree: repo, Path: "a.go", StartLine: 3, Body: "resolved soon"},
	} {
		ok[proto.ReviewCommentResult](t, s.comment, p)
	}
	ok[proto.ReviewResolveResult](t, s.resolve, proto.ReviewResolveParams{Worktree: repo, IDs: []string{"c3"}})
	write(t, filepath.Join(repo, "b.go"), "other\n")

	res := ok[proto.ReviewSendResult](t, s.send, proto.ReviewSendParams{Worktree: repo})
	if res.SurfaceID != 2 || strings.Join(res.Comments, ",") != "c1" || res.StatusBefore.TurnSeq != 7 {
		t.Fatalf("send = %+v", res)
	}
	if len(fc.sent) != 1 || !fc.sent[0].Submit || *fc.sent[0].SurfaceID != 2 || fc.sent[0].InputWaitMS == nil || *fc.sent[0].InputWaitMS != 30000 {
		t.Fatalf("send_text calls: %+v", fc.sent)
	}
	want := "Review of your changes in " + repo + ": 1 comment. Change the code as each one asks, then say what you did.\n" +
		"\n1. a.go, lines 1-2:\n````\nfunc f() {\n\treturn ```x```\n````\nreturn an error\ninstead\n"
	if fc.sent[0].Text != want || res.Text != want {
		t.Errorf("prompt:\n%s\nwant:\n%s", fc.sent[0].Text, want)
	}
	got := ok[proto.ReviewListResult](t, s.list, proto.ReviewListParams{Worktree: repo}).Comments
	if got[0].Sent != 1 || got[1].Sent != 0 || !got[1].Outdated {
		t.Errorf("after the send: %+v", got)
	}

	// Two agents in the worktree: the caller must name one.
	fc.tools[3] = "codex"
	if _, err := call[proto.ReviewSendResult](t, s.send, proto.ReviewSendParams{Worktree: repo}); err == nil || !strings.Contains(err.Error(), "2 agent panes") {
		t.Errorf("two agents: %v", err)
	}
	three := uint64(3)
	if res := ok[proto.ReviewSendResult](t, s.send, proto.ReviewSendParams{Worktree: repo, SurfaceID: &three}); res.SurfaceID != 3 {
		t.Errorf("named pane: %+v", res)
	}
	one := uint64(1)
	fc.tools[1] = ""
	if _, err := call[proto.ReviewSendResult](t, s.send, proto.ReviewSendParams{Worktree: repo, SurfaceID: &one}); err == nil || !strings.Contains(err.Error(), "runs no known agent") {
		t.Errorf("a pane without an agent: %v", err)
	}
	fc.gate = true
	var pe *proto.Error
	if _, err := call[proto.ReviewSendResult](t, s.send, proto.ReviewSendParams{Worktree: repo, SurfaceID: &three}); !errors.As(err, &pe) || pe.Code != -32601 {
		t.Errorf("gate closed: %v", err)
	}
	ok[proto.ReviewResolveResult](t, s.resolve, proto.ReviewResolveParams{Worktree: repo, All: ptr(true)})
	if _, err := call[proto.ReviewSendResult](t, s.send, proto.ReviewSendParams{Worktree: repo}); err == nil || !strings.Contains(err.Error(), "no open comments") {
		t.Errorf("nothing open: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestReanchorTies: of two places holding the same code, the one whose
// context still matches wins over the nearer one.
func TestReanchorTies(t *testing.T) {
	lines := splitLines("a\nb\ndup\nc\nx\ny\ndup\nz\n")
	c := proto.ReviewComment{StartLine: 3, EndLine: 3, Code: []string{"dup"}, Before: []string{"x", "y"}, After: []string{"z"}}
	if !reanchor(&c, newFileIndex(lines)) || c.StartLine != 7 {
		t.Errorf("by context: %+v", c)
	}
	c = proto.ReviewComment{StartLine: 6, EndLine: 6, Code: []string{"dup"}}
	if !reanchor(&c, newFileIndex(lines)) || c.StartLine != 7 {
		t.Errorf("by distance: %+v", c)
	}
	c = proto.ReviewComment{StartLine: 8, EndLine: 9, Code: []string{"z", "past the end"}}
	if !reanchor(&c, newFileIndex(lines)) || !c.Outdated {
		t.Errorf("past the end: %+v", c)
	}
}

// BenchmarkReanchor: issue 32's target, comments re-anchored in ≤ 50 ms
// on a diff of 20,000 changed lines: 200 files of 100 lines, each with
// two comments, every file with lines inserted above them, indexed and
// re-anchored in one pass.
func BenchmarkReanchor(b *testing.B) {
	const files, perFile = 200, 100
	texts := make([][]string, files)
	var comments []proto.ReviewComment
	for f := range files {
		var lines []string
		for i := range perFile {
			lines = append(lines, fmt.Sprintf("\tx%d := compute(%d, %d) // file %d", i, f, i, f))
		}
		for _, at := range []int{20, 70} {
			code, before, after := capture(lines, at, at+2)
			comments = append(comments, proto.ReviewComment{Path: fmt.Sprint(f), StartLine: at, EndLine: at + 2, Code: code, Before: before, After: after})
		}
		texts[f] = append([]string{"// moved", "// down", "// three"}, lines...)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		cs := append([]proto.ReviewComment(nil), comments...)
		ixs := make(map[string]*fileIndex, files)
		for i := range cs {
			ix := ixs[cs[i].Path]
			if ix == nil {
				ix = newFileIndex(texts[i/2])
				ixs[cs[i].Path] = ix
			}
			if !reanchor(&cs[i], ix) || cs[i].StartLine != comments[i].StartLine+3 {
				b.Fatalf("comment %d: %+v", i, cs[i])
			}
		}
	}
}

// BenchmarkReanchorFiles is BenchmarkReanchor through the files on disk,
// as review.list does it: 200 files of 100 lines (20,000), two comments
// each, every file with three lines inserted above them.
func BenchmarkReanchorFiles(b *testing.B) {
	const files, perFile = 200, 100
	root := b.TempDir()
	var f file
	for n := range files {
		var lines []string
		for i := range perFile {
			lines = append(lines, fmt.Sprintf("\tx%d := compute(%d, %d) // file %d", i, n, i, n))
		}
		path := fmt.Sprintf("f%d.go", n)
		for _, at := range []int{20, 70} {
			code, before, after := capture(lines, at, at+2)
			f.add(proto.ReviewComment{Path: path, StartLine: at, EndLine: at + 2, Code: code, Before: before, After: after})
		}
		text := "// moved\n// down\n// three\n" + strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(root, path), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		g := file{Comments: append([]proto.ReviewComment(nil), f.Comments...)}
		if !current(root, &g) || g.Comments[0].StartLine != 23 || g.Comments[len(g.Comments)-1].StartLine != 73 {
			b.Fatalf("not re-anchored: %+v", g.Comments[0])
		}
	}
}
