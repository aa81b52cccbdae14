package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// worktreeFlag names the worktree a review, checks or land verb is about.
var worktreeFlag = flagSpec{name: "worktree", kind: valueFlag, value: "DIR", usage: "a directory inside the worktree (default: this shell's directory)"}

// reviewVerb is `paneflow review comment|list|send|resolve`.
func reviewVerb() verb {
	return verb{
		name: "review", synopsis: "comment|list|send|resolve|diff [args] [--worktree DIR] [--json]",
		summary: "comment on a worktree's code and send the comments to its agent",
		params:  []string{"<action>"},
		rest:    true,
		flags: []flagSpec{
			worktreeFlag,
			{name: "all", kind: boolFlag, usage: "list: resolved comments too; resolve: every open comment"},
			{name: "pane", kind: valueFlag, value: "<target>", usage: "send: the agent pane (default: the one agent pane whose directory is in the worktree)"},
			{name: "scope", kind: valueFlag, value: "branch|unstaged|staged", usage: "diff: what to compare (default branch: against the branch point)"},
			{name: "json", kind: boolFlag, usage: "print the server's result as JSON"},
		},
		details: "  paneflow review comment <file> <line>[-<last>] <text>\n" +
			"  paneflow review list [--all]\n" +
			"  paneflow review send [--pane <target>]\n" +
			"  paneflow review resolve <id>... | --all\n" +
			"  paneflow review diff [--scope branch|unstaged|staged]\n\n" +
			"The server keeps the comments of each worktree until they are resolved. A comment is on\n" +
			"a line or a range of a file as it is now and keeps the code it is about: each list or\n" +
			"send finds that code again (moved lines follow it) and marks the comment outdated when\n" +
			"the code is gone. send types every open comment that is not outdated into the agent\n" +
			"working in the worktree as one prompt (file, lines, the code fenced, the comment) and\n" +
			"confirms that the agent started a turn, as `send --submit` does (needs\n" +
			"PANEFLOW_IPC_SCRIPTING=1 on the server); exit 1 when no start was confirmed.\n\n" +
			"diff prints the worktree's changes against its base as the server reads them with git\n" +
			"(committed, staged, unstaged, and the first untracked files as new files), as the\n" +
			"window's Diff view shows them; with --host, the host's. Control characters other than\n" +
			"tab and newline are shown escaped; --json has the exact text and the file list.\n",
		run: runReview,
	}
}

// worktreeDir is the --worktree flag made absolute, else the working
// directory.
func (s *session) worktreeDir(in *input) (string, error) {
	dir, ok := in.str("worktree")
	if !ok {
		dir = "."
	}
	return s.absPath(dir)
}

