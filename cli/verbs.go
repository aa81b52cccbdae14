package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// verbs lists every verb in the order the usage text shows them. It is
// filled in init because the verbs' run functions refer back to it
// indirectly (help, errors).
var verbs []verb

func init() {
	verbs = []verb{
		{
			name: "ls", aliases: []string{"list_panes"}, synopsis: "[--human]",
			summary: "list every pane of every workspace",
			flags:   []flagSpec{humanFlag},
			details: "Prints surface.list's result: pane_count and workspace (the active workspace's pane\n" +
				"count and index) and surfaces, one entry per pane with its surface_id, name, title,\n" +
				"cwd, cmd and workspace index. --human prints a table instead.\n",
			run: runLs,
		},
		{
			name: "read", aliases: []string{"read_pane"}, synopsis: "<target> [--lines N] [--offset N] [--json] [--raw]",
			summary: "print the text of a pane (screen and scrollback)",
			params:  []string{"<target>"},
			flags: []flagSpec{
				{name: "lines", kind: valueFlag, value: "N", usage: "how many lines, counted from the newest (server default 200, at most 4000)"},
				{name: "offset", kind: valueFlag, value: "N", usage: "skip the N newest lines first (paging back)"},
				{name: "json", kind: boolFlag, usage: "print the whole result: text, lines, total_lines, eof, output_generation"},
				{name: "raw", kind: boolFlag, usage: "do not fence the text in <untrusted_terminal_output>"},
			},
			details: "By default prints the text as it is, without adding a newline. Unless --raw is given\n" +
				"the server wraps it in an <untrusted_terminal_output> envelope, so that an agent reading\n" +
				"it can tell another program's output from instructions.\n\n" + targetHelp,
			run: runRead,
		},
		{
			name: "search", aliases: []string{"search_pane"}, synopsis: "<target> <text> [--max N] [--human] | --all <pattern> [--regex] [--case MODE] [--max N] [--json]",
			summary:    "find the lines of a pane's scrollback that contain some text, or (--all) anything any pane showed",
			params:     []string{"<target>", "<text>"},
			flagParams: map[string][]string{"all": {"<pattern>"}},
			flags: append([]flagSpec{
				{name: "max", kind: valueFlag, value: "N", usage: "at most N matches (server default 50, at most 1000; with --all 200 and 1000)"},
				humanFlag,
			}, searchAllFlags...),
			details: "The search is a plain, case-insensitive substring search over the whole scrollback\n" +
				"and screen, one row at a time. Prints {\"matches\":[{\"line\",\"text\"}],\"truncated\"};\n" +
				"line is negative for scrollback rows and 0.. for the screen. --human prints\n" +
				"\"<line>: <text>\" per match.\n\n" + searchAllHelp + "\n" + targetHelp,
			run: runSearch,
		},
		{
			name: "new", synopsis: "[--name NAME] [--cwd DIR] [--command CMD] [--env KEY=VALUE]...",
			summary: "create a workspace with one pane",
			flags:   paneFlags("the workspace's title"),
			details: "Prints workspace.create's result: {\"index\",\"title\",\"panes\"}. A relative --cwd or one\n" +
				"starting with ~ is resolved here, against this shell's directory and HOME.\n",
			run: runNew,
		},
		{
			name: "select", synopsis: "<index>",
			summary: "make the workspace at a 0-based index the active one",
			params:  []string{"<index>"},
			run:     runSelect,
		},
		workspaceVerb(),
		{
			name: "split", synopsis: "<h|v> [--target <target>] [--name NAME] [--cwd DIR] [--command CMD] [--env KEY=VALUE]...",
			summary: "split a pane in two",
			params:  []string{"<direction>"},
			flags: append([]flagSpec{
				{name: "target", kind: valueFlag, value: "<target>", usage: "the pane to split (default: the active workspace's first pane)"},
			}, paneFlags("the new pane's name")...),
			details: "h (or horizontal) puts the new pane below the target; v (or vertical) beside it.\n" +
				"Prints {\"split\",\"direction\",\"panes\",\"surface_id\"}; surface_id is the new pane's.\n" +
				"The new pane starts in --cwd, else in the server's directory, not the target's.\n\n" + targetHelp,
			run: runSplit,
		},
		{
			name: "focus", synopsis: "<target>",
			summary: "give a pane keyboard focus, switching to its workspace",
			params:  []string{"<target>"},
			details: targetHelp,
			run:     runFocus,
		},
		{
			name: "resize", synopsis: "<target> <cols>x<rows>",
			summary: "resize a pane's terminal",
			params:  []string{"<target>", "<cols>x<rows>"},
			details: targetHelp,
			run:     runResize,
		},
		{
			name: "rename", synopsis: "<target> <new-name>",
			summary: "give a pane a name of your own",
			params:  []string{"<target>", "<new-name>"},
			details: "The server trims the name, removes control characters and keeps at most 64 characters.\n\n" + targetHelp,
			run:     runRename,
		},
		{
			name: "close", synopsis: "<target>",
			summary: "close a pane, ending its program (after a minute: `paneflow reopen` undoes it until then)",
			params:  []string{"<target>"},
			details: targetHelp,
			run:     runClose,
		},
		{
			name:    "reopen",
			summary: "undo close: bring back the pane or workspace closed last, its program still running",
			details: "Calls workspace.reopen. A closed pane or workspace keeps its programs running, hidden,\n" +
				"for a minute; reopen puts the one closed last back where it was (same pane ids, same\n" +
				"processes) and prints {\"workspace\":false,\"workspace_id\":N,\"index\":N,\"surface_ids\":[...]}.\n" +
				"Exits 1 with \"Nothing to reopen: ...\" when nothing was closed in the last minute.\n",
			run: runReopen,
		},
		{
			name: "send", synopsis: "<target> <text> [--submit] [--paste] [--broadcast]",
			summary: "type text into a pane (needs PANEFLOW_IPC_SCRIPTING=1 on the server)",
			params:  []string{"<target>", "<text>"},
			flags: []flagSpec{
				{name: "submit", kind: boolFlag, usage: "press Enter after the text (the only way send ever adds one)"},
				{name: "paste", kind: boolFlag, usage: "deliver the text as a bracketed paste when the program asked for that"},
				{name: "broadcast", kind: boolFlag, usage: "send to every pane the target matches, not exactly one"},
			},
			details: "The text is sent exactly as given: no escapes are interpreted and no newline is added.\n" +
				"With --submit to an agent pane, send waits for the agent to start its turn and adds\n" +
				"\"started\":true and a \"start_reason\": \"hook_turn_started\" when the agent's hooks\n" +
				"report a new turn (up to 10 s; its output does not count: a TUI redraws for an Enter\n" +
				"it took for a newline), \"output_after_enter\" when an agent without hooks printed\n" +
				"after the Enter (up to 3 s; the echo of the text does not count). Either limit counts\n" +
				"from the agent's last output since the submit (a slow agent still redrawing is still\n" +
				"at work), 60 s at most. Else send fails (exit 1, the text was delivered), also for an\n" +
				"Enter that starts no turn (/exit, a menu choice). --broadcast prints\n" +
				"{\"sent\":[ids],\"failed\":[{\"surface_id\",\"error\"}],\"submitted\"} and exits 1 if any\n" +
				"pane failed.\n\n" + targetHelp,
			run: runSend,
		},
		{
			name: "key", synopsis: "<target> <keystroke>",
			summary: "press one key in a pane, e.g. ctrl-c, escape, up (needs PANEFLOW_IPC_SCRIPTING=1)",
			params:  []string{"<target>", "<keystroke>"},
			details: "Keystrokes are modifiers and a key joined by '-': ctrl-c, alt-b, shift-tab, f5,\n" +
				"pageup. Keys that would submit a line (enter, ctrl-m, ctrl-j) are refused: use\n" +
				"`paneflow send --submit`.\n\n" + targetHelp,
			run: runKey,
		},
		{
			name: "interrupt", synopsis: "<target>",
			summary: "stop the pane's agent's turn, as its tool takes it (needs PANEFLOW_IPC_SCRIPTING=1)",
			params:  []string{"<target>"},
			details: "Presses Escape in the TUI of Claude Code, Codex or Gemini CLI (twice in opencode's),\n" +
				"which stops the turn and leaves the agent at its prompt; Ctrl+C in any other\n" +
				"program, or in an agent's print mode (claude -p, codex exec). Prints the server's\n" +
				"result: the tool and the keys pressed.\n\n" + targetHelp,
			run: runInterrupt,
		},
		{
			name: "wait", interruptible: true, synopsis: "--match <target> (--pattern <regex> | --idle) [--for D] [--timeout D] [--any|--all] [--from-start]",
			summary: "block until a pane prints a pattern or goes quiet",
			flags: []flagSpec{
				{name: "match", kind: valueFlag, value: "<target>", usage: "the pane(s) to watch (required)"},
				{name: "pattern", kind: valueFlag, value: "<regex>", usage: "wait for new output matching this regular expression"},
				{name: "idle", kind: boolFlag, usage: "wait until the pane prints nothing for --for"},
				{name: "for", kind: valueFlag, value: "DURATION", usage: "quiet time for --idle: milliseconds or e.g. 2s (default 1000ms)"},
				{name: "timeout", kind: valueFlag, value: "DURATION", usage: "give up after this: seconds or e.g. 90s, 5m (default 300s)"},
				{name: "any", kind: boolFlag, usage: "watch every matching pane; done when one of them matches"},
				{name: "all", kind: boolFlag, usage: "watch every matching pane; done when all of them have matched"},
				{name: "from-start", kind: boolFlag, usage: "count the text already in the pane too (for a pane you just started)"},
			},
			details: "Only output that appears after wait starts counts: text already in the pane never\n" +
				"satisfies it, unless --from-start is given. The pattern uses Go's regexp syntax; ^ and $ anchor to each line.\n" +
				"Without --any or --all the target must match exactly one pane. With --idle, a\n" +
				"--pattern also ends the wait when it appears. The server pushes output to wait, so\n" +
				"a match is seen within milliseconds. Prints the server's result as JSON; on timeout\n" +
				"exits 4.\n\n" + targetHelp,
			run: runWait,
		},
		{
			name: "watch", interruptible: true, synopsis: "[--surface <target>] [--type TYPE]...",
			summary: "print the server's event stream as JSON lines until interrupted",
			flags: []flagSpec{
				{name: "surface", kind: valueFlag, value: "<target>", usage: "only events of this pane"},
				{name: "type", kind: listFlag, value: "TYPE", usage: "only events of this type, e.g. surface_changed (repeatable)"},
			},
			details: "Every frame is printed as it arrives, one JSON object per line, including the\n" +
				"subscribed acknowledgement, heartbeats and dropped markers. Ends with exit 0 on\n" +
				"Ctrl-C or when the server closes the stream; exits 3 when it cannot connect.\n\n" + targetHelp,
			run: runWatch,
		},
		{
			name: "ps", synopsis: "[--json]",
			summary: "list the coding agents running in any pane",
			flags:   []flagSpec{{name: "json", kind: boolFlag, usage: "print fleet.list's result as JSON instead of a table"}},
			details: "When the server counts the agents' usage, TOKENS and COST are what the agent's\n" +
				"session in its pane used (- where unknown; see paneflow usage).\n",
			run: runPs,
		},
		{
			name: "status", synopsis: "<target> [--json]",
			summary: "print the state of the agent in a pane",
			params:  []string{"<target>"},
			flags:   []flagSpec{{name: "json", kind: boolFlag, usage: "print surface.status's whole result as JSON"}},
			details: "Prints \"<state> (<tool>)\", or just the state when no agent is known, the\n" +
				"agent's message, if any, on a second line, and the tokens (and cost) its session and\n" +
				"last turn used, when known, on the last.\n\n" + targetHelp,
			run: runStatus,
		},
	}
	verbs = append(verbs, usageVerb(), upVerb(), flowVerb(), trustVerb(), untrustVerb(), historyVerb(), replayVerb(), killServerVerb(), reviewVerb(), checksVerb(), landVerb(), webVerb())
}

