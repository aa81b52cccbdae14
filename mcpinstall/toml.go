package mcpinstall

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/paneflow-go/paneflow/internal/tomlquote"
)

// Codex's config.toml is edited as lines: our table [mcp_servers.paneflow]
// (and any sub-table of it) is replaced or removed, or appended at the
// end; every other line stays as it was. The result is decoded and
// compared with the original: everything but our entry must be unchanged,
// else the edit is refused.

// tomlHeader returns the table name of a [table] or [[array]] header line.
func tomlHeader(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") {
		return "", false
	}
	// Strip a trailing comment after the closing bracket.
	if i := strings.LastIndex(t, "]"); i >= 0 {
		t = t[:i+1]
	} else {
		return "", false
	}
	t = strings.TrimPrefix(strings.TrimSuffix(t, "]"), "[")
	t = strings.TrimPrefix(strings.TrimSuffix(t, "]"), "[")
	var parts []string
	for _, p := range strings.Split(t, ".") {
		p = strings.TrimSpace(p)
		p = strings.Trim(p, `"'`)
		parts = append(parts, p)
	}
	return strings.Join(parts, "."), true
}

// isOurTable reports whether table name is our entry or inside it.
func isOurTable(name string) bool {
	return name == "mcp_servers."+EntryName || strings.HasPrefix(name, "mcp_servers."+EntryName+".")
}

