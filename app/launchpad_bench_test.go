//go:build !windows

package app

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/paneflow-go/paneflow/internal/specfind"
	"github.com/paneflow-go/paneflow/workspace"
)

// BenchmarkLaunchPadOpen is the UI goroutine's cost of opening the launch
// pad (and closing it) with 200 specs in its folders: 100 in the spec
// library (half of them read to tell their kind) and 100 in the
// directories above the focused pane's. The budget is 100 ms.
// specs=0 is the same with empty folders: the view's own cost.
func BenchmarkLaunchPadOpen(b *testing.B) {
	for _, n := range []int{0, 200} {
		b.Run(fmt.Sprintf("specs=%d", n), func(b *testing.B) { benchLaunchPad(b, n) })
	}
}

func benchLaunchPad(b *testing.B, specs int) {
	root := b.TempDir()
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	lib := specfind.LibraryDir(os.Getenv, goos)
	cwd := filepath.Join(root, "proj", "a", "b", "c")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(lib, 0o755); err != nil {
		b.Fatal(err)
	}
	spec := []byte("name = \"x\"\n\n[[panes]]\ncommand = \"sh\"\n\n[[panes]]\nagent = \"codex\"\n")
	for i := range specs / 2 {
		name := fmt.Sprintf("spec-%03d.workspace.toml", i)
		if i%2 == 1 {
			name = fmt.Sprintf("spec-%03d.toml", i) // kind read from the text
		}
		if err := os.WriteFile(filepath.Join(lib, name), spec, 0o644); err != nil {
			b.Fatal(err)
		}
		dir := []string{cwd, filepath.Dir(cwd), filepath.Dir(filepath.Dir(cwd)), filepath.Join(root, "proj")}[i%4]
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d.workspace.toml", i)), spec, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	a := test.NewApp()
	defer a.Quit()
	s := &shell{a: a, w: a.NewWindow("bench"), life: newLifetime(), chrome: chrome{side: newSidebar(func(int) {}, func(uint64) {}, func() {}, func() {}, "")}}
	s.w.Resize(fyne.NewSize(1280, 800))
	s.pos.snap = &snapshot{Open: map[uint64]uint64{1: 1}, Workspaces: []workspace.WorkspaceInfo{{ID: 1, Title: "w"}},
		Surfaces: []workspace.SurfaceInfo{{ID: 1, WorkspaceID: 1, Cwd: &cwd}}}
	s.pos.focus = 1
	s.chrome.comp = &composer{}
	s.views.launch = &launcher{recentLoaded: true}
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		s.mu.Lock()
		s.toggleLaunchPadLocked()
		if n := len(shownPanelAs[*launchPad](s).entries); n != specs {
			b.Fatalf("%d specs listed, want %d", n, specs)
		}
		closeShownPanelLocked[*launchPad](s)
		s.mu.Unlock()
	}
	b.StopTimer()
	// The machine is shared: the process's CPU time per opening says more
	// than the wall time when others load it.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time the process used so far (user + system, every
// thread).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