// humanFlag is the --human flag of the verbs that have a table form.
var humanFlag = flagSpec{name: "human", kind: boolFlag, usage: "print a table instead of JSON"}

// paneFlags are the flags new and split share to describe the pane they
// create; nameUsage says what --name names.
func paneFlags(nameUsage string) []flagSpec {
	return []flagSpec{
		{name: "name", kind: valueFlag, value: "NAME", usage: nameUsage},
		{name: "cwd", kind: valueFlag, value: "DIR", usage: "the pane's working directory (~ and relative paths resolved here)"},
		{name: "command", kind: valueFlag, value: "CMD", usage: "a shell command line to run in the pane instead of a shell"},
		{name: "env", kind: listFlag, value: "KEY=VALUE", usage: "an environment variable for the pane's program (repeatable)"},
	}
}

// targetHelp explains target selectors in the verbs' help texts.
const targetHelp = "Targets (<target>, --target, --match, --surface):\n" +
	"  123             the pane with that surface_id\n" +
	"  cmdline:TEXT    panes whose foreground command contains TEXT (any case)\n" +
	"  cwd:PATH        panes whose working directory is PATH or below it\n" +
	"                  (~ and relative paths are resolved first)\n" +
	"  NAME            the pane with that name (any case), else the names starting with it\n" +
	"A target that matches no pane, or several where one is needed, exits with code 3.\n"

