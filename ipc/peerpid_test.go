package ipc_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
)

// TestPeerPID checks that a handler learns the pid of the process that
// connected (this one), and that a context not from a served request has
// none.
func TestPeerPID(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Skip("the peer's pid is not known on " + runtime.GOOS)
	}
	s, _ := startTest(t, func(s *ipc.Server) {
		s.Registry.Register("test.peer", func(ctx context.Context, _ json.RawMessage) (any, error) {
			pid, ok := ipc.PeerPID(ctx)
			if !ok {
				return "none", nil
			}
			return strconv.Itoa(pid), nil
		})
	})
	c := dialRaw(t, s.Path)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"test.peer"}`)
	want := `{"jsonrpc":"2.0","result":"` + strconv.Itoa(os.Getpid()) + `","id":1}`
	if got := c.recv(); got != want {
		t.Errorf("reply = %s, want %s", got, want)
	}
	if pid, ok := ipc.PeerPID(context.Background()); ok {
		t.Errorf("PeerPID(Background) = %d, true; want false", pid)
	}
}
