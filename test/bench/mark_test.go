//go:build linux

package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"time"
)

// The benchmark binary doubles as the program the wait-delay benchmarks run
// in a pane: started with helperEnv=markHelper, it prints a timestamped line
// whenever a tag arrives on the FIFO named by fifoEnv, and never runs the
// benchmarks.
const (
	helperEnv  = "PANEFLOW_BENCH_HELPER"
	fifoEnv    = "PANEFLOW_BENCH_FIFO"
	markHelper = "mark"

	// markReady is the line the helper prints once it reads the FIFO.
	markReady = "MARK-HELPER-READY"
)

// init turns the process into the mark helper before the testing package
// starts (data_test.go owns TestMain).
func init() {
	if os.Getenv(helperEnv) == markHelper {
		os.Exit(runMarkHelper(os.Getenv(fifoEnv)))
	}
}

// runMarkHelper reads tags, one a line, from the FIFO at path and for each
// prints "MARK <tag> <unix nanoseconds>" in a single write, the time taken
// just before the write: the moment the line is printed, as a program in a
// pane would print a line somebody waits for.
func runMarkHelper(path string) int {
	// O_RDWR keeps the FIFO open for writing too, so the helper never sees
	// end-of-file between two writers and opening it never blocks.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mark helper:", err)
		return 1
	}
	defer f.Close()
	fmt.Println(markReady)
	sc := bufio.NewScanner(f)
	buf := make([]byte, 0, 128)
	for sc.Scan() {
		buf = append(buf[:0], "MARK "...)
		buf = append(buf, sc.Bytes()...)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, time.Now().UnixNano(), 10)
		buf = append(buf, '\n')
		if _, err := os.Stdout.Write(buf); err != nil {
			return 1
		}
	}
	return 0
}