func runReview(ctx context.Context, s *session, in *input) error {
	action, args := in.args[0], in.args[1:]
	want := map[string]int{"comment": 3, "list": 0, "send": 0, "diff": 0}
	switch n, ok := want[action]; {
	case action == "resolve":
		if in.bool("all") == (len(args) > 0) {
			return in.verb.usageErrorf("resolve takes comment ids or --all")
		}
	case !ok:
		return in.verb.usageErrorf("unknown action '%s' (comment, list, send, resolve, diff)", action)
	case len(args) != n:
		return in.verb.usageErrorf("%s takes %d arguments, got %d", action, n, len(args))
	}
	dir, err := s.worktreeDir(in)
	if err != nil {
		return err
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	switch action {
	case "comment":
		return reviewComment(ctx, s, in, c, dir, args)
	case "list":
		var res proto.ReviewListResult
		all := in.bool("all")
		raw, err := callInto(ctx, c, proto.MethodReviewList, proto.ReviewListParams{Worktree: dir, All: &all}, &res)
		if err != nil || in.bool("json") {
			return s.printOr(raw, err)
		}
		return writeLines(s.stdout, commentLines(res.Comments))
	case "diff":
		var res proto.ReviewDiffResult
		scope, _ := in.str("scope")
		raw, err := callInto(ctx, c, proto.MethodReviewDiff, proto.ReviewDiffParams{Worktree: dir, Scope: scope}, &res)
		if err != nil || in.bool("json") {
			return s.printOr(raw, err)
		}
		if _, err := io.WriteString(s.stdout, vis.Text(res.Text)); err != nil {
			return err
		}
		if res.Truncated {
			fmt.Fprintf(s.stderr, "paneflow: the diff was cut at %d bytes (--json has the list of every changed file)\n", len(res.Text))
		}
		return nil
	case "resolve":
		p := proto.ReviewResolveParams{Worktree: dir, IDs: args}
		if in.bool("all") {
			all := true
			p.All = &all
		}
		var res proto.ReviewResolveResult
		raw, err := callInto(ctx, c, proto.MethodReviewResolve, p, &res)
		if err != nil || in.bool("json") {
			return s.printOr(raw, err)
		}
		return writeLines(s.stdout, []string{fmt.Sprintf("resolved %d: %s", len(res.Resolved), strings.Join(res.Resolved, " "))})
	}
	return s.sendPrompt(ctx, in, c, proto.MethodReviewSend, proto.ReviewSendParams{Worktree: dir})
}

// printOr prints raw, or returns err.
func (s *session) printOr(raw json.RawMessage, err error) error {
	if err != nil {
		return err
	}
	return s.printRaw(raw)
}

// reviewComment is `review comment <file> <line>[-<end>] <text>`.
func reviewComment(ctx context.Context, s *session, in *input, c caller, dir string, args []string) error {
	file, err := s.absPath(args[0])
	if err != nil {
		return err
	}
	from, to, ranged := strings.Cut(args[1], "-")
	start, err := strconv.Atoi(from)
	if err != nil || start < 1 {
		return in.verb.usageErrorf("the line must be a number from 1, or a range like 10-12; got '%s'", args[1])
	}
	p := proto.ReviewCommentParams{Worktree: dir, Path: file, StartLine: start, Body: args[2]}
	if ranged {
		end, err := strconv.Atoi(to)
		if err != nil || end < start {
			return in.verb.usageErrorf("the range must be <first>-<last> with last ≥ first; got '%s'", args[1])
		}
		p.EndLine = &end
	}
	var res proto.ReviewCommentResult
	raw, err := callInto(ctx, c, proto.MethodReviewComment, p, &res)
	if err != nil || in.bool("json") {
		return s.printOr(raw, err)
	}
	return writeLines(s.stdout, commentLines([]proto.ReviewComment{res.Comment}))
}

// commentLines is comments as text: a header line per comment, its code
// and its body indented; text from the repository and the user escaped.
func commentLines(cs []proto.ReviewComment) []string {
	if len(cs) == 0 {
		return []string{"no comments"}
	}
	var out []string
	for _, c := range cs {
		where := fmt.Sprintf("%s:%d", vis.String(c.Path), c.StartLine)
		if c.EndLine != c.StartLine {
			where += fmt.Sprintf("-%d", c.EndLine)
		}
		var tags []string
		if c.Outdated {
			tags = append(tags, "outdated")
		}
		if c.Resolved {
			tags = append(tags, "resolved")
		}
		if c.Sent > 0 {
			tags = append(tags, fmt.Sprintf("sent %d×", c.Sent))
		}
		head := c.ID + "  " + where
		if len(tags) > 0 {
			head += "  (" + strings.Join(tags, ", ") + ")"
		}
		out = append(out, head)
		for _, l := range c.Code {
			out = append(out, "  | "+vis.String(l))
		}
		for _, l := range strings.Split(c.Body, "\n") {
			out = append(out, "  "+vis.String(l))
		}
	}
	return out
}

// sendPrompt calls review.send or checks.send (p) with the --pane flag's
// pane, then confirms the agent's turn start as `send --submit` does,
// against the status the server read just before it typed.
func (s *session) sendPrompt(ctx context.Context, in *input, c caller, method string, p proto.ReviewSendParams) error {
	if sel, ok := in.str("pane"); ok {
		t, err := s.resolveOne(ctx, c, sel)
		if err != nil {
			return err
		}
		p.SurfaceID = &t.ID
	}
	wait := sendInputWait.Milliseconds()
	p.InputWaitMS = &wait
	long, err := s.dial(sendInputWait + waitCallMargin)
	if err != nil {
		return err
	}
	var res proto.ReviewSendResult
	raw, err := callInto(ctx, long, method, p, &res)
	if isGateClosed(err) {
		return gateError(err)
	}
	if err != nil {
		return err
	}
	reason, cerr := s.confirmSent(ctx, c, res)
	out := raw
	if cerr == nil {
		out, err = withFields(raw, "started", true, "start_reason", reason)
		if err != nil {
			return err
		}
	}
	if in.bool("json") {
		if err := s.printRaw(out); err != nil {
			return err
		}
	} else {
		what := fmt.Sprintf("%d comments (%s)", len(res.Comments), strings.Join(res.Comments, " "))
		if res.Check != "" {
			what = "check " + vis.String(res.Check)
		}
		line := fmt.Sprintf("sent %s to pane %d", what, res.SurfaceID)
		if cerr == nil {
			line += "; the agent started its turn (" + reason + ")"
		}
		if err := writeLines(s.stdout, []string{line}); err != nil {
			return err
		}
	}
	return cerr
}

// confirmSent warns when the agent had not read its input yet and
// confirms the turn start of a prompt the server typed (review.send,
// checks.send, land.run's send_conflicts), against the status it read
// just before.
func (s *session) confirmSent(ctx context.Context, c caller, res proto.ReviewSendResult) (string, error) {
	if !res.Send.InputReady {
		fmt.Fprintf(s.stderr, "paneflow: warning: the agent in pane %d had not read its input (bracketed paste still off) after %v; the text was typed anyway\n", res.SurfaceID, sendInputWait)
	}
	return s.confirmStart(ctx, c, res.SurfaceID, &res.StatusBefore)
}
