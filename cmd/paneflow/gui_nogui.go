//go:build nogui

package main

import (
	"context"
	"fmt"
)

// runGUI explains that this binary has no window: it was built with the
// nogui tag (no cgo), for servers.
func runGUI(_ context.Context, inv *invocation, args []string) error {
	if _, err := parseGUIArgs(args); err != nil {
		return err
	}
	fmt.Fprintln(inv.stderr, noGUIMessage)
	return &exitError{Code: exitUsage}
}
