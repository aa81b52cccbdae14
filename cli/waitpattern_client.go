//go:build client

package cli

import "strings"

// checkPattern does not check in the command-line client: every `wait
// --pattern` goes to the server binary ([waitInServer]), which checks the
// pattern before it sends anything. Linking regexp/syntax here (and the
// unicode tables it initialises) cost every CLI call about 11 page faults
// and 0.7 ms of CPU at start-up. A pattern that reached this point anyway
// is checked by the server, which compiles it.
func checkPattern(string) error { return nil }

// waitInServer is wait's [Verb.InServerFor] in this build.
var waitInServer = waitNeedsServer

// waitNeedsServer reports whether this client must hand a `wait` call
// with args to the server binary: when --pattern may be among its flags.
// An argument that only looks like the flag (another flag's value) sends
// a wait without a pattern there too, which does the same there.
func waitNeedsServer(args []string, _ func(string) string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--pattern" || strings.HasPrefix(a, "--pattern=") {
			return true
		}
	}
	return false
}
