package subsystem

import (
	"context"
	"sync"
)

// Wait waits for wg (a subsystem's own goroutines, in its Shutdown) or
// ctx, whichever comes first, and returns ctx's error in the second case.
// The goroutine it starts ends with wg even when ctx ended first.
func Wait(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
