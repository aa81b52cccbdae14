//go:build !windows

package api

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// TestWaitSend: surface.wait with "send" types the text once its baseline
// is taken, so the answer counts however fast it comes, and the same line
// printed before the call does not.
func TestWaitSend(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{})
	e.withWorkspace(t.TempDir())
	sf := e.split(`echo "echo: hi"; while read -r l; do echo "echo: $l"; done`)
	waitText(t, sf, "echo: hi")
	params := fmt.Sprintf(`{"surface_ids":[%d],"pattern":"^echo: hi$","timeout_ms":15000,"send":{"text":"hi","submit":true}}`, sf.ID())
	if _, err := e.call("surface.wait", params); rpcErr(t, err).Code != -32601 {
		t.Fatalf("gate closed: got %v", err)
	}
	e.scripting.Store(true)
	var res proto.SurfaceWaitResult
	e.ok("surface.wait", params, &res)
	if !res.Matched || res.Sent == nil {
		t.Fatalf("got %+v, want a match and the send's result", res)
	}
	if text := waitText(t, sf, "echo: hi\n"); strings.Count(text, "echo: hi") < 2 {
		t.Fatalf("the answer is not on screen:\n%s", text)
	}
	other := e.split("cat")
	_, err := e.call("surface.wait", fmt.Sprintf(`{"surface_ids":[%d,%d],"pattern":"x","send":{"text":"y"}}`, sf.ID(), other.ID()))
	if re := rpcErr(t, err); re.Message != "'send' needs exactly one pane in 'surface_ids'" {
		t.Fatalf("two panes: %v", re)
	}
}
