//go:build !windows

package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/internal/artifact"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// TestArtifacts: artifact.get and artifact.keep; a leftover of an
// earlier run with a new pane's ids is ignored and removed, this run's
// file is not; a closed pane's artifact is removed unless kept; at
// shutdown the open panes' artifacts go too.
func TestArtifacts(t *testing.T) {
	data := t.TempDir()
	root := filepath.Join(data, "paneflow", "artifacts")
	// A leftover of an earlier run, for the pane this run's first split
	// will get (workspace 1, surface 2), older than this run.
	if err := artifact.Write(root, artifact.Artifact{Output: "old run", WorkspaceID: 1, SurfaceID: 2}, time.Now()); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(artifact.Path(root, 1, 2), old, old)

	cfg := config.Default()
	cfg.DefaultShell = "/bin/sh"
	c, err := New(Options{
		SocketPath: ipctest.NewPath(t), Cols: 80, Rows: 24, Config: &cfg, Logf: t.Logf,
		Getenv: func(k string) string {
			if k == "XDG_DATA_HOME" {
				return data
			}
			return ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- c.Serve(context.Background()) }()
	cl := &ipc.Client{Path: c.SocketPath}
	ctx := context.Background()
	type got struct {
		Exists    bool   `json:"exists"`
		Path      string `json:"path"`
		Output    string `json:"output"`
		Kept      bool   `json:"kept"`
		Truncated bool   `json:"truncated"`
	}
	get := func(id uint64) got {
		t.Helper()
		var g got
		if err := cl.Call(ctx, "artifact.get", map[string]any{"surface_id": id}, &g); err != nil {
			t.Fatalf("artifact.get %d: %v", id, err)
		}
		return g
	}
	split := func() uint64 {
		t.Helper()
		var r struct {
			SurfaceID uint64 `json:"surface_id"`
		}
		if err := cl.Call(ctx, "surface.split", map[string]any{"direction": "vertical", "command": "exec sleep 600"}, &r); err != nil {
			t.Fatal(err)
		}
		return r.SurfaceID
	}
	waitGone := func(p string) {
		t.Helper()
		deadline := time.Now().Add(testDeadline)
		for {
			if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is still there", p)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	first := uint64(1)
	if g := get(first); g.Exists || g.Path != artifact.Path(root, 1, first) {
		t.Errorf("artifact.get of a pane without one = %+v", g)
	}
	for _, p := range []map[string]any{{}, {"surface_id": 99}} {
		var e *ipc.Error
		if err := cl.Call(ctx, "artifact.get", p, nil); !errors.As(err, &e) || e.Code != ipc.CodeInvalidParams {
			t.Errorf("artifact.get %v: %v, want invalid params", p, err)
		}
	}
	second := split()
	if second != 2 {
		t.Fatalf("the split got surface %d; the test's leftover is for 2", second)
	}
	// The leftover is never served, and goes once the pane is known.
	if g := get(second); g.Exists {
		t.Errorf("a leftover of an earlier run served: %+v", g)
	}
	waitGone(filepath.Dir(artifact.Path(root, 1, second)))

	// This run's answers: served; removed on close; kept ones moved.
	for _, id := range []uint64{first, second} {
		if err := artifact.Write(root, artifact.Artifact{Output: "answer", WorkspaceID: 1, SurfaceID: id}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if g := get(second); !g.Exists || g.Output != "answer" || g.Kept {
		t.Errorf("artifact.get = %+v", g)
	}
	var k struct {
		Kept bool `json:"kept"`
	}
	if err := cl.Call(ctx, "artifact.keep", map[string]any{"surface_id": second}, &k); err != nil || !k.Kept {
		t.Fatalf("artifact.keep: %v %+v", err, k)
	}
	if g := get(second); !g.Kept {
		t.Errorf("artifact.get after keep = %+v", g)
	}
	if err := cl.Call(ctx, "surface.close", map[string]any{"surface_id": second}, nil); err != nil {
		t.Fatal(err)
	}
	waitGone(filepath.Dir(artifact.Path(root, 1, second)))
	kept, _ := filepath.Glob(filepath.Join(root, artifact.KeptDir, "1-2-*", artifact.FileName))
	if len(kept) != 1 {
		t.Errorf("kept artifacts: %v", kept)
	}
	third := split()
	if err := artifact.Write(root, artifact.Artifact{Output: "x", WorkspaceID: 1, SurfaceID: third}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := cl.Call(ctx, "artifact.keep", map[string]any{"surface_id": third, "keep": false}, &k); err != nil || k.Kept {
		t.Fatalf("artifact.keep false: %v %+v", err, k)
	}
	if err := cl.Call(ctx, "surface.close", map[string]any{"surface_id": third}, nil); err != nil {
		t.Fatal(err)
	}
	waitGone(filepath.Dir(artifact.Path(root, 1, third)))

	// Quitting removes the open panes' artifacts.
	sctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	if err := c.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	<-served
	if _, err := os.Stat(filepath.Dir(artifact.Path(root, 1, first))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pane 1's artifact outlived the quit: %v", err)
	}
	if _, err := os.Stat(kept[0]); err != nil {
		t.Errorf("the kept artifact went at quit: %v", err)
	}
}
