package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// workspaceVerb is `paneflow workspace move|rename`, over workspace.move
// and workspace.rename.
func workspaceVerb() verb {
	return verb{
		name: "workspace", synopsis: "move <workspace> <to> | rename <workspace> <title> [--json]",
		summary: "move a workspace to another position among the tabs, or retitle it",
		params:  []string{"<action>"},
		rest:    true,
		flags: []flagSpec{
			{name: "json", kind: boolFlag, usage: "print the server's result as JSON"},
		},
		details: "  paneflow workspace move <workspace> <to>\n" +
			"  paneflow workspace rename <workspace> <title>\n\n" +
			"<workspace> is a 0-based index, as `paneflow select` takes, or a workspace's title\n" +
			"(exactly; it must name one workspace). <to> is the 0-based position the workspace\n" +
			"moves to, the ones between shifting by one; the active workspace stays active. The\n" +
			"server drops control characters from a title, keeps at most 64 characters and\n" +
			"refuses an empty one. Prints what changed; --json prints workspace.move's\n" +
			"{\"index\"} or workspace.rename's {\"index\",\"title\"}. An unknown workspace exits 3.\n",
		run: runWorkspace,
	}
}

func runWorkspace(ctx context.Context, s *session, in *input) error {
	action, args := in.args[0], in.args[1:]
	switch action {
	case "move", "rename":
	default:
		return in.verb.usageErrorf("unknown action '%s' (move, rename)", action)
	}
	if len(args) != 2 {
		return in.verb.usageErrorf("%s takes 2 arguments, got %d", action, len(args))
	}
	var to uint64
	if action == "move" {
		n, err := parseCount(in.verb, "<to>", args[1])
		if err != nil {
			return err
		}
		to = n
	} else if strings.TrimSpace(args[1]) == "" {
		return in.verb.usageErrorf("the title must not be empty")
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	var list proto.WorkspaceListResult
	if _, err := callInto(ctx, c, proto.MethodWorkspaceList, map[string]any{}, &list); err != nil {
		return err
	}
	ws, err := findWorkspace(list.Workspaces, args[0])
	if err != nil {
		return err
	}
	if action == "move" {
		if to >= uint64(len(list.Workspaces)) {
			return exitErrorf(ExitFailure, "cannot move workspace %d to %d: there are %d workspaces, at positions 0 to %d",
				ws.Index, to, len(list.Workspaces), len(list.Workspaces)-1)
		}
		var res proto.WorkspaceMoveResult
		raw, err := callInto(ctx, c, proto.MethodWorkspaceMove, proto.WorkspaceMoveParams{Index: ws.Index, To: int(to)}, &res)
		if err != nil || in.bool("json") {
			return s.printOr(raw, err)
		}
		return writeLines(s.stdout, []string{fmt.Sprintf("moved workspace '%s' from %d to %d", vis.String(ws.Title), ws.Index, res.Index)})
	}
	var res proto.WorkspaceRenameResult
	idx := ws.Index
	raw, err := callInto(ctx, c, proto.MethodWorkspaceRename, proto.WorkspaceRenameParams{Index: &idx, Title: args[1]}, &res)
	if err != nil || in.bool("json") {
		return s.printOr(raw, err)
	}
	return writeLines(s.stdout, []string{fmt.Sprintf("renamed workspace %d from '%s' to '%s'", res.Index, vis.String(ws.Title), vis.String(res.Title))})
}

// findWorkspace returns the workspace ref names: a 0-based index, else
// the one workspace titled exactly ref. No match, or several, is an
// ExitNoTarget error that lists the workspaces.
func findWorkspace(list []proto.WorkspaceInfo, ref string) (proto.WorkspaceInfo, error) {
	if n, err := strconv.ParseUint(ref, 10, 64); err == nil {
		if n < uint64(len(list)) {
			return list[n], nil
		}
		return proto.WorkspaceInfo{}, exitErrorf(ExitNoTarget, "no workspace at index %d: %s", n, workspaceNames(list))
	}
	var found []proto.WorkspaceInfo
	for _, w := range list {
		if w.Title == ref {
			found = append(found, w)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return proto.WorkspaceInfo{}, exitErrorf(ExitNoTarget, "no workspace is titled '%s': %s", vis.String(ref), workspaceNames(list))
	}
	idx := make([]string, len(found))
	for i, w := range found {
		idx[i] = strconv.Itoa(w.Index)
	}
	return proto.WorkspaceInfo{}, exitErrorf(ExitNoTarget, "%d workspaces are titled '%s' (at %s); give an index", len(found), vis.String(ref), strings.Join(idx, ", "))
}

// workspaceNames describes list for an error: "the workspaces are 0 'a', 1 'b'".
func workspaceNames(list []proto.WorkspaceInfo) string {
	if len(list) == 0 {
		return "there are no workspaces"
	}
	parts := make([]string, len(list))
	for i, w := range list {
		parts[i] = fmt.Sprintf("%d '%s'", w.Index, vis.String(w.Title))
	}
	return "the workspaces are " + strings.Join(parts, ", ")
}
