//go:build unix

package ipc_test

import (
	"bytes"
	"flag"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the expected replies of testdata/golden/*.rpctest")

// goldenSeparator separates the requests of an .rpctest file from the
// replies expected for them.
const goldenSeparator = "----------"

// TestGolden runs each testdata/golden/*.rpctest file: the lines above the
// separator are sent verbatim on one connection (whose write side is then
// closed), and every line the server sends back must equal the lines below
// it. Lines starting with "#" above the separator are comments. Run with
// -update to rewrite the expected part.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.rpctest"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/golden/*.rpctest files")
	}
	s, _ := startTest(t, nil)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".rpctest"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			requests, expected, ok := strings.Cut(string(data), "\n"+goldenSeparator+"\n")
			if !ok {
				t.Fatalf("%s has no %q separator line", file, goldenSeparator)
			}
			var send bytes.Buffer
			for line := range strings.Lines(requests) { // the last line has no newline: EOF ends it
				if !strings.HasPrefix(line, "#") {
					send.WriteString(line)
				}
			}

			nc, err := net.DialTimeout("unix", s.Path, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(30 * time.Second))
			if _, err := nc.Write(send.Bytes()); err != nil {
				t.Fatal(err)
			}
			nc.(*net.UnixConn).CloseWrite()
			got, err := io.ReadAll(nc)
			if err != nil {
				t.Fatalf("reading replies: %v (got %q)", err, got)
			}

			if *update {
				out := requests + "\n" + goldenSeparator + "\n" + string(got)
				if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(strings.Split(expected, "\n"), strings.Split(string(got), "\n")); diff != "" {
				t.Errorf("replies mismatch (-want +got), rerun with -update if intended:\n%s", diff)
			}
		})
	}
}
