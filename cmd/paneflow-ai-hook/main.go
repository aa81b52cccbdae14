// Paneflow-ai-hook is the program coding agents run on their lifecycle hooks
// (`paneflow-ai-hook <Event>`, the payload on stdin): it tells the Paneflow
// pane it runs in what the agent is doing, with one ai.* notification on
// $PANEFLOW_SOCKET_PATH, and always exits 0, printing nothing.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Getenv))
}
