//go:build !client

package cli

import "regexp/syntax"

// checkPattern returns the error regexp.Compile would return for pattern.
// Parsing is the only step of regexp.Compile that can fail, with these
// very errors, so this build need not link the matcher (package regexp)
// to check a pattern the server compiles.
func checkPattern(pattern string) error {
	_, err := syntax.Parse(pattern, syntax.Perl)
	return err
}

// waitInServer is nil in this build: it checks wait's patterns itself.
var waitInServer func(args []string, getenv func(string) string) bool
