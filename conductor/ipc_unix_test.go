//go:build !windows

package conductor

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// TestNotificationsGetNoReply writes ai.* notifications, valid and not,
// and a request on one raw connection: the only line back is the
// request's reply.
func TestNotificationsGetNoReply(t *testing.T) {
	e := newSocketEnv(t, []Pane{{SurfaceID: 1, WorkspaceID: 1, Name: "p", PID: 0}})
	conn, err := net.Dial("unix", e.srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(testDeadline))
	lines := []string{
		`{"jsonrpc":"2.0","method":"ai.prompt_submit","params":{"surface_id":1,"tool":"claude"}}`,
		`{"jsonrpc":"2.0","method":"ai.tool_use","params":{"surface_id":1,"tool_name":"Bash"}}`,
		`{"jsonrpc":"2.0","method":"ai.exit","params":{"surface_id":1}}`,
		`{"jsonrpc":"2.0","method":"ai.notification","params":{"pid":"x"}}`,
		`{"jsonrpc":"2.0","method":"ai.tool_use","params":{"surface_id":1,"tool_name":"Edit"},"id":42}`,
	}
	if _, err := conn.Write([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","result":{"ok":true,"state":"thinking","surface_id":1},"id":42}` + "\n"
	if line != want {
		t.Errorf("first reply = %s, want %s", line, want)
	}
	if st := statusOf(e.c, 1); deref(st.ActiveToolName) != "Edit" {
		t.Errorf("active tool = %q, want Edit", deref(st.ActiveToolName))
	}
}

func statusOf(c *Conductor, id uint64) Status {
	st, _ := c.Status(id)
	return st
}
