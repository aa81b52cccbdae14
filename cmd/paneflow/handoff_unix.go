//go:build (nogui || client) && !windows

package main

import "syscall"

// handOff replaces this process with path, given args and the
// environment env; it returns only when the exec fails.
func handOff(path string, args, env []string) (int, error) {
	err := syscall.Exec(path, append([]string{path}, args...), env)
	return 0, err
}
