package hook

import (
	"errors"
	"runtime"
	"time"

	"github.com/paneflow-go/paneflow/internal/artifact"
)

// KeepAnswer writes the turn's final answer as the pane's artifact
// (internal/artifact), when the payload of a turn-end event carries one:
// event, argv and stdin as for [Map], params what Map returned for them,
// getenv the environment that locates the artifact root, now the write's
// time. The hook binary and the server's http-hook endpoint both call it
// before they hand the ai.stop to the state machine, so whoever waits for
// "finished" finds the answer on disk.
func KeepAnswer(event string, argv []string, stdin []byte, params map[string]any, getenv func(string) string, now time.Time) error {
	text, ok := Answer(event, argv, stdin)
	if !ok {
		return nil
	}
	ws, _ := params["workspace_id"].(uint64)
	sf, _ := params["surface_id"].(uint64)
	if ws == 0 || sf == 0 {
		return errors.New("no PANEFLOW_WORKSPACE_ID or PANEFLOW_SURFACE_ID")
	}
	root, err := artifact.Root(getenv, runtime.GOOS)
	if err != nil {
		return err
	}
	tool, _ := params["tool"].(string)
	return artifact.Write(root, artifact.Artifact{Output: text, Tool: tool, WorkspaceID: ws, SurfaceID: sf}, now)
}
