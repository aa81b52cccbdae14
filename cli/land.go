package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// landVerb is `paneflow land`.
func landVerb() verb {
	return verb{
		name: "land", synopsis: "[--merge|--squash|--rebase] [--base BRANCH] [--teardown [--delete-branch]] | --pr [--json]",
		summary: "merge, squash or rebase a worktree's branch into its base, or open a pull request",
		flags: []flagSpec{
			worktreeFlag,
			{name: "merge", kind: boolFlag, usage: "a merge commit on the base"},
			{name: "squash", kind: boolFlag, usage: "one commit on the base with the branch's changes"},
			{name: "rebase", kind: boolFlag, usage: "rebase the branch onto the base, then fast-forward the base"},
			{name: "base", kind: valueFlag, value: "BRANCH", usage: "the branch to land into (default: the one the repository's main working tree holds)"},
			{name: "message", kind: valueFlag, value: "TEXT", usage: "the squash commit's message"},
			{name: "teardown", kind: boolFlag, usage: "after a clean land, close the worktree's panes and remove it (only when clean)"},
			{name: "delete-branch", kind: boolFlag, usage: "with --teardown: delete the branch once its worktree is removed"},
			{name: "to-agent", kind: boolFlag, usage: "on a conflict, have the worktree's agent resolve the files (scripting gate)"},
			{name: "pane", kind: valueFlag, value: "<target>", usage: "--to-agent: the agent pane (default: the one in the worktree)"},
			{name: "pr", kind: boolFlag, usage: "push the branch and open a pull request with gh instead (GitHub remotes only)"},
			{name: "title", kind: valueFlag, value: "TEXT", usage: "--pr: the title (default: the first commit's subject)"},
			{name: "body", kind: valueFlag, value: "TEXT", usage: "--pr: the body (default: the agent's last result, else the commits)"},
			{name: "json", kind: boolFlag, usage: "print the server's result as JSON"},
		},
		details: "The server runs the user's git. Without --merge, --squash or --rebase the strategy is\n" +
			"the worktree's .paneflow.toml [land] strategy, else a merge commit. The work happens\n" +
			"where the base is checked out (it must have no uncommitted changes there, nor the\n" +
			"worktree), or in a temporary worktree when it is checked out nowhere. A conflict\n" +
			"aborts the merge or rebase, leaves the base branch as it was, lists the files and\n" +
			"exits 1; with --to-agent the files also go to the agent working in the worktree as a\n" +
			"prompt to resolve them on its branch (its turn start confirmed as `send --submit`).\n" +
			"--pr pushes the branch to its GitHub remote and runs `gh pr create`; without\n" +
			"gh or a GitHub remote it says why and exits 1.\n",
		run: runLand,
	}
}

func runLand(ctx context.Context, s *session, in *input) error {
	merge, squash, rebase, pr := in.bool("merge"), in.bool("squash"), in.bool("rebase"), in.bool("pr")
	switch {
	case merge && squash, merge && rebase, squash && rebase:
		return in.verb.usageErrorf("--merge, --squash and --rebase exclude each other")
	case pr && (merge || squash || rebase || in.bool("teardown") || in.has("message") || in.bool("to-agent")):
		return in.verb.usageErrorf("--pr lands nothing: it takes no --merge, --squash, --rebase, --teardown, --message or --to-agent")
	case in.has("pane") && !in.bool("to-agent"):
		return in.verb.usageErrorf("--pane goes with --to-agent")
	case in.bool("delete-branch") && !in.bool("teardown"):
		return in.verb.usageErrorf("--delete-branch needs --teardown (a branch is deleted only with its worktree)")
	case !pr && (in.has("title") || in.has("body")):
		return in.verb.usageErrorf("--title and --body go with --pr")
	}
	dir, err := s.worktreeDir(in)
	if err != nil {
		return err
	}
	c, err := s.dial(landCallTimeout)
	if err != nil {
		return err
	}
	base, _ := in.str("base")
	if pr {
		p := proto.LandPRParams{Worktree: dir, Base: base}
		p.Title, _ = in.str("title")
		p.Body, _ = in.str("body")
		var res proto.LandPRResult
		raw, err := callInto(ctx, c, proto.MethodLandPR, p, &res)
		if err != nil || in.bool("json") {
			return s.printOr(raw, err)
		}
		return writeLines(s.stdout, []string{fmt.Sprintf("pull request of %s into %s: %s", vis.String(res.Branch), vis.String(res.Base), vis.String(res.URL))})
	}
	p := proto.LandParams{Worktree: dir, Base: base}
	switch {
	case merge:
		p.Strategy = proto.LandMerge
	case squash:
		p.Strategy = proto.LandSquash
	case rebase:
		p.Strategy = proto.LandRebase
	}
	p.Message, _ = in.str("message")
	if in.bool("teardown") {
		t, del := true, in.bool("delete-branch")
		p.Teardown, p.DeleteBranch = &t, &del
	}
	if in.bool("to-agent") {
		t, wait := true, sendInputWait.Milliseconds()
		p.SendConflicts, p.InputWaitMS = &t, &wait
		if sel, ok := in.str("pane"); ok {
			target, err := s.resolveOne(ctx, c, sel)
			if err != nil {
				return err
			}
			p.SurfaceID = &target.ID
		}
	}
	var res proto.LandResult
	raw, err := callInto(ctx, c, proto.MethodLandRun, p, &res)
	if isGateClosed(err) {
		return gateError(err)
	}
	if err != nil {
		return err
	}
	var confirmErr error
	if res.Sent != nil {
		reason, cerr := s.confirmSent(ctx, c, *res.Sent)
		confirmErr = cerr
		if cerr == nil {
			if raw, err = withFields(raw, "started", true, "start_reason", reason); err != nil {
				return err
			}
		}
	}
	if in.bool("json") {
		if err := s.printRaw(raw); err != nil {
			return err
		}
	} else if err := writeLines(s.stdout, landLines(res)); err != nil {
		return err
	}
	if confirmErr != nil {
		return confirmErr
	}
	if !res.Landed {
		return exitErrorf(ExitFailure, "%s did not land: conflicts in %s; %s is unchanged", vis.String(res.Branch), vis.String(strings.Join(res.Conflicts, ", ")), vis.String(res.Base))
	}
	return nil
}

// landCallTimeout is the call timeout of land: a merge or rebase checks
// files out, a push may be slow.
const landCallTimeout = 6 * time.Minute

// landLines is land.run's result as text.
func landLines(r proto.LandResult) []string {
	if !r.Landed {
		lines := []string{fmt.Sprintf("conflict: %s (%s) into %s stopped; nothing changed. Files:", vis.String(r.Branch), r.Strategy, vis.String(r.Base))}
		for _, f := range r.Conflicts {
			lines = append(lines, "  "+vis.String(f))
		}
		if r.Sent != nil {
			lines = append(lines, fmt.Sprintf("sent the conflicts to the agent in pane %d", r.Sent.SurfaceID))
		}
		return lines
	}
	lines := []string{fmt.Sprintf("landed %s into %s (%s, %d commits): %s is now %.12s", vis.String(r.Branch), vis.String(r.Base), r.Strategy, r.Commits, vis.String(r.Base), r.Commit)}
	if r.Teardown != "" {
		l := "worktree " + r.Teardown
		if len(r.ClosedPanes) > 0 {
			l += fmt.Sprintf(" (panes closed: %v)", r.ClosedPanes)
		}
		if r.BranchDeleted {
			l += "; branch deleted"
		}
		if r.TeardownError != "" {
			l += ": " + vis.String(r.TeardownError)
		}
		lines = append(lines, l)
	}
	return lines
}
