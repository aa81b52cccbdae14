//go:build !windows

package terminal

import (
	"bytes"
	"sync"
	"testing"
)

func TestTap(t *testing.T) {
	term, err := Start(Options{Argv: []string{"/bin/sh", "-c", "read x; echo got-$x; read y"}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	var mu sync.Mutex
	var seen bytes.Buffer
	found := make(chan struct{})
	remove := term.Tap(func(p []byte) {
		mu.Lock()
		defer mu.Unlock()
		had := bytes.Contains(seen.Bytes(), []byte("got-a"))
		seen.Write(p)
		if !had && bytes.Contains(seen.Bytes(), []byte("got-a")) {
			close(found)
		}
	})
	if err := term.SendInput([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	<-found
	remove()
	remove() // twice is harmless
	mu.Lock()
	n := seen.Len()
	mu.Unlock()
	term.SendInput([]byte("b\n"))
	<-term.Done()
	mu.Lock()
	defer mu.Unlock()
	if seen.Len() != n {
		t.Errorf("the tap saw %q after it was removed", seen.Bytes()[n:])
	}
}
