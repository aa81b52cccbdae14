package flow

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/internal/vis"
)

// WriteText prints the plan for people: one block per pane with its
// program, directory, prompt, env, port and worktree. Every value a spec
// sets is printed with its control characters escaped (package vis), so a
// spec cannot make its review show something other than what runs.
func (p *Plan) WriteText(w io.Writer) error {
	name := "(default)"
	if p.Name != nil {
		name = strconv.Quote(*p.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "workspace %s: %s, layout %s\n", name, count(len(p.Panes), "pane", "panes"), p.Layout)
	for i := range p.Panes {
		writePane(&b, fmt.Sprintf("pane %d", i), &p.Panes[i], false)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writePane prints one planned pane under a heading; submit says the
// prompt is submitted by the flow engine rather than prefilled.
func writePane(b *strings.Builder, head string, pp *PlannedPane, submit bool) {
	if pp.Name != "" {
		head += " " + strconv.Quote(pp.Name) // Quote escapes every control
	}
	if pp.Focus {
		head += " (focus)"
	}
	fmt.Fprintf(b, "%s\n", head)
	prog := "(shell)"
	if pp.Argv != nil {
		prog = vis.String(pp.Command)
		if pp.Agent != "" {
			prog += "   (agent " + vis.String(pp.Agent) + ")"
		}
	}
	fmt.Fprintf(b, "  run       %s\n", prog)
	cwd := vis.String(pp.Cwd)
	if cwd == "" {
		cwd = "(server's directory)"
	}
	fmt.Fprintf(b, "  cwd       %s\n", cwd)
	if pp.Prompt != "" {
		how := "prefilled, not submitted"
		if submit {
			how = "fed and submitted once the pane settles"
		}
		fmt.Fprintf(b, "  prompt    %s (%s)\n", strconv.Quote(pp.Prompt), how)
	}
	if len(pp.Env) > 0 {
		keys := make([]string, 0, len(pp.Env))
		for k := range pp.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(b, "  env       %s=%s\n", vis.String(k), vis.String(pp.Env[k]))
		}
	}
	if pp.PortOffset != 0 {
		fmt.Fprintf(b, "  port      %d\n", pp.PortOffset)
	}
	if w := pp.Worktree; w != nil {
		what := "reuse"
		if w.Action == "create" {
			what = "create"
			if w.NewBranch {
				what += " (new branch off HEAD)"
			}
		}
		fmt.Fprintf(b, "  worktree  %s %s at %s (repo %s, teardown %s)\n", what, vis.String(w.Branch), vis.String(w.Path), vis.String(w.RepoRoot), w.Teardown)
		if w.Action == "create" {
			if pp.CopyEnv {
				fmt.Fprintf(b, "  copy_env  ignored .env* files from the repo root\n")
			}
			if pp.Setup != "" {
				fmt.Fprintf(b, "  setup     %s (timeout %ds)\n", vis.String(pp.Setup), pp.SetupTimeout)
			}
		}
	}
}

// count is n and the noun for it: "1 pane", "2 panes".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
