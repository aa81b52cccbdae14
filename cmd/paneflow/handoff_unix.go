//go:build (nogui || client) && !windows

package main

import (
	"os"
	"syscall"
)

// handOff replaces this process with path, given args; it returns only
// when the exec fails.
func handOff(path string, args []string) (int, error) {
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return 0, err
}
