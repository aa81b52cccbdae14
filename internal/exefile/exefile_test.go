package exefile

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// TestWriteThenRun writes and at once runs programs in some goroutines
// while others start processes: every run must start (with os.WriteFile
// in Write's place, some fail with "text file busy").
func TestWriteThenRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no sh; Windows has no ETXTBSY")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	data, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stop := make(chan struct{})
	var forks sync.WaitGroup
	for range 4 { // other goroutines starting processes all along
		forks.Add(1)
		go func() {
			defer forks.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				exec.Command(sh, "-c", ":").Run()
			}
		}()
	}
	defer func() { close(stop); forks.Wait() }()
	for i := range 200 {
		p := filepath.Join(dir, "prog"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		if err := Write(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(p, "-c", "echo ok").CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v %s", i, err, out)
		}
	}
}
