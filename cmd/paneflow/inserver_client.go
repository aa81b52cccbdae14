//go:build client

package main

import (
	"fmt"
	"runtime"
)

// runInServer hands a verb this client build leaves out (cli.Verb.InServer:
// up, flow) over to the server binary next to it, or the desktop app's,
// which carry it out; on Unix it replaces this process, so signals
// (Ctrl-C) and the exit status are the server binary's.
func runInServer(inv *invocation, argv []string) error {
	verb := argv[0]
	for _, name := range []string{serverBinary, guiBinary} {
		path, ok := sibling(name, runtime.GOOS)
		if !ok {
			continue
		}
		code, err := handOff(path, argv, callEnv(inv))
		if err != nil {
			return fmt.Errorf("%s: starting %s: %w", verb, path, err)
		}
		if code != 0 {
			return &exitError{Code: code}
		}
		return nil
	}
	return fmt.Errorf("%s: this paneflow is the command-line client; the server (%s) that runs `%s` is not installed next to it", verb, serverBinary, verb)
}
