// Package ipc is Paneflow's local control plane: newline-delimited JSON-RPC
// 2.0 over a Unix socket (a named pipe on Windows), a method [Registry], an
// [Executor] that serializes mutations, the [Client] that the CLI, the MCP
// bridge and the agent hook use, and endpoint resolution
// ([ServerSocketPath], [ClientSocketPath]).
//
// The package knows nothing about workspaces, panes or events: other
// packages register methods on a Registry, and a [Server] dispatches to
// them. It does not retry, queue across connections, or speak any network
// protocol; remote use goes through the user's own tools (an SSH-forwarded
// socket).
//
// # Usage
//
//	reg := ipc.NewRegistry()
//	reg.Register("system.ping", func(ctx context.Context, _ json.RawMessage) (any, error) {
//		return map[string]bool{"pong": true}, nil
//	})
//	exec := ipc.NewQueueExecutor(0)
//	exec.Start()
//	defer exec.Close()
//	srv := &ipc.Server{Registry: reg, Executor: exec}
//	if err := srv.Listen(); err != nil { ... }
//	go srv.Serve(ctx)
//	...
//	srv.Shutdown(ctx)
//
// and on the other side:
//
//	c := &ipc.Client{Path: path}
//	var res struct{ Pong bool }
//	err := c.Call(ctx, "system.ping", nil, &res)
//
// # Wire protocol
//
// One JSON-RPC 2.0 request per line, at most [MaxFrame] bytes with the
// newline (exactly MaxFrame is accepted), any number of sequential requests
// per connection, whitespace-only lines skipped. A request without "id" is a
// notification: it runs, and nothing is sent back, not even an error. Malformed
// JSON gets [CodeParse] and the connection stays open; an oversized frame
// gets [CodeInvalidRequest] and the connection is closed; a batch (a JSON
// array) gets CodeInvalidRequest "batch requests are not supported". Unknown
// methods get [CodeMethodNotFound]. A request not answered within
// [Server.DispatchTimeout] gets [CodeTimeout] "request timeout". Refusals
// sent before any request is read (too many connections, peer UID mismatch)
// carry "id":null. A client that sends [MethodConcurrent] first makes its
// connection concurrent: [Long] requests on it then run side by side and
// are answered when done, matched by id ([Mux] is that client). The
// server never answers with a legacy {"error": ...} result; the client
// still treats one as a failure.
//
// # Security
//
// The socket is the trust boundary: anyone who can connect can drive every
// pane. On Unix the parent directory is created 0700 (an existing
// "paneflow" directory of ours is tightened to 0700), the socket is made
// 0600 right after bind, and Listen refuses to serve if that chmod fails.
// Every connection's peer is checked with SO_PEERCRED (Linux) or
// LOCAL_PEERCRED (macOS, FreeBSD): a peer whose effective UID differs from
// the server's gets [CodePermission] and is closed before anything is read;
// a root server therefore rejects non-root peers. If the credential query
// fails the server logs it and relies on the file mode. On Windows the pipe's
// DACL admits only the current user and SYSTEM.
//
// Listen never deletes what it does not understand: a path that exists and
// is not a socket is an error; a socket where a live Paneflow answers
// system.identify is an *[InstanceRunningError]; only a stale socket
// (nothing listening, or a non-Paneflow squatter) is replaced. On Unix
// that decision is taken under an exclusive flock on Path+".lock", held
// for the server's lifetime (and released by its death), so two servers
// started at once on one path cannot both remove a stale socket and bind:
// the second gets an *[InstanceRunningError]. Shutdown removes the socket
// file only if it is still the one this server bound.
//
// Frames are capped at MaxFrame on both sides, a connection's first
// request must arrive within [Server.FirstFrameTimeout] and later ones
// within [Server.IdleTimeout] (a request trickled in slowly counts as
// idle), and every write has a deadline, so a slow or hostile client costs
// one goroutine for a bounded time.
//
// # Admission
//
// Requests, not connections, are admitted, each by its [Kind]: short
// calls up to [Server.MaxCalls] at once, long-lived streams and waits up
// to [Server.MaxStreams], and agent hook frames (ai.*) always. A request
// past its kind's limit is answered [CodeBusy] with a message naming the
// count and the limit ("server busy: 1024 streams and waits open, limit
// 1024; …"), and its connection stays open. A connection waiting for a
// request holds no slot; at most [Server.MaxIdle] of them wait at once,
// and past that the one waiting longest is closed with a busy frame, so
// a flood of silent or trickling connections (a slowloris) delays no one.
// A connection's memory is bounded: a 4 KiB read buffer, the frame in hand
// (at most MaxFrame) and the reply being written; buffers grown past
// 64 KiB are dropped once used. [Server.Admission] reports the counters.
//
// # Concurrency
//
// Each connection is served by its own goroutine, which reads a request,
// waits for its reply, then reads the next; replies on a connection are in
// request order. Each request's handler runs on a goroutine of its own so
// the dispatch timeout is enforced even against a handler that ignores its
// context (except an [Inline] handler, which never waits and runs on the
// connection's goroutine); handlers of different connections run
// concurrently. [Mutating]
// handlers run through [Server.Executor], which runs them one at a time
// and never starts one whose request has already timed out; a method's
// [Before] hook runs ahead of it, outside the executor and before the
// dispatch timeout starts, so its waiting holds up no other mutation. [Long]
// handlers have no dispatch timeout; their context ends when the client
// disconnects (seen by a background read returning EOF; a client that
// half-closes its side counts as gone) or the server shuts down. Stream
// handlers own their connection until they return.
//
// Registry, Server, Client, QueueExecutor and Stream.Close are safe for
// concurrent use. [Server.Shutdown] stops accepting, cancels every handler
// context, closes connections, waits for the server's goroutines (bounded by
// its ctx) and removes the socket; [Server.Serve] then returns
// [ErrServerClosed].
package ipc
