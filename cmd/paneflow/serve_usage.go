package main

// serveUsage is the help of the serve verb, in the full program and in the
// command-line client (which hands serve over to the full program).
const serveUsage = `usage: paneflow serve [--socket PATH] [--size COLSxROWS]

Run Paneflow headless: the workspaces, panes and JSON-RPC socket of the
desktop app, without a window. Every CLI verb works against it. SIGINT or
SIGTERM closes the panes, removes the socket and exits.

  --socket PATH   socket to listen on (default: $PANEFLOW_SOCKET_PATH, else
                  $XDG_RUNTIME_DIR/paneflow/paneflow.sock and fallbacks)
  --size CxR      size of new panes (default 200x50)
`
