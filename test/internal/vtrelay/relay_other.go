//go:build !linux

package vtrelay

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Options configures [Run]; see the Linux version.
type Options struct {
	Argv       []string
	Env        []string
	Control    string
	In, Out    *os.File
	Cols, Rows int
	Log        io.Writer
}

// Run fails: the relay reads vttest's state from /proc.
func Run(Options) error { return errors.New("vtrelay: Linux only") }

// Main fails: the relay reads vttest's state from /proc.
func Main([]string) int {
	fmt.Fprintln(os.Stderr, "vtrelay: Linux only")
	return 1
}
