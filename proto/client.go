package proto

import (
	"context"
	"fmt"
)

// Caller makes one JSON-RPC call: it sends method with params (encoded
// with their AppendJSON, else encoding/json; nil sends none) and decodes
// the reply's result into result (nil discards it). It returns an *[Error]
// when the server answered with one, and a transport error otherwise.
// *ipc.Client (a connection per call) and *ipc.Mux (one concurrent
// connection) are Callers; tests substitute fakes.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// Client is the typed client of Paneflow's socket API: one method per
// protocol method, with its params and result types. It adds nothing to
// the call (no retries, no timeouts of its own: those are the Caller's)
// and is safe for concurrent use when its Caller is. The embedded
// Caller's Call stays available for a raw result.
type Client struct {
	Caller
}

// call makes one call and decodes its result into a new R.
func call[R any](ctx context.Context, c Caller, method string, params any) (R, error) {
	var r R
	if c == nil {
		return r, fmt.Errorf("proto: %s: no Caller", method)
	}
	err := c.Call(ctx, method, params, &r)
	return r, err
}

// Ping calls system.ping.
func (c Client) Ping(ctx context.Context) (SystemPingResult, error) {
	return call[SystemPingResult](ctx, c.Caller, MethodSystemPing, NoParams{})
}

// Capabilities calls system.capabilities.
func (c Client) Capabilities(ctx context.Context) (SystemCapabilitiesResult, error) {
	return call[SystemCapabilitiesResult](ctx, c.Caller, MethodSystemCapabilities, NoParams{})
}

// Identify calls system.identify.
func (c Client) Identify(ctx context.Context) (SystemIdentifyResult, error) {
	return call[SystemIdentifyResult](ctx, c.Caller, MethodSystemIdentify, NoParams{})
}

// Admission calls system.admission.
func (c Client) Admission(ctx context.Context) (SystemAdmissionResult, error) {
	return call[SystemAdmissionResult](ctx, c.Caller, MethodSystemAdmission, NoParams{})
}

// Shutdown calls system.shutdown: the server answers, then ends.
func (c Client) Shutdown(ctx context.Context) (SystemShutdownResult, error) {
	return call[SystemShutdownResult](ctx, c.Caller, MethodSystemShutdown, NoParams{})
}

// WorkspaceList calls workspace.list.
func (c Client) WorkspaceList(ctx context.Context) (WorkspaceListResult, error) {
	return call[WorkspaceListResult](ctx, c.Caller, MethodWorkspaceList, NoParams{})
}

// WorkspaceCurrent calls workspace.current; the result is nil when there
// is no workspace.
func (c Client) WorkspaceCurrent(ctx context.Context, p WorkspaceCurrentParams) (*WorkspaceCurrentResult, error) {
	return call[*WorkspaceCurrentResult](ctx, c.Caller, MethodWorkspaceCurrent, p)
}

// WorkspaceCreate calls workspace.create.
func (c Client) WorkspaceCreate(ctx context.Context, p WorkspaceCreateParams) (WorkspaceCreateResult, error) {
	return call[WorkspaceCreateResult](ctx, c.Caller, MethodWorkspaceCreate, p)
}

// WorkspaceSelect calls workspace.select.
func (c Client) WorkspaceSelect(ctx context.Context, p WorkspaceIndexParams) (WorkspaceSelectResult, error) {
	return call[WorkspaceSelectResult](ctx, c.Caller, MethodWorkspaceSelect, p)
}

// WorkspaceMove calls workspace.move.
func (c Client) WorkspaceMove(ctx context.Context, p WorkspaceMoveParams) (WorkspaceMoveResult, error) {
	return call[WorkspaceMoveResult](ctx, c.Caller, MethodWorkspaceMove, p)
}

// WorkspaceRename calls workspace.rename.
func (c Client) WorkspaceRename(ctx context.Context, p WorkspaceRenameParams) (WorkspaceRenameResult, error) {
	return call[WorkspaceRenameResult](ctx, c.Caller, MethodWorkspaceRename, p)
}

// WorkspaceReopen calls workspace.reopen (undo close).
func (c Client) WorkspaceReopen(ctx context.Context) (WorkspaceReopenResult, error) {
	return call[WorkspaceReopenResult](ctx, c.Caller, MethodWorkspaceReopen, NoParams{})
}

// WorkspaceClose calls workspace.close.
func (c Client) WorkspaceClose(ctx context.Context, p WorkspaceIndexParams) (WorkspaceCloseResult, error) {
	return call[WorkspaceCloseResult](ctx, c.Caller, MethodWorkspaceClose, p)
}

// WorkspaceRestoreLayout calls workspace.restore_layout.
func (c Client) WorkspaceRestoreLayout(ctx context.Context, p WorkspaceRestoreLayoutParams) (WorkspaceRestoreLayoutResult, error) {
	return call[WorkspaceRestoreLayoutResult](ctx, c.Caller, MethodWorkspaceRestoreLayout, p)
}

