// Package api serves Paneflow's JSON-RPC methods: it registers the
// system.*, workspace.*, surface.*, fleet.list and events.subscribe
// methods of spec/ipc.md (plus surface.resize, surface.close and the
// push-driven surface.wait) on an [ipc.Registry], backed by a
// [workspace.Manager] and a [bus.Bus].
//
// It owns the wire shapes: parameter decoding and validation, the
// spec's error messages (always structured JSON-RPC errors: -32602 for
// bad params, -32601 for a closed scripting gate, -32002 for a timed-out
// wait, -32603 for internal failures), the scripting gate, the
// surface.read source caps and untrusted-output fence, send_text's paste
// and submit rules and send_keystroke's key grammar. It does not own
// the transport (package ipc), the model (package workspace) or the agent
// states: surface.status and fleet.list ask an [AgentReporter] (the
// conductor, given in [Options]), which also registers the ai.* methods
// itself.
//
// # Concurrency
//
// [Register] may be called once per registry; the handlers it adds are
// safe for concurrent use. Work that outlives a request (a deferred
// Enter after a paste) runs on goroutines owned by the workspace manager
// ([workspace.Manager.Go]), so closing the manager stops it.
package api
