package proto

import "slices"

// Method names of the socket API, grouped by namespace. Each namespace
// belongs to one server package (see [Methods]); clients call them through
// [Client] or with these constants.
const (
	// system.*: package api.
	MethodSystemPing         = "system.ping"
	MethodSystemCapabilities = "system.capabilities"
	MethodSystemIdentify     = "system.identify"
	MethodSystemAdmission    = "system.admission"
	// MethodSystemShutdown ends the server as SIGTERM does (its session
	// saved, every pane closed); it answers first. `paneflow kill-server`
	// and the window's "Stop everything" call it.
	MethodSystemShutdown = "system.shutdown"

	// workspace.*: package api.
	MethodWorkspaceList          = "workspace.list"
	MethodWorkspaceCurrent       = "workspace.current"
	MethodWorkspaceCreate        = "workspace.create"
	MethodWorkspaceSelect        = "workspace.select"
	MethodWorkspaceClose         = "workspace.close"
	MethodWorkspaceRestoreLayout = "workspace.restore_layout"
	MethodWorkspaceUp            = "workspace.up"
	// MethodWorkspaceReopen brings back the pane or workspace closed last
	// within the server's undo window (a minute), its programs still
	// running: undo close.
	MethodWorkspaceReopen = "workspace.reopen"
	// MethodWorkspaceMove moves a workspace to another position (the
	// window's tab strip: drag, Ctrl+Shift+PageUp/PageDown).
	MethodWorkspaceMove = "workspace.move"
	// MethodWorkspaceRename sets a workspace's title.
	MethodWorkspaceRename = "workspace.rename"
	// The window's (issue 26): see window.go.
	MethodWorkspaceView      = "workspace.view"
	MethodWorkspacePreset    = "workspace.preset"
	MethodWorkspaceEqualize  = "workspace.equalize"
	MethodWorkspaceSetRatios = "workspace.set_ratios"
	// MethodSurfacePorts (window.go) lists the TCP ports panes' programs
	// listen on: a window on another machine shows them as port chips
	// and forwards them over its ssh (issue 30).
	MethodSurfacePorts = "surface.ports"

	// surface.*: package api.
	MethodSurfaceList          = "surface.list"
	MethodSurfaceRead          = "surface.read"
	MethodSurfaceSearch        = "surface.search"
	MethodSurfaceSearchAll     = "surface.search_all"
	MethodSurfaceScreens       = "surface.screens"
	MethodSurfaceStatus        = "surface.status"
	MethodSurfaceRename        = "surface.rename"
	MethodSurfaceFocus         = "surface.focus"
	MethodSurfaceSplit         = "surface.split"
	MethodSurfaceResize        = "surface.resize"
	MethodSurfaceClose         = "surface.close"
	MethodSurfaceSendText      = "surface.send_text"
	MethodSurfaceSendKeystroke = "surface.send_keystroke"
	MethodSurfaceInterrupt     = "surface.interrupt"
	MethodSurfaceWait          = "surface.wait"

	// fleet.list: package api (the rows come from the conductor).
	MethodFleetList = "fleet.list"

	// events.subscribe: package api; a push stream (see [EventFrame]).
	MethodEventsSubscribe = "events.subscribe"

	// screen.*: an attached window's screen stream and its on-demand calls
	// (package api).
	MethodScreenAttach          = "screen.attach"
	MethodScreenRows            = "screen.rows"
	MethodScreenLines           = "screen.lines"
	MethodScreenInput           = "screen.input"
	MethodScreenResize          = "screen.resize"
	MethodScreenClearScrollback = "screen.clear_scrollback"
	MethodScreenReset           = "screen.reset"
	MethodScreenShown           = "screen.shown"

	// ai.*: the conductor. The agent hook binary sends them as
	// notifications (no id, no reply); the launch shim as requests, whose
	// reply is an [AIAck]. All take [AIFrameParams].
	MethodAISessionStart = "ai.session_start"
	MethodAIPromptSubmit = "ai.prompt_submit"
	MethodAIToolUse      = "ai.tool_use"
	MethodAINotification = "ai.notification"
	MethodAIStop         = "ai.stop"
	MethodAIExit         = "ai.exit"
	MethodAISessionEnd   = "ai.session_end"
	// MethodAIHistory (the conductor too) takes [AIHistoryParams] and
	// returns a pane's turns, [AIHistoryResult].
	MethodAIHistory = "ai.history"

	// hooks.*: package hookhttp. MethodHooksEndpoint opens (once) the
	// server's loopback HTTP endpoint for Claude Code's http hooks and
	// returns its address and secret, [HooksEndpointResult]; the launch
	// shim calls it before it starts Claude Code.
	MethodHooksEndpoint = "hooks.endpoint"
	// MethodHooksReport takes one agent hook event that no hook process
	// carried, [HooksReportParams] (the MCP bridge's hook tool, which a
	// Codex mcp_tool hook calls), maps it as paneflow-ai-hook maps the
	// same event and payload, and runs the frame; [HooksReportResult].
	MethodHooksReport = "hooks.report"

	// teams.*: package teams (Claude Code agent teams).
	MethodTeamsTmux   = "teams.tmux"
	MethodTeamsAttach = "teams.attach"
	MethodTeamsList   = "teams.list"

	// worktree.*: core's worktree owner.
	MethodWorktreeCreate   = "worktree.create"
	MethodWorktreeRollback = "worktree.rollback"

	// artifact.*: core's artifact subsystem.
	MethodArtifactGet  = "artifact.get"
	MethodArtifactKeep = "artifact.keep"

	// usage.*: package usage (tokens and cost, budgets).
	MethodUsageSummary    = "usage.summary"
	MethodUsageTrack      = "usage.track"
	MethodUsageBudgetWait = "usage.budget_wait"
	MethodUsagePrices     = "usage.prices"

	// web.*: package web, the browser client of `paneflow serve --web`
	// (pairing and the paired browsers).
	MethodWebPair   = "web.pair"
	MethodWebList   = "web.list"
	MethodWebRevoke = "web.revoke"

	// review.*: package review (comments on a worktree's diff, sent to
	// its agent).
	MethodReviewComment = "review.comment"
	MethodReviewList    = "review.list"
	MethodReviewResolve = "review.resolve"
	MethodReviewSend    = "review.send"
	// MethodReviewDiff returns a worktree's changes against its base as
	// git reads them on the server's machine: the Diff view of a pane on
	// another host (issue 30) shows what the host's server read.
	MethodReviewDiff = "review.diff"
	// MethodReviewWatch is a stream: a ReviewWatchFrame of type
	// FrameWatching once the server watches the worktree's files, index
	// and HEAD, then one of type FrameChanged each time they changed
	// (settled): the Diff view of a pane on another host asks review.diff
	// again on each, instead of asking every few seconds.
	MethodReviewWatch = "review.watch"

	// land.*: package review (a worktree's branch into its base, or a
	// pull request).
	MethodLandRun      = "land.run"
	MethodLandPR       = "land.pr"
	MethodLandTeardown = "land.teardown"

	// checks.*: package review (a repository's check commands run in a
	// worktree).
	MethodChecksRun    = "checks.run"
	MethodChecksStatus = "checks.status"
	MethodChecksSend   = "checks.send"

	// MethodRPCConcurrent is the transport's own handshake (package ipc
	// answers it, nothing registers it): it makes a connection
	// concurrent. Its reply is a [ConcurrentResult]. JSON-RPC reserves
	// the "rpc." prefix for such extensions.
	MethodRPCConcurrent = "rpc.concurrent"
)

