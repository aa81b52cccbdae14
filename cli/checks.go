package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// checksVerb is `paneflow checks run|status|send`.
func checksVerb() verb {
	return verb{
		name: "checks", synopsis: "run [<name>...] | status | send <name> [--pane <target>]  [--worktree DIR] [--json]",
		summary: "run a worktree's checks (test, lint, build), show them, send a failing one to its agent",
		params:  []string{"<action>"},
		rest:    true,
		flags: []flagSpec{
			worktreeFlag,
			{name: "pane", kind: valueFlag, value: "<target>", usage: "send: the agent pane (default: the one agent pane whose directory is in the worktree)"},
			{name: "json", kind: boolFlag, usage: "print the server's result as JSON"},
		},
		details: "The checks are the [checks.commands] of the worktree's .paneflow.toml (name = shell\n" +
			"command; [checks] timeout_secs, default 600; on_turn_end = true runs them each time the\n" +
			"agent working in the worktree finishes a turn). A repository's file runs nothing until\n" +
			"you trust its exact bytes: `paneflow trust <worktree>/.paneflow.toml` (again after it\n" +
			"changes). run runs them in the worktree one after the other and exits 1 when one fails;\n" +
			"status shows each one's last run (pass/fail, duration, the failing output); send types a\n" +
			"failing check's output, fenced as untrusted, into the agent working in the worktree and\n" +
			"confirms its turn start as `send --submit` does.\n",
		run: runChecks,
	}
}

// checksCallTimeout bounds checks.run's call: checks run one after the
// other, each within its own limit.
const checksCallTimeout = 2 * time.Hour

func runChecks(ctx context.Context, s *session, in *input) error {
	action, args := in.args[0], in.args[1:]
	switch {
	case action != "run" && action != "status" && action != "send":
		return in.verb.usageErrorf("unknown action '%s' (run, status, send)", action)
	case action == "status" && len(args) > 0, action == "send" && len(args) != 1:
		return in.verb.usageErrorf("%s takes %s", action, map[string]string{"status": "no arguments", "send": "one check name"}[action])
	}
	dir, err := s.worktreeDir(in)
	if err != nil {
		return err
	}
	if action == "send" {
		c, err := s.connect()
		if err != nil {
			return err
		}
		return s.sendPrompt(ctx, in, c, proto.MethodChecksSend, proto.ReviewSendParams{Worktree: dir, Check: args[0]})
	}
	c, err := s.dial(checksCallTimeout)
	if err != nil {
		return err
	}
	method := proto.MethodChecksStatus
	if action == "run" {
		method = proto.MethodChecksRun
	}
	var res proto.ChecksResult
	raw, err := callInto(ctx, c, method, proto.ChecksParams{Worktree: dir, Names: args}, &res)
	if err != nil {
		return err
	}
	if in.bool("json") {
		err = s.printRaw(raw)
	} else {
		err = writeLines(s.stdout, checkLines(res))
	}
	if err != nil {
		return err
	}
	if action == "run" {
		for _, r := range res.Checks {
			if r.Status == proto.CheckFail {
				return &exitError{Code: ExitFailure}
			}
		}
	}
	return nil
}

// checkLines is a checks result as text: a line per check, then a failing
// one's output indented, escaped.
func checkLines(res proto.ChecksResult) []string {
	if len(res.Checks) == 0 {
		return []string{"no check has run in " + vis.String(res.Worktree) + " (paneflow checks run)"}
	}
	var out []string
	for _, r := range res.Checks {
		line := fmt.Sprintf("%-4s  %-10s  %6.1fs  %s", r.Status, vis.String(r.Name), float64(r.DurationMS)/1000, vis.String(r.Command))
		switch {
		case r.TimedOut:
			line += "  (timed out)"
		case r.Status == proto.CheckFail && r.ExitCode != nil:
			line += fmt.Sprintf("  (exit %d)", *r.ExitCode)
		}
		if r.Trigger == "turn_end" {
			line += "  [at the agent's turn end]"
		}
		out = append(out, line)
		if r.Status == proto.CheckFail {
			for _, l := range strings.Split(strings.TrimRight(r.Output, "\n"), "\n") {
				out = append(out, "      "+vis.String(l))
			}
		}
	}
	return out
}
