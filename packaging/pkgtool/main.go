// Command pkgtool does the binary-format chores of packaging/package.sh that
// Debian has no tool for here:
//
//	pkgtool universal -o OUT THIN...      join thin Mach-O executables into
//	                                      one universal (fat) file, as lipo
//	                                      -create does
//	pkgtool check-universal FILE ARCH...  fail unless FILE is a universal
//	                                      Mach-O holding exactly the given
//	                                      architectures (arm64, x86_64), each
//	                                      slice an executable
//	pkgtool ico -o OUT PNG...             write a Windows .ico holding the
//	                                      PNG images (each at most 256 px)
//
// It uses the standard library only and reads back what it writes with
// debug/macho and image/png.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  pkgtool universal -o OUT THIN...
  pkgtool check-universal FILE ARCH...
  pkgtool ico -o OUT PNG...`

// run is the program: it returns the exit code (0, 1 on failure, 2 on
// bad usage) and writes messages to stdout and stderr.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "universal", "ico":
		rest := args[1:]
		if len(rest) < 3 || rest[0] != "-o" {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		if args[0] == "universal" {
			err = writeUniversal(rest[1], rest[2:])
		} else {
			err = writeICO(rest[1], rest[2:])
		}
	case "check-universal":
		if len(args) < 3 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		var got []string
		got, err = checkUniversal(args[1], args[2:])
		if err == nil {
			fmt.Fprintf(stdout, "%s: universal Mach-O, %v\n", args[1], got)
		}
	default:
		fmt.Fprintf(stderr, "pkgtool: unknown command %q\n%s\n", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "pkgtool %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
