package main

// serveUsage is the help of the serve verb, in the full program and in the
// command-line client (which hands serve over to the full program).
const serveUsage = `usage: paneflow serve [--socket PATH] [--size COLSxROWS] [--session FILE|none] [--detach | --log FILE]
                      [--web HOST:PORT [--web-tls-cert FILE --web-tls-key FILE]]

Run Paneflow headless: the workspaces, panes and JSON-RPC socket of the
desktop app, without a window. Every CLI verb works against it. SIGINT,
SIGTERM or ` + "`paneflow kill-server`" + ` closes the panes, removes the socket and
exits.

The session (workspaces, layout, names, directories, each pane's command
and environment, managed worktrees, the agents' conversations) is saved
as it changes and restored when serve starts again, even after a crash
or SIGKILL; agents come back resumed in their own conversation where the
agent can be resumed, and the pane says so where it cannot.

  --socket PATH   socket to listen on (default: $PANEFLOW_SOCKET_PATH, else
                  $XDG_RUNTIME_DIR/paneflow/paneflow.sock and fallbacks)
  --size CxR      size of new panes (default 200x50)
  --session FILE  session file (default: $XDG_STATE_HOME/paneflow/session.json
                  for the default socket, session-<hash>.json beside it for
                  another socket); "none" keeps no session
  --detach        return once a server answers on the socket: the one already
                  running, else one started in the background (its own
                  session, its output appended to
                  $XDG_STATE_HOME/paneflow/server.log), as the desktop app
                  does before it attaches
  --log FILE      append the server's messages, and a crash's report, to
                  FILE (created 0600, its directory 0700; renamed to FILE.1
                  past 4 MiB) instead of standard error: the Windows logon
                  task's server has none
  --web HOST:PORT the browser client: serve a page that shows every agent and
                  pane live and types prompts and keys into them (writes need
                  PANEFLOW_IPC_SCRIPTING=1, as on the socket). Pair a browser
                  with ` + "`paneflow web pair`" + `. HOST must be a loopback address
                  (127.0.0.1, ::1, localhost) unless a certificate is given:
                  reach it from a phone through an SSH forward, Tailscale or a
                  VPN. Port 0 picks a free port (the log and ` + "`web list`" + ` say which)
  --web-tls-cert FILE, --web-tls-key FILE
                  serve HTTPS with this certificate and key (PEM); needed to
                  listen on any address other than loopback
`
