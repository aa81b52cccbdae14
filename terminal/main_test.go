package terminal

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// helperEnv turns the test binary into a small helper program, the way
// os/exec's tests do: when it is set, TestMain runs the helper it names
// with os.Args[1:] as arguments and exits instead of running tests. Tests
// get such a program with [helperCmd], so they need no external tools.
const helperEnv = "PANEFLOW_TEST_HELPER"

// helpers are the programs the test binary can act as, by name. Each
// returns the exit code. Platform test files add their own in init.
var helpers = map[string]func(args []string) int{
	// echo ARGS...: print the arguments separated by spaces, then exit 0.
	"echo": func(args []string) int {
		fmt.Println(strings.Join(args, " "))
		return 0
	},
	// cat: copy stdin to stdout until end of input.
	"cat": func([]string) int {
		if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
			fmt.Fprintln(os.Stderr, "cat:", err)
			return 1
		}
		return 0
	},
	// exit CODE [TEXT...]: print TEXT (if any), then exit with CODE.
	"exit": func(args []string) int {
		if len(args) == 0 {
			fmt.Fprintln(os.Stderr, "usage: exit CODE [TEXT...]")
			return 2
		}
		code, err := strconv.Atoi(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, "exit:", err)
			return 2
		}
		if len(args) > 1 {
			fmt.Println(strings.Join(args[1:], " "))
		}
		return code
	},
	// pwd: print the working directory.
	"pwd": func([]string) int {
		dir, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(os.Stderr, "pwd:", err)
			return 1
		}
		fmt.Println(dir)
		return 0
	},
	// getenv NAME: print NAME=value, or NAME unset.
	"getenv": func(args []string) int {
		if len(args) != 1 {
			fmt.Fprintln(os.Stderr, "usage: getenv NAME")
			return 2
		}
		if v, ok := os.LookupEnv(args[0]); ok {
			fmt.Printf("%s=%s\n", args[0], v)
		} else {
			fmt.Printf("%s unset\n", args[0])
		}
		return 0
	},
	// hang [-ignore-term] [ARGS...]: print "ready" and sleep forever.
	// With -ignore-term, SIGHUP and SIGTERM are ignored first (Unix).
	"hang": func(args []string) int {
		if len(args) > 0 && args[0] == "-ignore-term" {
			ignoreTermSignals()
		}
		fmt.Println("ready")
		return sleepForever()
	},
	// spawn-child-and-hang [-ignore-term]: start a "hang" helper (passing
	// the flag on) on the same terminal, print "child PID", sleep forever.
	"spawn-child-and-hang": func(args []string) int {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, "spawn-child-and-hang:", err)
			return 1
		}
		c := exec.Command(exe, args...)
		c.Env = append(os.Environ(), helperEnv+"=hang")
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "spawn-child-and-hang:", err)
			return 1
		}
		fmt.Printf("child %d\n", c.Process.Pid)
		return sleepForever()
	},
}

// helperUsed records the helpers a test asked for (by name).
var helperUsed sync.Map

func TestMain(m *testing.M) {
	if name, ok := os.LookupEnv(helperEnv); ok {
		run, ok := helpers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown test helper %q\n", name)
			os.Exit(2)
		}
		code := run(os.Args[1:])
		// Stdout may be a terminal; make sure everything left it.
		_ = os.Stdout.Sync()
		os.Exit(code)
	}

	code := m.Run()

	// Like os/exec's tests: a helper no test uses is dead code. Only
	// checked when every test ran.
	if code == 0 && flag.Lookup("test.run").Value.String() == "" &&
		flag.Lookup("test.skip").Value.String() == "" && !testing.Short() {
		var unused []string
		for name := range helpers {
			if _, ok := helperUsed.Load(name); !ok {
				unused = append(unused, name)
			}
		}
		if len(unused) > 0 {
			sort.Strings(unused)
			fmt.Fprintf(os.Stderr, "test helpers not used by any test: %s\n", strings.Join(unused, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

// helperCmd returns a Cmd that starts the test binary as helper name with
// args (see helpers). Its environment is this process's plus the helper
// selector; tests may append to Env and set Dir and the size.
func helperCmd(t testing.TB, name string, args ...string) Cmd {
	t.Helper()
	if _, ok := helpers[name]; !ok {
		t.Fatalf("helperCmd: unknown helper %q", name)
	}
	helperUsed.Store(name, true)
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("helperCmd: %v", err)
	}
	// Race-enabled binaries sleep a second before a zero exit (to catch
	// leaked goroutines); helpers exit often, so turn that off.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return Cmd{
		Argv: append([]string{exe}, args...),
		Env:  append(os.Environ(), helperEnv+"="+name, "GORACE="+gorace),
	}
}

// sleepForever blocks the helper until it is killed. (A bare select{}
// would trip the runtime's deadlock detector.)
func sleepForever() int {
	for {
		time.Sleep(time.Hour)
	}
}
