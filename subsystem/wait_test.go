package subsystem_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/subsystem"
)

func TestWait(t *testing.T) {
	var wg sync.WaitGroup
	if err := subsystem.Wait(context.Background(), &wg); err != nil {
		t.Errorf("no goroutines: %v", err)
	}
	wg.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := subsystem.Wait(ctx, &wg); !errors.Is(err, context.Canceled) {
		t.Errorf("a goroutine still running, ctx ended: %v, want context.Canceled", err)
	}
	release := make(chan struct{})
	go func() { <-release; wg.Done() }()
	close(release)
	if err := subsystem.Wait(context.Background(), &wg); err != nil {
		t.Errorf("after the goroutine ended: %v", err)
	}
}