// connect returns a caller with the default per-call timeout.
func (s *session) connect() (caller, error) { return s.dial(0) }

// target resolves the verb's first positional argument to one surface.
func (s *session) target(ctx context.Context, c caller, in *input) (surfaceInfo, error) {
	return s.resolveOne(ctx, c, in.args[0])
}

// simple resolves the target, calls method with surface_id plus extra
// params, and prints the result.
func (s *session) simple(ctx context.Context, in *input, method string, extra map[string]any) error {
	c, err := s.connect()
	if err != nil {
		return err
	}
	t, err := s.target(ctx, c, in)
	if err != nil {
		return err
	}
	p := map[string]any{"surface_id": t.ID}
	for k, v := range extra {
		p[k] = v
	}
	raw, err := call(ctx, c, method, p)
	if err != nil {
		return err
	}
	return s.printRaw(raw)
}

func runLs(ctx context.Context, s *session, in *input) error {
	c, err := s.connect()
	if err != nil {
		return err
	}
	raw, err := call(ctx, c, "surface.list", emptyParams)
	if err != nil {
		return err
	}
	if !in.bool("human") {
		return s.printRaw(raw)
	}
	var l surfaceList
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("surface.list: unexpected result from the server: %v", err)
	}
	if len(l.Surfaces) == 0 {
		return writeLines(s.stdout, []string{"(no surfaces)"})
	}
	teams := slices.ContainsFunc(l.Surfaces, func(x surfaceInfo) bool { return x.Team != "" || x.Teammate != "" })
	if teams {
		return writeLines(s.stdout, lsTeamLines(l.Surfaces))
	}
	lines := []string{fmt.Sprintf("%4s  %-20s %-24s %s", "ID", "NAME", "CMD", "CWD")}
	for _, x := range l.Surfaces {
		row := fmt.Sprintf("%4d  %-20s %-24s %s", x.ID, vis.String(x.Name), vis.String(deref(x.Cmd)), vis.String(deref(x.Cwd)))
		lines = append(lines, strings.TrimRight(row, " "))
	}
	return writeLines(s.stdout, lines)
}

