//go:build !windows

package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"github.com/paneflow-go/paneflow/internal/gittest"
)

// bigDiffRepo makes a repository whose work tree differs from main in
// files files of 100 lines, every other line changed: 50 deletions and
// 50 additions each, files×100 changed lines in all.
func bigDiffRepo(b *testing.B, files int) string {
	b.Helper()
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := b.TempDir()
	orig := map[string]string{}
	var body, changed strings.Builder
	for l := range 100 {
		fmt.Fprintf(&body, "\tx%d := original(a, b)\n", l)
		if l%2 == 0 {
			fmt.Fprintf(&changed, "\tx%d := rewritten(a, b, c)\n", l)
		} else {
			fmt.Fprintf(&changed, "\tx%d := original(a, b)\n", l)
		}
	}
	for f := range files {
		orig[fmt.Sprintf("pkg%02d/file%03d.go", f%20, f)] = body.String()
	}
	gittest.Repo(b, dir, orig)
	gittest.Git(b, dir, "checkout", "-q", "-b", "feat")
	for p := range orig {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(changed.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkDiffOpen is the cost of opening the Diff view of a worktree
// with 200 changed files and 20,000 changed lines (issue 32's target:
// ≤ 300 ms): git's diff read and parsed, the grid's rows built, and the
// grid laid out and drawn once in a window of the GUI's size (only the
// visible rows are built). The "ui" sub-benchmark is the UI goroutine's
// part alone (parse, rows, layout).
func BenchmarkDiffOpen(b *testing.B) {
	dir := bigDiffRepo(b, 200)
	d, err := loadGitDiff(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	lines := parseDiff(d.Text)
	changed := 0
	for _, l := range lines {
		if l.kind == '+' || l.kind == '-' {
			changed++
		}
	}
	if len(d.Files) != 200 || changed != 20000 || d.Truncated {
		b.Fatalf("%d files, %d changed lines, cut %v; want 200 and 20000, whole", len(d.Files), changed, d.Truncated)
	}
	open := func(text string) {
		g := newDiffGrid(nil)
		g.Rows, _ = diffRender{lines: parseDiff(text), mode: diffUnified}.rows()
		w := test.NewWindow(container.NewStack(g))
		w.Resize(fyne.NewSize(1240, 760))
		w.Canvas().Refresh(g)
		w.Close()
	}
	// CPU time, beside the wall time: on a loaded machine the wall time
	// measures the load. git-cpu-ms is git's own (the child processes').
	report := func(b *testing.B, cpu0, git0 time.Duration) {
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(childCPUTime()-git0)/float64(time.Millisecond)/float64(b.N), "git-cpu-ms/op")
	}
	b.Run("git+ui", func(b *testing.B) {
		cpu0, git0 := cpuTime(), childCPUTime()
		for range b.N {
			d, err := loadGitDiff(context.Background(), dir)
			if err != nil {
				b.Fatal(err)
			}
			open(d.Text)
		}
		report(b, cpu0, git0)
	})
	b.Run("ui", func(b *testing.B) {
		cpu0, git0 := cpuTime(), childCPUTime()
		for range b.N {
			open(d.Text)
		}
		report(b, cpu0, git0)
	})
}

// BenchmarkDiffScroll is the UI goroutine's cost of one scroll step (a
// wheel notch) through that diff in a window of the GUI's size: the rows
// that come into view are built, the rest reused. At 60 frames a second
// a frame has 16.7 ms.
func BenchmarkDiffScroll(b *testing.B) {
	dir := bigDiffRepo(b, 200)
	d, err := loadGitDiff(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	if d.Truncated {
		b.Fatal("the diff was cut")
	}
	g := newDiffGrid(nil)
	g.Rows, _ = diffRender{lines: parseDiff(d.Text), mode: diffUnified}.rows()
	w := test.NewWindow(container.NewStack(g))
	defer w.Close()
	w.Resize(fyne.NewSize(1240, 760))
	scroll, ok := test.WidgetRenderer(g).Objects()[0].(*container.Scroll)
	if !ok {
		b.Fatal("the grid does not scroll")
	}
	step := &fyne.ScrollEvent{Scrolled: fyne.NewDelta(0, -120)}
	back := &fyne.ScrollEvent{Scrolled: fyne.NewDelta(0, 120)}
	start := time.Now()
	b.ResetTimer()
	for i := range b.N {
		// Down through the diff, then back to the top.
		if i%400 < 200 {
			scroll.Scrolled(step)
		} else {
			scroll.Scrolled(back)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N)/1000, "ms/step")
}

// childCPUTime is the CPU time of the child processes waited for (git).
func childCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
