package terminal

import (
	"runtime/debug"
	"sync/atomic"
	"time"
)

// After a burst of output the Go runtime keeps the memory the burst freed
// (read buffers, rows, scrollback lines that were replaced) and returns it
// to the operating system only slowly, and only down to about twice the
// live heap: a server that held ten full scrollbacks showed ~1.5× its live
// heap as resident memory long after the output stopped. So once at least
// reclaimAfter bytes were parsed and then no terminal parsed anything for
// reclaimQuiet, the process returns its free memory at once
// (debug.FreeOSMemory: one forced collection, a few milliseconds for a
// heap of tens of megabytes). During output nothing changes, so
// throughput is not affected.
const (
	reclaimAfter = 8 << 20
	reclaimQuiet = 2 * time.Second
)

// reclaim is the process-wide state of the memory return: bytes parsed
// since the last return, and whether a goroutine is waiting for quiet.
var reclaim struct {
	parsed  atomic.Int64
	waiting atomic.Bool
}

// noteParsed counts n bytes of parsed output and, past reclaimAfter,
// starts the goroutine that returns memory once output has gone quiet.
func noteParsed(n int) {
	if reclaim.parsed.Add(int64(n)) < reclaimAfter || !reclaim.waiting.CompareAndSwap(false, true) {
		return
	}
	go reclaimWhenQuiet()
}

// reclaimWhenQuiet waits until no output was parsed for reclaimQuiet,
// then returns free memory to the operating system.
func reclaimWhenQuiet() {
	for {
		before := reclaim.parsed.Load()
		time.Sleep(reclaimQuiet)
		if reclaim.parsed.Load() == before {
			break
		}
	}
	reclaim.parsed.Store(0)
	debug.FreeOSMemory()
	reclaim.waiting.Store(false)
}
