//go:build !client

package cli

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/paneflow-go/paneflow/flow"
	"github.com/paneflow-go/paneflow/internal/flowgit"
	"github.com/paneflow-go/paneflow/internal/vis"
)

// The spec verbs (up, flow) run here in every build but the client one,
// which hands them to the server binary (see specverbs.go).
const specVerbsInServer = false

// flowCaller adapts a caller to flow.Caller, with the CLI's error
// handling (JSON-RPC errors as "paneflow error <code>: …").
type flowCaller struct{ c caller }

func (f flowCaller) Call(ctx context.Context, method string, params, result any) error {
	_, err := callInto(ctx, f.c, method, params, result)
	return err
}

// flowHost is what resolving a spec consults here: this process's
// directory, HOME, PATH, a bind probe, and git.
func (s *session) flowHost() flow.Host {
	home := s.getenv("HOME")
	if home == "" && s.goos == "windows" {
		home = s.getenv("USERPROFILE")
	}
	return flow.Host{Getwd: s.getwd, Home: home, LookPath: exec.LookPath, Worktrees: flowgit.Worktrees{}}
}

func runUp(ctx context.Context, s *session, in *input) error {
	file := in.args[0]
	data, err := s.readSpec(file)
	if err != nil {
		return err
	}
	spec, err := flow.ParseWorkspace(data)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	plan, err := flow.ResolveWorkspace(ctx, spec, s.flowHost())
	if err != nil {
		return err
	}
	if in.bool("dry-run") {
		if in.bool("json") {
			return s.printJSON(plan)
		}
		return plan.WriteText(s.stdout)
	}
	if err := s.checkSpecTrust(ctx, in, "up", file, data, plan.WriteText); err != nil {
		return err
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	warn := func(msg string) { fmt.Fprintf(s.stderr, "paneflow: %s\n", msg) }
	res, err := flow.Up(ctx, plan, flowgit.Worktrees{}, flowCaller{c}, warn)
	if err != nil {
		return err
	}
	if in.bool("json") {
		return s.printJSON(res)
	}
	panes := "1 pane"
	if res.Panes != 1 {
		panes = fmt.Sprintf("%d panes", res.Panes)
	}
	fmt.Fprintf(s.stdout, "workspace %q (index %d): %s\n", res.Title, res.Index, panes)
	for i, id := range res.SurfaceIDs {
		name := ""
		if i < len(res.Labels) && res.Labels[i] != nil {
			name = *res.Labels[i]
		}
		pp := plan.Panes[i]
		what := pp.Command
		if what == "" {
			what = "(shell)"
		}
		fmt.Fprintf(s.stdout, "%4d  %-16s %s  [%s]\n", id, vis.String(name), vis.String(what), vis.String(pp.Cwd))
	}
	return nil
}
