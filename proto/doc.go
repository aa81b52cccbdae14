// Package proto is Paneflow's wire protocol in one place: every JSON-RPC
// method name ([Methods]), the params and result type of each, the error
// codes and the error object ([Error]), the events and frames of
// events.subscribe ([EventTypes], [EventFrame]), the layout tree
// ([LayoutNode]), the known agents ([Agents]: names, argv matching, launch
// argv, how a submitted text goes in), and one typed client ([Client])
// over any [Caller] (package ipc's Client and Mux are).
//
// It imports only the standard library (and internal/jsonscan, itself
// standard library only), so every binary may link it: the command-line
// client, the agent hook, the launch shim and the MCP bridge as much as
// the server. Servers decode their params into these types (with
// [DecodeParams]) and answer with them; clients build the same params and
// decode the same results. Nothing outside this package declares wire
// JSON: test/repo_test.go refuses a JSON struct tag with one of the
// protocol's member names, or a method name in a string, anywhere else.
//
// # Compatibility
//
// The types are the wire, byte for byte: member names, omissions, null
// versus absent, number types and member order are what servers sent and
// read before the package existed (golden tests in ipc, api and test/e2e
// hold them), and the Go types of params members are the ones whose
// decoding errors servers report ("field pid: expected int64, got
// string"). Optional params members are pointers with omitempty, so a
// client can send an explicit false or 0; a server reads absent and null
// alike. A raw member (json.RawMessage) is one a server reads leniently or
// in a later step with errors of its own; [RawJSON], [SubscribeTo] and
// [WorktreeCreateResult.ManagedWorktree] build them.
//
// Every params type has an AppendJSON method that encodes it without
// reflection; package ipc uses it (the command-line client's start-up is
// mostly its own, not JSON's). TestAppendJSON holds each to encoding/json.
//
// # Adding a method
//
//  1. Add its name to the constants in methods.go and to the methods list
//     there, in its namespace (a namespace belongs to one server package).
//  2. Add its params type (pointers with omitempty for optional members,
//     an AppendJSON method, an entry in appendjson_test.go's list) and
//     result type beside the others of its namespace, with doc comments
//     saying what each member means and its default.
//  3. Add a method to [Client].
//  4. Register it in its server package with the constant, decoding into
//     the params type; clients call it through [Client].
//
// core's TestMethodsDeclared fails until the registered methods and
// [Methods] agree; the repository test fails on a method name or wire
// struct tag written outside this package.
//
// # Concurrency
//
// The types are plain data. [Client] is safe for concurrent use when its
// Caller is; the package's functions are.
package proto
