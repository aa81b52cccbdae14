// Package ipctest starts [ipc.Server]s for tests: on a fresh, short socket
// path, serving in the background, shut down when the test ends.
package ipctest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// ShutdownTimeout bounds the shutdown that Start registers with t.Cleanup.
const ShutdownTimeout = 10 * time.Second

// Start starts a server for reg on a fresh endpoint and returns it; see
// [StartServer].
func Start(t testing.TB, reg *ipc.Registry) *ipc.Server {
	t.Helper()
	return StartServer(t, &ipc.Server{Registry: reg})
}

// StartServer listens and serves s in the background. An empty s.Path gets
// a fresh endpoint: a socket in a new short temporary directory (removed at
// cleanup; t.TempDir's paths can exceed the 104-byte socket limit) or, on
// Windows, a uniquely named pipe. A nil s.Logf logs through t.Logf while
// the test runs. At cleanup the server is shut down, and the test fails if
// Shutdown times out or Serve returned anything but [ipc.ErrServerClosed].
func StartServer(t testing.TB, s *ipc.Server) *ipc.Server {
	t.Helper()
	return Listen(t, s)()
}

// Listen is [StartServer] in two steps: it listens on s now and returns
// serve, which starts serving in the background (with StartServer's
// cleanup) and returns s. A client can connect and write in between: its
// connection waits in the listen queue, so its request is already there
// when the server first reads it, and no idle timeout can expire before
// the test's write. serve must be called once.
func Listen(t testing.TB, s *ipc.Server) (serve func() *ipc.Server) {
	t.Helper()
	if s.Path == "" {
		s.Path = NewPath(t)
	}
	var logMu sync.Mutex
	logging := true
	if s.Logf == nil {
		s.Logf = func(format string, args ...any) {
			logMu.Lock()
			defer logMu.Unlock()
			if logging {
				t.Logf(format, args...)
			}
		}
	}
	if err := s.Listen(); err != nil {
		t.Fatalf("ipctest: listening on %s: %v", s.Path, err)
	}
	return func() *ipc.Server {
		served := make(chan error, 1)
		go func() { served <- s.Serve(context.Background()) }()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
			defer cancel()
			if err := s.Shutdown(ctx); err != nil {
				t.Errorf("ipctest: Shutdown: %v", err)
			}
			if err := <-served; !errors.Is(err, ipc.ErrServerClosed) {
				t.Errorf("ipctest: Serve returned %v, want %v", err, ipc.ErrServerClosed)
			}
			logMu.Lock()
			logging = false
			logMu.Unlock()
		})
		return s
	}
}

// NewPath returns an unused endpoint: on Unix "<short temp dir>/paneflow.sock"
// (the directory is removed at cleanup), on Windows a random pipe name.
func NewPath(t testing.TB) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		var b [8]byte
		rand.Read(b[:])
		return `\\.\pipe\paneflow-test-` + hex.EncodeToString(b[:])
	}
	dir, err := os.MkdirTemp("", "pf")
	if err != nil {
		t.Fatalf("ipctest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := filepath.Join(dir, "paneflow.sock")
	if len(p) >= ipc.MaxSocketPath {
		t.Fatalf("ipctest: socket path %s is too long (%d bytes); set TMPDIR to a shorter directory", p, len(p))
	}
	return p
}

// Client returns a client for s with the default timeout.
func Client(s *ipc.Server) *ipc.Client {
	return &ipc.Client{Path: s.Path}
}

// Call calls method on s and returns the raw result, failing the test on
// any error.
func Call(t testing.TB, s *ipc.Server, method string, params any) json.RawMessage {
	t.Helper()
	var raw json.RawMessage
	if err := Client(s).Call(context.Background(), method, params, &raw); err != nil {
		t.Fatalf("ipctest: %s: %v", method, err)
	}
	return raw
}

// FrameCounts counts what [NotifyUntilState] had to work around.
type FrameCounts struct {
	// Lost is how many times the notification was sent again because the
	// state had not changed within a second: a notification reads no
	// reply, so a frame the server never ran shows only here. Hook frames
	// are never refused for admission, so it stays 0 unless the server
	// fails to run one.
	Lost int
	// Busy is how many surface.status calls were refused with -32000
	// (more calls in progress than [ipc.Server.MaxCalls]).
	Busy int
}

// NotifyUntilState sends the notification method(params) and then calls
// surface.status for surfaceID, one connection per call as the CLI makes
// them, until its "state" is want; it fails tb after timeout. Benchmarks
// of "a hook frame until its state is visible" share it.
func NotifyUntilState(tb testing.TB, cl *ipc.Client, method string, params any, surfaceID uint64, want string, timeout time.Duration) FrameCounts {
	tb.Helper()
	ctx := context.Background()
	var n FrameCounts
	if err := cl.Notify(ctx, method, params); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	deadline, resend := start.Add(timeout), start.Add(time.Second)
	for {
		var st struct {
			State string `json:"state"`
		}
		err := cl.Call(ctx, "surface.status", map[string]any{"surface_id": surfaceID}, &st)
		var ie *ipc.Error
		if errors.As(err, &ie) && ie.Code == ipc.CodeBusy {
			n.Busy++
			continue
		} else if err != nil {
			tb.Fatal(err)
		}
		if st.State == want {
			return n
		}
		if now := time.Now(); now.After(deadline) {
			tb.Fatalf("after %s, surface.status state = %q, want %q", method, st.State, want)
		} else if now.After(resend) {
			n.Lost++
			resend = now.Add(time.Second)
			if err := cl.Notify(ctx, method, params); err != nil {
				tb.Fatal(err)
			}
		}
	}
}
