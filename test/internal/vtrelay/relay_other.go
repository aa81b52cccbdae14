//go:build !linux

package vtrelay

import (
	"errors"
	"fmt"
	"os"
)

// Run fails: the relay reads vttest's state from /proc.
func Run(Options) error { return errors.New("vtrelay: Linux only") }

// Main fails: the relay reads vttest's state from /proc.
func Main([]string) int {
	fmt.Fprintln(os.Stderr, "vtrelay: Linux only")
	return 1
}