// AIMethods are the ai.* methods in an agent session's lifecycle order.
var AIMethods = [...]string{
	MethodAISessionStart, MethodAIPromptSubmit, MethodAIToolUse, MethodAINotification,
	MethodAIStop, MethodAIExit, MethodAISessionEnd,
}

// TeamsMethods are the teams.* methods.
var TeamsMethods = [...]string{MethodTeamsTmux, MethodTeamsAttach, MethodTeamsList}

// methods is every method a Paneflow server registers, in the order of
// the constants above.
var methods = [...]string{
	MethodSystemPing, MethodSystemCapabilities, MethodSystemIdentify, MethodSystemAdmission,
	MethodSystemShutdown,
	MethodWorkspaceList, MethodWorkspaceCurrent, MethodWorkspaceCreate, MethodWorkspaceSelect,
	MethodWorkspaceClose, MethodWorkspaceRestoreLayout, MethodWorkspaceUp, MethodWorkspaceReopen,
	MethodWorkspaceMove, MethodWorkspaceRename,
	MethodWorkspaceView, MethodWorkspacePreset, MethodWorkspaceEqualize, MethodWorkspaceSetRatios,
	MethodSurfacePorts,
	MethodSurfaceList, MethodSurfaceRead, MethodSurfaceSearch, MethodSurfaceSearchAll, MethodSurfaceScreens, MethodSurfaceStatus,
	MethodSurfaceRename, MethodSurfaceFocus, MethodSurfaceSplit, MethodSurfaceResize,
	MethodSurfaceClose, MethodSurfaceSendText, MethodSurfaceSendKeystroke, MethodSurfaceInterrupt, MethodSurfaceWait,
	MethodFleetList, MethodEventsSubscribe,
	MethodScreenAttach, MethodScreenRows, MethodScreenLines, MethodScreenInput, MethodScreenResize,
	MethodScreenClearScrollback, MethodScreenReset, MethodScreenShown,
	MethodAISessionStart, MethodAIPromptSubmit, MethodAIToolUse, MethodAINotification,
	MethodAIStop, MethodAIExit, MethodAISessionEnd, MethodAIHistory,
	MethodHooksEndpoint, MethodHooksReport,
	MethodTeamsTmux, MethodTeamsAttach, MethodTeamsList,
	MethodWorktreeCreate, MethodWorktreeRollback,
	MethodArtifactGet, MethodArtifactKeep,
	MethodUsageSummary, MethodUsageTrack, MethodUsageBudgetWait, MethodUsagePrices,
	MethodReviewComment, MethodReviewList, MethodReviewResolve, MethodReviewSend, MethodReviewDiff, MethodReviewWatch,
	MethodLandRun, MethodLandPR, MethodLandTeardown,
	MethodChecksRun, MethodChecksStatus, MethodChecksSend,
	MethodWebPair, MethodWebList, MethodWebRevoke,
}

// Methods returns every method a Paneflow server registers (the
// transport's [MethodRPCConcurrent] is not one), sorted. A server
// registers exactly these: core's tests compare its registry with this
// list, and the repository test refuses a method name written anywhere
// but here. The caller owns the returned slice.
func Methods() []string {
	out := slices.Clone(methods[:])
	slices.Sort(out)
	return out
}

// IsMethod reports whether name is one of [Methods].
func IsMethod(name string) bool { return slices.Contains(methods[:], name) }