func runRead(ctx context.Context, s *session, in *input) error {
	extra := map[string]any{}
	for _, name := range []string{"lines", "offset"} {
		if v, ok := in.str(name); ok {
			n, err := parseCount(in.verb, "--"+name, v)
			if err != nil {
				return err
			}
			extra[name] = n
		}
	}
	if in.bool("raw") {
		extra["fenced"] = false
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	raw, err := s.callTarget(ctx, c, in.args[0], "surface.read", extra, nil)
	if err != nil {
		return err
	}
	if in.bool("json") {
		return s.printRaw(raw)
	}
	text, err := readText(raw)
	if err != nil {
		return fmt.Errorf("surface.read: unexpected result from the server: %v", err)
	}
	_, err = s.stdout.Write(text)
	return err
}

// readText returns the text member of a surface.read result, decoded the
// way encoding/json would into a string field (a missing or null text is
// ""), with one fast pass instead of its two slow ones: this is most of
// the client's own work in `paneflow read`.
func readText(raw json.RawMessage) ([]byte, error) {
	var text []byte
	err := jsonscan.Members(raw, func(key string, value []byte) {
		if strings.EqualFold(key, "text") {
			text = value
		}
	})
	if err != nil || text == nil || string(text) == "null" {
		return nil, err
	}
	return jsonscan.AppendString(make([]byte, 0, len(text)), text) // the text is never longer than its literal
}

func runSearch(ctx context.Context, s *session, in *input) error {
	if in.bool("all") {
		return runSearchAll(ctx, s, in)
	}
	for _, f := range []string{"regex", "case", "json"} {
		if in.has(f) {
			return in.verb.usageErrorf("--%s goes with --all", f)
		}
	}
	p := map[string]any{"pattern": in.args[1]}
	if v, ok := in.str("max"); ok {
		n, err := parseCount(in.verb, "--max", v)
		if err != nil {
			return err
		}
		p["max_matches"] = n
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	t, err := s.target(ctx, c, in)
	if err != nil {
		return err
	}
	p["surface_id"] = t.ID
	var res struct {
		Matches []struct {
			Line int64  `json:"line"`
			Text string `json:"text"`
		} `json:"matches"`
	}
	raw, err := callInto(ctx, c, "surface.search", p, &res)
	if err != nil {
		return err
	}
	if !in.bool("human") {
		return s.printRaw(raw)
	}
	lines := make([]string, len(res.Matches))
	for i, m := range res.Matches {
		lines[i] = fmt.Sprintf("%d: %s", m.Line, m.Text)
	}
	return writeLines(s.stdout, lines)
}

// paneParams collects --cwd, --command and --env (shared by new and split)
// into p. --cwd is expanded and made absolute here.
func (s *session) paneParams(in *input, p map[string]any) error {
	if cwd, ok := in.str("cwd"); ok {
		if cwd == "" {
			return in.verb.usageErrorf("--cwd must not be empty")
		}
		abs, err := s.absPath(cwd)
		if err != nil {
			return err
		}
		p["cwd"] = abs
	}
	if cmd, ok := in.str("command"); ok {
		p["command"] = cmd
	}
	env, err := parseEnv(in.verb, in.list("env"))
	if err != nil {
		return err
	}
	if env != nil {
		p["env"] = env
	}
	return nil
}

func runNew(ctx context.Context, s *session, in *input) error {
	p := map[string]any{}
	if name, ok := in.str("name"); ok {
		p["name"] = name
	}
	if err := s.paneParams(in, p); err != nil {
		return err
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	raw, err := call(ctx, c, "workspace.create", p)
	if err != nil {
		return err
	}
	return s.printRaw(raw)
}

func runSelect(ctx context.Context, s *session, in *input) error {
	idx, err := parseCount(in.verb, "<index>", in.args[0])
	if err != nil {
		return err
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	raw, err := call(ctx, c, "workspace.select", map[string]any{"index": idx})
	if err != nil {
		return err
	}
	return s.printRaw(raw)
}

// splitDirections maps split's direction argument to the wire value.
var splitDirections = map[string]string{
	"h": "horizontal", "horizontal": "horizontal",
	"v": "vertical", "vertical": "vertical",
}

func runSplit(ctx context.Context, s *session, in *input) error {
	dir, ok := splitDirections[strings.ToLower(in.args[0])]
	if !ok {
		return in.verb.usageErrorf("direction must be h, horizontal, v or vertical, got '%s'", in.args[0])
	}
	p := map[string]any{"direction": dir}
	if name, ok := in.str("name"); ok {
		p["label"] = name
	}
	if err := s.paneParams(in, p); err != nil {
		return err
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	// The selector is resolved before the mutating call, so a bad target
	// never splits the wrong pane.
	if sel, ok := in.str("target"); ok {
		t, err := s.resolveOne(ctx, c, sel)
		if err != nil {
			return err
		}
		p["surface_id"] = t.ID
	}
	raw, err := call(ctx, c, "surface.split", p)
	if err != nil {
		return err
	}
	return s.printRaw(raw)
}

func runFocus(ctx context.Context, s *session, in *input) error {
	return s.simple(ctx, in, "surface.focus", nil)
}

func runClose(ctx context.Context, s *session, in *input) error {
	return s.simple(ctx, in, "surface.close", nil)
}

func runReopen(ctx context.Context, s *session, _ *input) error {
	c, err := s.connect()
	if err != nil {
		return err
	}
	raw, err := call(ctx, c, proto.MethodWorkspaceReopen, emptyParams)
	if err != nil {
		return err
	}
	return s.printRaw(raw)
}

func runResize(ctx context.Context, s *session, in *input) error {
	cols, rows, err := parseSize(in.verb, in.args[1])
	if err != nil {
		return err
	}
	return s.simple(ctx, in, "surface.resize", map[string]any{"cols": cols, "rows": rows})
}

func runRename(ctx context.Context, s *session, in *input) error {
	name := in.args[1]
	if strings.TrimSpace(name) == "" {
		return in.verb.usageErrorf("the new name must not be empty")
	}
	return s.simple(ctx, in, "surface.rename", map[string]any{"new_name": name})
}

func runPs(ctx context.Context, s *session, in *input) error {
	c, err := s.connect()
	if err != nil {
		return err
	}
	var res struct {
		Agents []struct {
			PID         *int64             `json:"pid"`
			Tool        *string            `json:"tool"`
			State       *string            `json:"state"`
			Workspace   *int               `json:"workspace"`
			SurfaceName *string            `json:"surface_name"`
			Team        string             `json:"team"`
			Teammate    string             `json:"teammate"`
			TeamName    string             `json:"team_name"`
			Usage       *proto.UsageStatus `json:"usage"`
		} `json:"agents"`
	}
	raw, err := callInto(ctx, c, "fleet.list", emptyParams, &res)
	if err != nil {
		return err
	}
	if in.bool("json") {
		return s.printRaw(raw)
	}
	if len(res.Agents) == 0 {
		return writeLines(s.stdout, []string{"(no agents)"})
	}
	// The session's tokens and cost, in columns of their own when the
	// server counts any agent's.
	withUsage := false
	for _, a := range res.Agents {
		withUsage = withUsage || a.Usage != nil
	}
	usageCols := func(u *proto.UsageStatus) string {
		if !withUsage {
			return ""
		}
		if u == nil {
			return fmt.Sprintf(" %10s %9s", "-", "-")
		}
		return fmt.Sprintf(" %10d %9s", u.Session.Total, costText(u.Session))
	}
	head := fmt.Sprintf("%7s %-10s %-18s %2s", "PID", "TOOL", "STATE", "WS")
	if withUsage {
		head += fmt.Sprintf(" %10s %9s", "TOKENS", "COST")
	}
	lines := []string{head + " PANE"}
	for _, a := range res.Agents {
		pid := "-"
		if a.PID != nil {
			pid = strconv.FormatInt(*a.PID, 10)
		}
		ws := 0
		if a.Workspace != nil {
			ws = *a.Workspace
		}
		line := fmt.Sprintf("%7s %-10s %-18s %2d%s %s", pid, vis.String(deref(a.Tool)), vis.String(deref(a.State)), ws, usageCols(a.Usage), vis.String(orDash(a.SurfaceName)))
		if t := teamLabel(shownTeam(a.Team, a.TeamName), a.Teammate); t != "" {
			line += "  [" + vis.String(t) + "]"
		}
		lines = append(lines, line)
	}
	return writeLines(s.stdout, lines)
}

func runStatus(ctx context.Context, s *session, in *input) error {
	c, err := s.connect()
	if err != nil {
		return err
	}
	t, err := s.target(ctx, c, in)
	if err != nil {
		return err
	}
	var res struct {
		State   string             `json:"state"`
		Tool    *string            `json:"tool"`
		Message *string            `json:"message"`
		Usage   *proto.UsageStatus `json:"usage"`
	}
	raw, err := callInto(ctx, c, "surface.status", map[string]any{"surface_id": t.ID}, &res)
	if err != nil {
		return err
	}
	if in.bool("json") {
		return s.printRaw(raw)
	}
	first := res.State
	if res.Tool != nil && *res.Tool != "" {
		first += " (" + *res.Tool + ")"
	}
	lines := []string{first}
	if res.Message != nil && *res.Message != "" {
		lines = append(lines, *res.Message)
	}
	if u := usageLine(res.Usage); u != "" {
		lines = append(lines, u)
	}
	return writeLines(s.stdout, lines)
}