// WorkspaceUp calls workspace.up.
func (c Client) WorkspaceUp(ctx context.Context, p WorkspaceUpParams) (WorkspaceUpResult, error) {
	return call[WorkspaceUpResult](ctx, c.Caller, MethodWorkspaceUp, p)
}

// SurfacePorts calls surface.ports: the TCP ports pane id (0: every pane)
// listens on.
func (c Client) SurfacePorts(ctx context.Context, id uint64) (SurfacePortsResult, error) {
	p := SurfaceIDParams{}
	if id != 0 {
		p.SurfaceID = &id
	}
	return call[SurfacePortsResult](ctx, c.Caller, MethodSurfacePorts, p)
}

// SurfaceList calls surface.list.
func (c Client) SurfaceList(ctx context.Context) (SurfaceListResult, error) {
	return call[SurfaceListResult](ctx, c.Caller, MethodSurfaceList, NoParams{})
}

// SurfaceRead calls surface.read.
func (c Client) SurfaceRead(ctx context.Context, p SurfaceReadParams) (SurfaceReadResult, error) {
	return call[SurfaceReadResult](ctx, c.Caller, MethodSurfaceRead, p)
}

// SurfaceSearch calls surface.search.
func (c Client) SurfaceSearch(ctx context.Context, p SurfaceSearchParams) (SurfaceSearchResult, error) {
	return call[SurfaceSearchResult](ctx, c.Caller, MethodSurfaceSearch, p)
}

// SurfaceSearchAll calls surface.search_all.
func (c Client) SurfaceSearchAll(ctx context.Context, p SearchAllParams) (SearchAllResult, error) {
	return call[SearchAllResult](ctx, c.Caller, MethodSurfaceSearchAll, p)
}

// SurfaceScreens calls surface.screens.
func (c Client) SurfaceScreens(ctx context.Context, p SurfaceScreensParams) (SurfaceScreensResult, error) {
	return call[SurfaceScreensResult](ctx, c.Caller, MethodSurfaceScreens, p)
}

// AIHistory calls ai.history.
func (c Client) AIHistory(ctx context.Context, p AIHistoryParams) (AIHistoryResult, error) {
	return call[AIHistoryResult](ctx, c.Caller, MethodAIHistory, p)
}

// SurfaceStatus calls surface.status.
func (c Client) SurfaceStatus(ctx context.Context, t Target) (SurfaceStatusResult, error) {
	return call[SurfaceStatusResult](ctx, c.Caller, MethodSurfaceStatus, t)
}

// SurfaceRename calls surface.rename.
func (c Client) SurfaceRename(ctx context.Context, p SurfaceRenameParams) (SurfaceRenameResult, error) {
	return call[SurfaceRenameResult](ctx, c.Caller, MethodSurfaceRename, p)
}

// SurfaceFocus calls surface.focus for pane id.
func (c Client) SurfaceFocus(ctx context.Context, id uint64) (SurfaceFocusResult, error) {
	return call[SurfaceFocusResult](ctx, c.Caller, MethodSurfaceFocus, SurfaceIDParams{SurfaceID: &id})
}

// SurfaceSplit calls surface.split.
func (c Client) SurfaceSplit(ctx context.Context, p SurfaceSplitParams) (SurfaceSplitResult, error) {
	return call[SurfaceSplitResult](ctx, c.Caller, MethodSurfaceSplit, p)
}

// SurfaceResize calls surface.resize.
func (c Client) SurfaceResize(ctx context.Context, p SurfaceResizeParams) (SurfaceResizeResult, error) {
	return call[SurfaceResizeResult](ctx, c.Caller, MethodSurfaceResize, p)
}

// SurfaceClose calls surface.close for pane id.
func (c Client) SurfaceClose(ctx context.Context, id uint64) (SurfaceCloseResult, error) {
	return call[SurfaceCloseResult](ctx, c.Caller, MethodSurfaceClose, SurfaceIDParams{SurfaceID: &id})
}

// SurfaceSendText calls surface.send_text. A submitted text for an agent
// pane may be held up to its InputWaitMS: the Caller's timeout must allow
// for it.
func (c Client) SurfaceSendText(ctx context.Context, p SurfaceSendTextParams) (SurfaceSendTextResult, error) {
	return call[SurfaceSendTextResult](ctx, c.Caller, MethodSurfaceSendText, p)
}

// SurfaceSendKeystroke calls surface.send_keystroke.
func (c Client) SurfaceSendKeystroke(ctx context.Context, p SurfaceSendKeystrokeParams) (SentResult, error) {
	return call[SentResult](ctx, c.Caller, MethodSurfaceSendKeystroke, p)
}

