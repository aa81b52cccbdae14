//go:build linux

package api

import (
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/attach"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

// BenchmarkAttachedKeyEcho types keys one at a time with an attached
// client's SendInput into a pane running cat on a cooked terminal, each
// until its echo reached the client's mirror: the attached window's key
// echo less the window (the socket both ways, the server's screen.input,
// the kernel's echo, the server's read, parse and frame, the client's
// decode). cpu-µs/key is this process's CPU per key (the server and the
// client both run in it): on a loaded machine a steadier figure than the
// time.
func BenchmarkAttachedKeyEcho(b *testing.B) {
	e := newEnv(b, workspace.Options{}, Options{}).withWorkspace(b.TempDir())
	srv := ipctest.Start(b, e.reg)
	sf := e.split("echo READY; exec cat")
	waitText(b, sf, "READY")
	c := dialAttach(b, srv, attach.Options{Surfaces: []uint64{sf.ID()}})
	p := c.Pane(sf.ID())
	send := func(key string) {
		_, ch := p.Watch()
		if err := p.SendInput([]byte(key)); err != nil {
			b.Fatal(err)
		}
		select {
		case <-ch:
		case <-time.After(testDeadline):
			b.Fatalf("no echo of %q", key)
		}
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var used time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%50 == 49 {
			b.StopTimer()
			send("\x15") // ^U: the line is erased, kept short
			time.Sleep(time.Millisecond)
			b.StartTimer()
		}
		c0 := cpu()
		send("x")
		used += cpu() - c0
	}
	b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/key")
}