// tomlDecode decodes a document (an empty one is an empty map).
func tomlDecode(b []byte) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.Decode(string(b), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// tomlEntry returns mcp_servers.paneflow of a decoded document.
func tomlEntry(doc map[string]any) (map[string]any, bool) {
	servers, _ := doc["mcp_servers"].(map[string]any)
	e, ok := servers[EntryName].(map[string]any)
	return e, ok
}

// tomlWithout returns doc without our entry (a shallow copy).
func tomlWithout(doc map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range doc {
		out[k] = v
	}
	if servers, ok := doc["mcp_servers"].(map[string]any); ok {
		s := map[string]any{}
		for k, v := range servers {
			if k != EntryName {
				s[k] = v
			}
		}
		out["mcp_servers"] = s
	}
	return out
}

// stripOurTables removes our table lines from b (the header and every
// line up to the next header not of ours).
func stripOurTables(b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	var out []byte
	skipping := false
	for _, l := range lines {
		if name, ok := tomlHeader(string(l)); ok {
			skipping = isOurTable(name)
		}
		if !skipping {
			out = append(out, l...)
		}
	}
	return out
}

// CodexEnvVars are the variables Codex is told to pass on to the bridge
// (env_vars). Codex starts an MCP server with a cleared environment (HOME,
// PATH, USER, SHELL, LANG, TERM, TMPDIR and a few more survive), so
// without them a bridge started by Codex in a Paneflow pane cannot find
// the socket: $PANEFLOW_SOCKET_PATH and $XDG_RUNTIME_DIR (where the
// socket lives by default) would be gone. Measured with Codex 0.169.0:
// test/agents TestMCPCodexTurn.
var CodexEnvVars = []string{"PANEFLOW_SOCKET_PATH", "PANEFLOW_SURFACE_ID", "XDG_RUNTIME_DIR", "XDG_CACHE_HOME"}

// tomlList is a TOML array of basic strings.
func tomlList(ss []string) string {
	q := make([]string, len(ss))
	for i, a := range ss {
		q[i] = tomlquote.String(a)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// tomlBlock is our table for bridge.
func tomlBlock(bridge string, args []string) string {
	return fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = %s\nenv_vars = %s\n", EntryName, tomlquote.String(bridge), tomlList(args), tomlList(CodexEnvVars))
}

// tomlWant is our entry as it decodes.
func tomlWant(bridge string, args []string) map[string]any {
	wantArgs, env := []any{}, []any{}
	for _, a := range args {
		wantArgs = append(wantArgs, a)
	}
	for _, v := range CodexEnvVars {
		env = append(env, v)
	}
	return map[string]any{"command": bridge, "args": wantArgs, "env_vars": env}
}

// tomlSet returns b with our entry set to bridge, in place of the old
// table when there was one, else appended.
func tomlSet(b []byte, bridge string, args []string) ([]byte, error) {
	orig, err := tomlDecode(b)
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	var out []byte
	skipping, placed := false, false
	for _, l := range lines {
		if name, ok := tomlHeader(string(l)); ok {
			wasOurs := skipping
			skipping = isOurTable(name)
			if skipping && !placed {
				out = append(out, tomlBlock(bridge, args)...)
				placed = true
			}
			if wasOurs && !skipping && len(out) > 0 {
				out = append(out, '\n')
			}
		}
		if !skipping {
			out = append(out, l...)
		}
	}
	if !placed {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(out, '\n')
		}
		out = append(out, tomlBlock(bridge, args)...)
	}
	return out, tomlCheck(orig, out, bridge, args)
}

// tomlDelete returns b without our entry.
func tomlDelete(b []byte) ([]byte, error) {
	orig, err := tomlDecode(b)
	if err != nil {
		return nil, err
	}
	out := stripOurTables(b)
	return out, tomlCheck(orig, out, "", nil)
}

// tomlCheck verifies an edit: out decodes, holds our entry exactly as we
// write it (bridge "" means no entry), and everything else as orig.
func tomlCheck(orig map[string]any, out []byte, bridge string, args []string) error {
	doc, err := tomlDecode(out)
	if err != nil {
		return fmt.Errorf("the edited file would not parse (%v): the file is laid out in a way this editor does not change; edit it by hand", err)
	}
	e, has := tomlEntry(doc)
	want := bridge != ""
	if has != want || (want && !reflect.DeepEqual(e, tomlWant(bridge, args))) {
		return fmt.Errorf("its [mcp_servers.%s] entry is written in a form this editor does not change (inline table or dotted keys); edit it by hand", EntryName)
	}
	if !reflect.DeepEqual(normalizeEmpty(tomlWithout(doc)), normalizeEmpty(tomlWithout(orig))) {
		return fmt.Errorf("editing [mcp_servers.%s] would change other settings (unusual layout); edit it by hand", EntryName)
	}
	return nil
}

// normalizeEmpty drops an empty mcp_servers table, which our edit may
// leave or create.
func normalizeEmpty(doc map[string]any) map[string]any {
	if s, ok := doc["mcp_servers"].(map[string]any); ok && len(s) == 0 {
		delete(doc, "mcp_servers")
	}
	return doc
}

// CodexHooksBridge reports whether the Codex config file at path runs our
// bridge for Codex sessions in a way its hook tool (proto.MCPHookTool) can
// serve the agent's own pane: the [mcp_servers.paneflow] entry is enabled,
// runs one of bridges (the installed copy, kept current, or the one
// shipped next to the launch shim: a bridge that has the tool), on this
// host (no --host), passes on the socket and the pane's id (env_vars),
// and filters no tool away from the hook. If not, why says what is
// missing. A file that is absent or does not parse is "no".
func CodexHooksBridge(path string, bridges []string) (ok bool, why string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err.Error()
	}
	doc, err := tomlDecode(b)
	if err != nil {
		return false, fmt.Sprintf("%s does not parse: %v", path, err)
	}
	e, has := tomlEntry(doc)
	switch cmd, _ := e["command"].(string); {
	case !has:
		return false, fmt.Sprintf("%s has no [mcp_servers.%s]", path, EntryName)
	case e["enabled"] == false:
		return false, fmt.Sprintf("[mcp_servers.%s] is disabled", EntryName)
	case !slices.Contains(bridges, cmd):
		return false, fmt.Sprintf("[mcp_servers.%s] runs %q, not one of %s", EntryName, cmd, strings.Join(bridges, ", "))
	case e["enabled_tools"] != nil || e["disabled_tools"] != nil:
		return false, fmt.Sprintf("[mcp_servers.%s] filters its tools", EntryName)
	}
	args, _ := e["args"].([]any)
	for _, a := range args {
		if s, _ := a.(string); s == "--host" || strings.HasPrefix(s, "--host=") {
			return false, fmt.Sprintf("[mcp_servers.%s] reaches another host", EntryName)
		}
	}
	vars, _ := e["env_vars"].([]any)
	for _, v := range []string{"PANEFLOW_SOCKET_PATH", "PANEFLOW_SURFACE_ID"} {
		if !slices.Contains(vars, any(v)) {
			return false, fmt.Sprintf("[mcp_servers.%s] does not pass %s on (env_vars)", EntryName, v)
		}
	}
	return true, ""
}