// SurfaceInterrupt calls surface.interrupt.
func (c Client) SurfaceInterrupt(ctx context.Context, p SurfaceInterruptParams) (SurfaceInterruptResult, error) {
	return call[SurfaceInterruptResult](ctx, c.Caller, MethodSurfaceInterrupt, p)
}

// SurfaceWait calls surface.wait, a Long method: the Caller's timeout must
// exceed the wait's.
func (c Client) SurfaceWait(ctx context.Context, p SurfaceWaitParams) (SurfaceWaitResult, error) {
	return call[SurfaceWaitResult](ctx, c.Caller, MethodSurfaceWait, p)
}

// FleetList calls fleet.list.
func (c Client) FleetList(ctx context.Context) (FleetListResult, error) {
	return call[FleetListResult](ctx, c.Caller, MethodFleetList, NoParams{})
}

// AIFrame sends one ai.* frame (method is one of [AIMethods]) as a
// request and returns the server's acknowledgement.
func (c Client) AIFrame(ctx context.Context, method string, p AIFrameParams) (AIAck, error) {
	return call[AIAck](ctx, c.Caller, method, p)
}

// TeamsTmux calls teams.tmux.
func (c Client) TeamsTmux(ctx context.Context, p TeamsTmuxParams) (TeamsTmuxResult, error) {
	return call[TeamsTmuxResult](ctx, c.Caller, MethodTeamsTmux, p)
}

// TeamsAttach calls teams.attach.
func (c Client) TeamsAttach(ctx context.Context, p TeamsAttachParams) (TeamsAttachResult, error) {
	return call[TeamsAttachResult](ctx, c.Caller, MethodTeamsAttach, p)
}

// TeamsList calls teams.list.
func (c Client) TeamsList(ctx context.Context) (TeamsListResult, error) {
	return call[TeamsListResult](ctx, c.Caller, MethodTeamsList, NoParams{})
}

// WorktreeCreate calls worktree.create (Long: git may take seconds).
func (c Client) WorktreeCreate(ctx context.Context, p WorktreeCreateParams) (WorktreeCreateResult, error) {
	return call[WorktreeCreateResult](ctx, c.Caller, MethodWorktreeCreate, p)
}

// WorktreeRollback calls worktree.rollback.
func (c Client) WorktreeRollback(ctx context.Context, path string) (WorktreeRollbackResult, error) {
	return call[WorktreeRollbackResult](ctx, c.Caller, MethodWorktreeRollback, WorktreeRollbackParams{Path: path})
}

// ArtifactGet calls artifact.get for pane id.
func (c Client) ArtifactGet(ctx context.Context, id uint64) (ArtifactGetResult, error) {
	return call[ArtifactGetResult](ctx, c.Caller, MethodArtifactGet, ArtifactParams{SurfaceID: id})
}

// ArtifactKeep calls artifact.keep for pane id.
func (c Client) ArtifactKeep(ctx context.Context, id uint64, keep bool) (ArtifactKeepResult, error) {
	return call[ArtifactKeepResult](ctx, c.Caller, MethodArtifactKeep, ArtifactParams{SurfaceID: id, Keep: &keep})
}

// UsageSummary calls usage.summary.
func (c Client) UsageSummary(ctx context.Context, p UsageSummaryParams) (UsageSummary, error) {
	return call[UsageSummary](ctx, c.Caller, MethodUsageSummary, p)
}

// UsageTrack calls usage.track.
func (c Client) UsageTrack(ctx context.Context, p UsageTrackParams) error {
	_, err := call[OKResult](ctx, c.Caller, MethodUsageTrack, p)
	return err
}

// UsageBudgetWait calls usage.budget_wait; give it a Caller that allows a
// call to last (it returns when a budget of the run is crossed).
func (c Client) UsageBudgetWait(ctx context.Context, p UsageBudgetWaitParams) (UsageBudgetWaitResult, error) {
	return call[UsageBudgetWaitResult](ctx, c.Caller, MethodUsageBudgetWait, p)
}

// UsagePrices calls usage.prices.
func (c Client) UsagePrices(ctx context.Context) (UsagePricesResult, error) {
	return call[UsagePricesResult](ctx, c.Caller, MethodUsagePrices, NoParams{})
}

// ScreenRows calls screen.rows.
func (c Client) ScreenRows(ctx context.Context, p ScreenRowsParams) (ScreenRowsResult, error) {
	return call[ScreenRowsResult](ctx, c.Caller, MethodScreenRows, p)
}

// ScreenLines calls screen.lines.
func (c Client) ScreenLines(ctx context.Context, p ScreenLinesParams) (ScreenLinesResult, error) {
	return call[ScreenLinesResult](ctx, c.Caller, MethodScreenLines, p)
}

