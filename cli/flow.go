//go:build !client

package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paneflow-go/paneflow/flow"
	"github.com/paneflow-go/paneflow/internal/flowgit"
	"github.com/paneflow-go/paneflow/ipc"
)

// RPCCode lets package flow tell JSON-RPC errors from transport failures.
func (r *rpcError) RPCCode() int { return r.e.Code }

var _ flow.CodedError = (*rpcError)(nil)

// waitSlack is added to the longest barrier for the blocking calls'
// client-side timeout: the server ends a wait first.
const waitSlack = time.Minute

// waitCaller returns the caller of the flow's blocking waits: one
// concurrent connection ([ipc.Mux]) for all of them, so that a flow with
// many barriers open at once takes one of the server's connections, not
// one each; an older server that refuses it gets a connection per call
// (each with timeout), as before.
func (s *session) waitCaller(ctx context.Context, timeout time.Duration) (caller, func(), error) {
	if s.dialMux != nil {
		c, closer, err := s.dialMux(ctx)
		var ie *ipc.Error
		switch {
		case err == nil:
			return c, func() { closer.Close() }, nil
		case !errors.As(err, &ie) || ie.Code == ipc.CodeBusy:
			return nil, nil, err
		}
	}
	c, err := s.dial(timeout)
	return c, func() {}, err
}

func runFlow(ctx context.Context, s *session, in *input) error {
	if in.args[0] != "run" {
		return in.verb.usageErrorf("unknown subcommand '%s' (only `run`)", in.args[0])
	}
	file := in.args[1]
	data, err := s.readSpec(file)
	if err != nil {
		return err
	}
	spec, err := flow.ParseFlow(data)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	plan, err := flow.ResolveFlow(ctx, spec, s.flowHost())
	if err != nil {
		return err
	}
	dry := in.bool("dry-run")
	if plan.Submits() {
		c, err := s.connect()
		if err == nil {
			err = flow.CheckGate(ctx, flowCaller{c})
		}
		switch {
		case errors.Is(err, flow.ErrGateClosed):
			return err
		case err != nil && dry:
			fmt.Fprintf(s.stderr, "paneflow: warning: cannot check the scripting gate: %v\n", err)
		case err != nil:
			return err
		}
	}
	if dry {
		if in.bool("json") {
			return s.printJSON(plan)
		}
		return plan.WriteText(s.stdout)
	}
	if err := s.checkSpecTrust(ctx, in, "flow run", file, data, plan.WriteText); err != nil {
		return err
	}
	calls, err := s.connect()
	if err != nil {
		return err
	}
	longest := int64(0)
	for _, u := range plan.Units {
		if u.Ready != nil {
			longest = max(longest, u.Ready.TimeoutSecs)
		}
	}
	waits, closeWaits, err := s.waitCaller(ctx, time.Duration(longest)*time.Second+waitSlack)
	if err != nil {
		return err
	}
	defer closeWaits()
	rep, err := flow.Run(ctx, plan, flow.RunOptions{
		Calls: flowCaller{calls}, Waits: flowCaller{waits}, Worktrees: flowgit.Worktrees{},
		Resolve: func(ctx context.Context, t string) (uint64, error) {
			si, err := s.resolveOne(ctx, calls, t)
			return si.ID, err
		},
		Progress: s.stderr,
		// A terminal gets a table redrawn in place, anything else a line
		// per transition.
		LiveWidth: terminalWidth(s.stderr),
		Warn:      func(m string) { fmt.Fprintf(s.stderr, "paneflow: %s\n", m) },
	})
	if err != nil {
		return err
	}
	if in.bool("json") {
		err = s.printJSON(rep)
	} else {
		err = rep.WriteText(s.stdout)
	}
	if err != nil {
		return err
	}
	if rep.Aborted != nil {
		return &exitError{Code: ExitFailure, Err: fmt.Errorf("flow aborted: %s (partial report above)", *rep.Aborted)}
	}
	if rep.Exit != ExitOK {
		return &exitError{Code: rep.Exit}
	}
	return nil
}
