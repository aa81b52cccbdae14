//go:build (nogui || client) && windows

package main

import (
	"errors"
	"os"
	"os/exec"
)

// handOff runs path with args and the environment env, sharing this
// console, and returns its exit code (Windows cannot replace a process
// image).
func handOff(path string, args, env []string) (int, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, err
	}
	return 0, nil
}