// ScreenInput calls screen.input.
func (c Client) ScreenInput(ctx context.Context, p ScreenInputParams) (ScreenDoneResult, error) {
	return call[ScreenDoneResult](ctx, c.Caller, MethodScreenInput, p)
}

// ScreenResize calls screen.resize.
func (c Client) ScreenResize(ctx context.Context, p ScreenResizeParams) (ScreenDoneResult, error) {
	return call[ScreenDoneResult](ctx, c.Caller, MethodScreenResize, p)
}

// ScreenShown calls screen.shown.
func (c Client) ScreenShown(ctx context.Context, p ScreenShownParams) (ScreenDoneResult, error) {
	return call[ScreenDoneResult](ctx, c.Caller, MethodScreenShown, p)
}

// ScreenClearScrollback calls screen.clear_scrollback.
func (c Client) ScreenClearScrollback(ctx context.Context, p ScreenPaneParams) (ScreenDoneResult, error) {
	return call[ScreenDoneResult](ctx, c.Caller, MethodScreenClearScrollback, p)
}

// ScreenReset calls screen.reset.
func (c Client) ScreenReset(ctx context.Context, p ScreenPaneParams) (ScreenDoneResult, error) {
	return call[ScreenDoneResult](ctx, c.Caller, MethodScreenReset, p)
}

// ReviewComment calls review.comment.
func (c Client) ReviewComment(ctx context.Context, p ReviewCommentParams) (ReviewCommentResult, error) {
	return call[ReviewCommentResult](ctx, c.Caller, MethodReviewComment, p)
}

// ReviewList calls review.list.
func (c Client) ReviewList(ctx context.Context, p ReviewListParams) (ReviewListResult, error) {
	return call[ReviewListResult](ctx, c.Caller, MethodReviewList, p)
}

// ReviewResolve calls review.resolve.
func (c Client) ReviewResolve(ctx context.Context, p ReviewResolveParams) (ReviewResolveResult, error) {
	return call[ReviewResolveResult](ctx, c.Caller, MethodReviewResolve, p)
}

// ReviewSend calls review.send (a Long method: give the Caller a timeout
// past the params' input_wait_ms).
func (c Client) ReviewSend(ctx context.Context, p ReviewSendParams) (ReviewSendResult, error) {
	return call[ReviewSendResult](ctx, c.Caller, MethodReviewSend, p)
}

// ReviewDiff calls review.diff (a Long method: git reads the worktree).
func (c Client) ReviewDiff(ctx context.Context, p ReviewDiffParams) (ReviewDiffResult, error) {
	return call[ReviewDiffResult](ctx, c.Caller, MethodReviewDiff, p)
}

// LandRun calls land.run (a Long method: git may take a while).
func (c Client) LandRun(ctx context.Context, p LandParams) (LandResult, error) {
	return call[LandResult](ctx, c.Caller, MethodLandRun, p)
}

// LandPR calls land.pr (a Long method: it pushes).
func (c Client) LandPR(ctx context.Context, p LandPRParams) (LandPRResult, error) {
	return call[LandPRResult](ctx, c.Caller, MethodLandPR, p)
}

// LandTeardown calls land.teardown (a Long method: it closes panes and
// removes the worktree).
func (c Client) LandTeardown(ctx context.Context, p LandTeardownParams) (LandResult, error) {
	return call[LandResult](ctx, c.Caller, MethodLandTeardown, p)
}

// ChecksRun calls checks.run (a Long method: it waits for the checks).
func (c Client) ChecksRun(ctx context.Context, p ChecksParams) (ChecksResult, error) {
	return call[ChecksResult](ctx, c.Caller, MethodChecksRun, p)
}

// ChecksStatus calls checks.status.
func (c Client) ChecksStatus(ctx context.Context, p ChecksParams) (ChecksResult, error) {
	return call[ChecksResult](ctx, c.Caller, MethodChecksStatus, p)
}

// ChecksSend calls checks.send (params: ReviewSendParams with Check).
func (c Client) ChecksSend(ctx context.Context, p ReviewSendParams) (ReviewSendResult, error) {
	return call[ReviewSendResult](ctx, c.Caller, MethodChecksSend, p)
}

// WebPair calls web.pair.
func (c Client) WebPair(ctx context.Context, p WebPairParams) (WebPairResult, error) {
	return call[WebPairResult](ctx, c.Caller, MethodWebPair, p)
}

// WebList calls web.list.
func (c Client) WebList(ctx context.Context) (WebListResult, error) {
	return call[WebListResult](ctx, c.Caller, MethodWebList, NoParams{})
}

// WebRevoke calls web.revoke.
func (c Client) WebRevoke(ctx context.Context, p WebRevokeParams) (WebRevokeResult, error) {
	return call[WebRevokeResult](ctx, c.Caller, MethodWebRevoke, p)
}
