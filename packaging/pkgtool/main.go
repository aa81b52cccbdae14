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
//	pkgtool man -o DIR -bin DIR -cmd DIR -version V -date YYYY-MM-DD
//	                                      write a manual page (section 1)
//	                                      for every program in -bin, from
//	                                      its help output and its package's
//	                                      doc comment under -cmd (man.go)
//	pkgtool copyright -o OUT -header FILE -goroot DIR -modcache DIR BIN...
//	                                      write the DEP-5 copyright file:
//	                                      FILE, then the licence of every
//	                                      Go module the programs link
//	                                      (copyright.go)
//
// It uses the standard library only and reads back what it writes with
// debug/macho and image/png.
package main

import (
	"flag"
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
  pkgtool ico -o OUT PNG...
  pkgtool man -o DIR -bin DIR -cmd DIR -version V -date YYYY-MM-DD
  pkgtool copyright -o OUT -header FILE -goroot DIR -modcache DIR BIN...`

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
	case "man":
		fs := flag.NewFlagSet("man", flag.ContinueOnError)
		fs.SetOutput(stderr)
		out := fs.String("o", "", "directory to write the pages to")
		bin := fs.String("bin", "", "directory of the programs")
		cmd := fs.String("cmd", "cmd", "directory of the programs' Go packages")
		ver := fs.String("version", "", "version the pages name")
		date := fs.String("date", "", "date the pages carry (YYYY-MM-DD)")
		if fs.Parse(args[1:]) != nil || fs.NArg() != 0 || *out == "" || *bin == "" || *ver == "" ||
			!dateRE.MatchString(*date) {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		err = writeManPages(*out, *bin, *cmd, *ver, *date)
	case "copyright":
		fs := flag.NewFlagSet("copyright", flag.ContinueOnError)
		fs.SetOutput(stderr)
		out := fs.String("o", "", "file to write")
		header := fs.String("header", "", "Paneflow's own stanzas")
		goroot := fs.String("goroot", "", "GOROOT of the Go that built the programs")
		modcache := fs.String("modcache", "", "the module cache (go env GOMODCACHE)")
		if fs.Parse(args[1:]) != nil || fs.NArg() == 0 || *out == "" || *header == "" || *goroot == "" || *modcache == "" {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		err = writeCopyright(*out, *header, *goroot, *modcache, fs.Args())
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
