package shim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/internal/tomlquote"
	"github.com/paneflow-go/paneflow/mcpinstall"
	"github.com/paneflow-go/paneflow/proto"
)

// hookGroup is one matcher group for hooks.<Event>.
type hookGroup = hook.LaunchGroup

func addGroups(path string, groups []hookGroup) (hook.LaunchEdit, error) {
	return hook.AddLaunchGroups(path, groups)
}

func removeGroups(path string, deleteIfEmpty bool) (hook.LaunchEdit, error) {
	return hook.RemoveLaunchGroups(path, deleteIfEmpty)
}

// GeminiEvents maps the Gemini CLI hook events a launch installs to the
// (Claude-named) event paneflow-ai-hook is run with.
var GeminiEvents = [][2]string{
	{"BeforeAgent", "UserPromptSubmit"},
	{"AfterAgent", "Stop"},
	{"BeforeTool", "PreToolUse"},
	{"AfterTool", "PostToolUse"},
	{"Notification", "Notification"},
}

// geminiTimeoutMS is the timeout of a Gemini hook, in milliseconds.
const geminiTimeoutMS = 5000

// geminiGroups are Gemini's groups: no matcher (every tool, every
// lifecycle event), a named command handler, the timeout in ms.
func geminiGroups(l Launch) []hookGroup {
	var gs []hookGroup
	for _, m := range GeminiEvents {
		handler, _ := json.Marshal(map[string]any{
			"name": "paneflow-status", "type": "command",
			"command": hook.HookCommand(l.HookPath, m[1], l.GOOS), "timeout": geminiTimeoutMS,
		})
		g := `{"` + managedMarker + `":true,"hooks":[` + string(handler) + `]}`
		gs = append(gs, hookGroup{Event: m[0], Group: json.RawMessage(g)})
	}
	return gs
}

// claudeSubcommands are Claude Code's subcommands: they start no session,
// and a --settings in front of them could confuse the parser.
var claudeSubcommands = []string{
	"mcp", "config", "doctor", "update", "upgrade", "install", "migrate-installer",
	"setup-token", "plugin", "plugins", "auth", "api-key",
}

// injectClaude gives Claude Code its hooks: none when the user-scope
// install of `paneflow hooks setup` is live (Claude would run both),
// else --settings with our hooks, which touches no file. A launch that
// brings its own --settings, or runs a subcommand, gets nothing.
func injectClaude(l Launch, in *Injection) {
	dir := l.Getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		dir = filepath.Join(l.Home, ".claude")
	}
	settings := filepath.Join(dir, "settings.json")
	if l.Home != "" || l.Getenv("CLAUDE_CONFIG_DIR") != "" {
		prog, exists, err := hook.UserHooksProgram(settings)
		if err == nil && exists {
			in.Hooked = true
			return
		}
		if err == nil && prog != "" {
			in.warnf("the Paneflow hooks in %s run %s, which is missing (run `paneflow hooks setup`); using per-launch hooks", settings, prog)
		}
	}
	if hasArg(l.Args, "--settings") {
		in.warnf("claude runs with its own --settings; no Paneflow hooks for this launch")
		return
	}
	if len(l.Args) > 0 && slices.Contains(claudeSubcommands, l.Args[0]) {
		return
	}
	value := ClaudeSettings(l.HookPath, l.GOOS)
	if l.HookURL != "" && l.HookToken != "" {
		value = ClaudeHTTPSettings(l.HookURL, map[string]string{"tool": l.Tool})
		in.Env = append(in.Env, hook.EnvHTTPToken+"="+l.HookToken)
	}
	in.Args = append([]string{"--settings", value}, l.Args...)
	in.Hooked = true
}

// ClaudeHTTPSettings is the --settings value of a Claude launch whose
// server offers the http-hook endpoint at url: for each of
// [hook.ClaudeEvents] an http hook posting there with ids in its query
// and the pane's ids and secret from the environment (see
// [hook.HTTPHookGroup]), so no hook runs a process.
func ClaudeHTTPSettings(url string, ids map[string]string) string {
	return claudeHooks(func(ev string) json.RawMessage { return hook.HTTPHookGroup(url, ev, ids) })
}

// ClaudeSettings is the --settings value a Claude launch gets: a hooks
// object with our group for each of [hook.ClaudeEvents].
func ClaudeSettings(hookPath, goos string) string {
	return claudeHooks(func(ev string) json.RawMessage { return hook.LaunchHookGroup(hookPath, ev, goos) })
}

// claudeHooks is a settings object whose hooks hold group(event) for each
// of [hook.ClaudeEvents].
func claudeHooks(group func(event string) json.RawMessage) string {
	var b strings.Builder
	b.WriteString(`{"hooks":{`)
	for i, ev := range hook.ClaudeEvents {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:[%s]", ev, group(ev))
	}
	b.WriteString(`}}`)
	return b.String()
}

// codexTimeout is the timeout of a Codex hook for event, in seconds. It is
// part of the hook's trust hash, so it must be the value Codex normalizes
// to: any 1..600 for most events, at most 3 for Interrupt (Codex 0.169.0
// clamps it, "clamping Interrupt hook timeout to 3s", and hashes the
// clamped value: measured with its app-server's hooks/list).
func codexTimeout(event string) int {
	if event == "Interrupt" {
		return 3
	}
	return 5
}

// codexSessionFlags is the source path Codex gives the config layer that
// `-c key=value` builds (its "session flags"): the first part of the trust
// key of every hook declared that way.
func codexSessionFlags(goos string) string {
	if goos == "windows" {
		return `C:\<session-flags>\config.toml`
	}
	return "/<session-flags>/config.toml"
}

// codexSnake is Codex's snake_case label of a hook event, as in trust keys
// and hashes: "UserPromptSubmit" → "user_prompt_submit".
func codexSnake(event string) string {
	var b strings.Builder
	for i, r := range event {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CodexTrustHash is the hash by which Codex (0.169.0, measured) trusts a
// command hook that is alone in its matcher group and has no matcher:
// "sha256:" and the hex SHA-256 of the compact, key-sorted JSON of
// {"event_name":<snake event>,"hooks":[{"async":false,"command":…,
// "timeout":…,"type":"command"}]}. test/agents proves it against the real
// CLI: a wrong hash makes Codex skip the hook silently.
func CodexTrustHash(event, command string, timeout int) string {
	return codexHash(event, map[string]any{"async": false, "command": command, "timeout": timeout, "type": "command"})
}

// codexHash is the trust hash of a hook whose normalized handler is
// handler, alone in its group, without a matcher (see [CodexTrustHash]).
// An mcp_tool handler normalizes to {"input":…,"server":…,"timeout":…,
// "tool":…,"type":"mcp_tool"} (measured with Codex 0.169.0's app-server
// hooks/list for strings, booleans, arrays and tables in input; an
// integer or a float there hashes otherwise, so [CodexMCPOverrides] puts
// none there).
func codexHash(event string, handler map[string]any) string {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]any{"event_name": codexSnake(event), "hooks": []any{handler}})
	sum := sha256.Sum256([]byte(strings.TrimSuffix(buf.String(), "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CodexOverrides are the `-c` arguments a Codex launch gets: one hooks.<Event>
// override per [hook.CodexEvents] running paneflow-ai-hook, and one hooks.state
// override that trusts exactly these hooks, by their hashes, for this run.
// Nothing is written: the user's config.toml, their own hooks and their
// trust decisions stay as they are (an untrusted hook of theirs still does
// not run), and Codex (0.169.0) merges the session-flags layer's trust
// records with the user's.
func CodexOverrides(hookPath, goos string) []string {
	return codexOverrides(goos, func(ev string, timeout int) (string, map[string]any) {
		cmd := hook.HookCommand(hookPath, ev, goos)
		return fmt.Sprintf("type=\"command\",command=%s,timeout=%d", tomlquote.String(cmd), timeout),
			map[string]any{"async": false, "command": cmd, "timeout": timeout, "type": "command"}
	})
}

// codexMCPPayload are, per event, the fields of Codex's hook input an
// mcp_tool hook forwards (as ${field} placeholders, which Codex 0.169.0
// replaces with the field's value, its type kept): what [hook.Map] reads.
// Each is in that event's input in Codex's schemas, as it must be: a
// placeholder the input lacks fails the hook, and no call is made.
var codexMCPPayload = map[string][]string{
	"SessionStart":      {"session_id", "transcript_path"},
	"UserPromptSubmit":  {"session_id", "transcript_path", "turn_id", "prompt"},
	"PreToolUse":        {"session_id", "transcript_path", "turn_id", "tool_name"},
	"PostToolUse":       {"session_id", "transcript_path", "turn_id", "tool_name"},
	"PermissionRequest": {"session_id", "transcript_path", "turn_id", "tool_name", "tool_input"},
	"Stop":              {"session_id", "transcript_path", "turn_id", "last_assistant_message"},
	"Interrupt":         {"session_id", "transcript_path", "turn_id"},
}

// CodexMCPOverrides are [CodexOverrides] for a Codex whose configured MCP
// bridge (mcpinstall.EntryName) serves the hooks: each hook is an
// mcp_tool hook calling the bridge's [proto.MCPHookTool] with the event,
// the agent's tool name, the session key pid (a string: see [codexHash])
// and the event's payload fields ([codexMCPPayload]); no process starts
// per event. Trusted by hash for this run like the command hooks.
func CodexMCPOverrides(tool string, pid int, goos string) []string {
	p := ""
	if pid > 0 {
		p = strconv.Itoa(pid)
	}
	return codexOverrides(goos, func(ev string, timeout int) (string, map[string]any) {
		payload := map[string]any{}
		var fields []string
		for _, f := range codexMCPPayload[ev] {
			payload[f] = "${" + f + "}"
			fields = append(fields, f+"="+tomlquote.String("${"+f+"}"))
		}
		input := map[string]any{"event": ev, "tool": tool, "pid": p, "payload": payload}
		return fmt.Sprintf("type=\"mcp_tool\",server=%s,tool=%s,timeout=%d,input={event=%s,tool=%s,pid=%s,payload={%s}}",
				tomlquote.String(mcpinstall.EntryName), tomlquote.String(proto.MCPHookTool), timeout,
				tomlquote.String(ev), tomlquote.String(tool), tomlquote.String(p), strings.Join(fields, ",")),
			map[string]any{"input": input, "server": mcpinstall.EntryName, "timeout": timeout, "tool": proto.MCPHookTool, "type": "mcp_tool"}
	})
}

// codexOverrides are the -c arguments of one hook per [hook.CodexEvents],
// handler giving each its TOML inline table (without braces) and its
// normalized form for the trust hash, and the hooks.state override that
// trusts them.
func codexOverrides(goos string, handler func(event string, timeout int) (string, map[string]any)) []string {
	var args, trust []string
	for _, ev := range hook.CodexEvents {
		timeout := codexTimeout(ev)
		table, norm := handler(ev, timeout)
		args = append(args, "-c", fmt.Sprintf("hooks.%s=[{hooks=[{%s}]}]", ev, table))
		key := codexSessionFlags(goos) + ":" + codexSnake(ev) + ":0:0"
		trust = append(trust, fmt.Sprintf("%s={trusted_hash=%s}", tomlquote.String(key), tomlquote.String(codexHash(ev, norm))))
	}
	return append(args, "-c", "hooks.state={"+strings.Join(trust, ",")+"}")
}

// codexNoSession are Codex's subcommands and flags that start no agent
// session: a launch with one of them first gets no hooks.
var codexNoSession = []string{
	"login", "logout", "mcp", "mcp-server", "app-server", "completion", "sandbox", "debug",
	"apply", "features", "help", "-h", "--help", "-V", "--version",
}

// injectCodex gives Codex its hooks for this launch through `-c` overrides
// in front of its arguments (see [CodexOverrides]); a launch that turns
// hooks off, or runs a subcommand that starts no session, gets nothing.
func injectCodex(l Launch, in *Injection) {
	if len(l.Args) > 0 && slices.Contains(codexNoSession, l.Args[0]) {
		return
	}
	for i, a := range l.Args {
		if a == "--" {
			break
		}
		if (a == "-c" || a == "--config") && i+1 < len(l.Args) {
			if v := strings.ReplaceAll(l.Args[i+1], " ", ""); v == "features.hooks=false" || v == "features.codex_hooks=false" {
				in.warnf("codex runs with %s; no Paneflow hooks for this launch", l.Args[i+1])
				in.Reason = "hooks_disabled: codex was started with -c " + l.Args[i+1] + "; start it without that to get Paneflow's states"
				return
			}
		}
	}
	if codexHooksBridge(l) {
		in.Args = append(CodexMCPOverrides(l.Tool, l.PID, l.GOOS), l.Args...)
	} else {
		in.Args = append(CodexOverrides(l.HookPath, l.GOOS), l.Args...)
	}
	in.Hooked = true
}

// codexHooksBridge reports whether the launch's Codex runs our MCP bridge
// in a way that can carry its hooks (mcpinstall.CodexHooksBridge), from
// its user config ($CODEX_HOME/config.toml, else ~/.codex/config.toml).
// A project's .codex/config.toml or the user's own -c arguments are not
// read: a bridge configured only there gets command hooks.
func codexHooksBridge(l Launch) bool {
	dir := l.Getenv("CODEX_HOME")
	if dir == "" {
		if l.Home == "" {
			return false
		}
		dir = filepath.Join(l.Home, ".codex")
	}
	bridges := []string{filepath.Join(filepath.Dir(l.HookPath), mcpinstall.BridgeBinary(l.GOOS))}
	if p, err := mcpinstall.BridgePath(l.Getenv, l.GOOS); err == nil {
		bridges = append(bridges, p)
	}
	ok, _ := mcpinstall.CodexHooksBridge(filepath.Join(dir, "config.toml"), bridges)
	return ok
}

// opencodePostTimeout bounds one of the opencode plugin's posts to the
// http-hook endpoint.
const opencodePostTimeout = 5 * time.Second

// opencodePluginName is the plugin file a launch writes.
const opencodePluginName = "paneflow-status.js"

// EnvOpencodeUsage names the file an opencode launch's plugin appends
// opencode's assistant messages to (its token usage and cost, as its
// message.updated events carry them): opencode 1.18.33 keeps its sessions
// in a SQLite database, which Paneflow does not read. The plugin names the
// file as transcript_path in its hook payloads, so the server follows it
// like the other agents' transcripts.
const EnvOpencodeUsage = "PANEFLOW_OPENCODE_USAGE"

// OpencodePlugin returns the plugin an opencode launch gets: it sends
// opencode's events (hook.OpencodeEvents, which hook.Map maps) with a
// small JSON payload, ignoring failures. With the server's http-hook
// endpoint in $PANEFLOW_HOOK_URL and its secret in $PANEFLOW_HOOK_TOKEN
// (the shim sets both when the server offers it) it POSTs each event
// there with fetch(), one after another in order, as Claude Code's http
// hooks do: no process per event (issue 25: on 2 cores a fleet's hook
// processes were what slowed `paneflow ls`). Without them, or when a post
// cannot be made (no connection), it runs hookPath with the event's name
// and the payload on stdin, in the background. It also appends each
// assistant message whose tokens changed to the file
// $PANEFLOW_OPENCODE_USAGE names (if set), one JSON object a line.
func OpencodePlugin(hookPath string) string {
	p, _ := json.Marshal(hookPath)
	headers, _ := json.Marshal(hook.HTTPHookHeaders)
	return `// ` + managedMarker + `: written by Paneflow's launch shim for this opencode run; it is removed when opencode exits.
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";

const HOOK = ` + string(p) + `;
const HOOK_URL = process.env.` + hook.EnvHTTPURL + ` ?? "";
const HOOK_TOKEN = process.env.` + hook.EnvHTTPToken + ` ?? "";
// Header → the variable whose value it carries: the pane's ids.
const HOOK_HEADERS = ` + string(headers) + `;
const USAGE = process.env.` + EnvOpencodeUsage + ` ?? "";
if (USAGE) {
  try { writeFileSync(USAGE, "", { flag: "a", mode: 0o600 }); } catch {}
}

function run(event, body) {
  try {
    const child = spawn(HOOK, [event], { stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(body);
  } catch {}
}

async function post(event, body) {
  const headers = { "Content-Type": "application/json", "` + hook.HTTPHookMark + `": "1", Authorization: "Bearer " + HOOK_TOKEN };
  for (const [name, env] of Object.entries(HOOK_HEADERS)) {
    if (process.env[env]) headers[name] = process.env[env];
  }
  const url = HOOK_URL + "?" + new URLSearchParams({ event, tool: "opencode" });
  const res = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(` + fmt.Sprint(opencodePostTimeout.Milliseconds()) + `) });
  await res.arrayBuffer();
}

// Posts run one after another, so the server gets the events in order.
let posted = Promise.resolve();

function send(event, payload) {
  if (!process.env.PANEFLOW_SOCKET_PATH) return;
  if (USAGE) payload = { ...(payload ?? {}), transcript_path: USAGE };
  const body = JSON.stringify(payload ?? {});
  if (!HOOK_URL.startsWith("http://127.0.0.1:") || !HOOK_TOKEN) return run(event, body);
  // A post that timed out may have arrived; one that could not connect
  // did not, and the hook program delivers it over the socket instead.
  posted = posted.then(() => post(event, body)).catch((err) => {
    if (err?.name !== "TimeoutError" && err?.name !== "AbortError") run(event, body);
  });
  return posted;
}

// Token usage: each assistant message once its tokens changed (opencode
// updates a message as it streams and when it completes).
const counted = new Map();

function record(info) {
  if (!USAGE || info?.role !== "assistant" || !info.tokens || !info.id) return;
  const line = JSON.stringify({
    id: info.id, sessionID: info.sessionID, role: info.role, modelID: info.modelID, providerID: info.providerID,
    tokens: info.tokens, cost: info.cost, time: info.time,
  });
  const seen = JSON.stringify([info.tokens, info.cost]);
  if (counted.get(info.id) === seen) return;
  counted.set(info.id, seen);
  try { appendFileSync(USAGE, line + "\n"); } catch {}
}

// The assistant's text, for the turn's last_result: roles by message id
// (message.updated) and the text parts of each message (message.part.updated).
const roles = new Map();
const texts = new Map();
let lastAssistant = "";

function track(event) {
  const props = event?.properties ?? {};
  if (event?.type === "message.updated" && props.info?.id) {
    record(props.info);
    roles.set(props.info.id, props.info.role);
    if (props.info.role === "assistant") lastAssistant = props.info.id;
  } else if (event?.type === "message.part.updated" && props.part?.type === "text" && props.part.messageID) {
    const parts = texts.get(props.part.messageID) ?? new Map();
    parts.set(props.part.id ?? "", props.part.text ?? "");
    texts.set(props.part.messageID, parts);
  }
}

function lastText() {
  if (!lastAssistant || roles.get(lastAssistant) !== "assistant") return "";
  return [...(texts.get(lastAssistant)?.values() ?? [])].join("\n").trim();
}

// session_id is opencode's session (its --session <id> resumes it, which
// Paneflow does after a restart).
export const PaneflowStatus = async () => ({
  "chat.message": async (input) => send("chat.message", { session_id: input?.sessionID }),
  "tool.execute.before": async (input) => send("tool.execute.before", { tool_name: input?.tool, session_id: input?.sessionID }),
  "tool.execute.after": async (input) => send("tool.execute.after", { tool_name: input?.tool, session_id: input?.sessionID }),
  event: async ({ event }) => {
    const type = event?.type;
    const session_id = event?.properties?.sessionID;
    track(event);
    if (type === "session.idle") send(type, { type, session_id, last_assistant_message: lastText() });
    else if (type === "permission.asked" || type === "permission.updated")
      send(type, { type, session_id, properties: { title: event?.properties?.title, permission: event?.properties?.permission, patterns: event?.properties?.patterns } });
  },
});
`
}

// opencodeConfigDir gives opencode its plugin in a directory of this
// launch's own, <StateDir>/opencode-<pid>/plugins, named by
// OPENCODE_CONFIG_DIR (which opencode reads in addition to the user's
// config): nothing is written into the project, where opencode would add
// files of its own next to a plugins directory (measured with 1.18.33).
// The directory is removed when the agent exits.
func (in *Injection) opencodeConfigDir(l Launch) bool {
	dir := filepath.Join(l.StateDir, fmt.Sprintf("opencode-%d", l.PID))
	os.RemoveAll(dir) // left by a crashed shim whose pid this one got
	plugins := filepath.Join(dir, "plugins")
	if err := os.MkdirAll(plugins, 0o700); err != nil {
		in.warnf("no opencode plugin for this launch: %v", err)
		return false
	}
	in.cleanups = append(in.cleanups, func() error { return os.RemoveAll(dir) })
	if err := writeAtomic(filepath.Join(plugins, opencodePluginName), strings.NewReader(OpencodePlugin(l.HookPath)), 0o600); err != nil {
		in.warnf("no opencode plugin for this launch: %v", err)
		return false
	}
	in.Env = append(in.Env, "OPENCODE_CONFIG_DIR="+dir, EnvOpencodeUsage+"="+filepath.Join(dir, opencodeUsageName))
	return true
}

// opencodeUsageName is the file, in a launch's own directory, its plugin
// appends token usage to (see [EnvOpencodeUsage]). The server holds it
// open from the first frame that names it, so the launch's cleanup does
// not cut the last lines short.
const opencodeUsageName = "usage.jsonl"

// opencodeUsageDir gives a launch whose plugin is in the project (the
// user set OPENCODE_CONFIG_DIR) a directory of its own for the usage
// file, <StateDir>/opencode-<pid>, removed when the agent exits.
func (in *Injection) opencodeUsageDir(l Launch) {
	if l.StateDir == "" {
		return
	}
	dir := filepath.Join(l.StateDir, fmt.Sprintf("opencode-%d", l.PID))
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		in.warnf("no token usage from this opencode run: %v", err)
		return
	}
	in.cleanups = append(in.cleanups, func() error { return os.RemoveAll(dir) })
	in.Env = append(in.Env, EnvOpencodeUsage+"="+filepath.Join(dir, opencodeUsageName))
}

// opencodePlugin writes our plugin into dir for the launch.
func (in *Injection) opencodePlugin(reg registry, dir string, l Launch) bool {
	path := filepath.Join(dir, opencodePluginName)
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := checkConfigDir(d); err != nil {
			in.warnf("no opencode plugin for this launch: %v", err)
			return false
		}
	}
	content := OpencodePlugin(l.HookPath)
	err := reg.acquire(path, func(u *users) error {
		created, err := mkdirAllRecord(dir)
		if err != nil {
			return err
		}
		fileCreated, err := writeOwnedFile(path, content, managedMarker)
		if err != nil {
			removeEmptyDirs(created)
			return err
		}
		u.CreatedFile = u.CreatedFile || fileCreated
		u.CreatedDirs = append(u.CreatedDirs, created...)
		return nil
	})
	if err != nil {
		in.warnf("no opencode plugin for this launch: %v", err)
		return false
	}
	in.cleanups = append(in.cleanups, func() error {
		return reg.release(path, func(u *users) error {
			if err := removeOwnedFile(path, managedMarker); err != nil {
				return err
			}
			removeEmptyDirs(u.CreatedDirs)
			return nil
		})
	})
	return true
}

// geminiUntrusted returns why Gemini CLI will run no hooks in l.Dir, or ""
// when it will (or cannot tell). Gemini CLI (0.61.0) runs hooks, like MCP
// servers, only in a trusted folder: GEMINI_CLI_TRUST_WORKSPACE=true, folder
// trust turned off (security.folderTrust.enabled false in
// ~/.gemini/settings.json), or ~/.gemini/trustedFolders.json trusting the
// directory (TRUST_FOLDER: it and below; TRUST_PARENT: its parent and
// below; the longest matching path decides, DO_NOT_TRUST distrusts).
func geminiUntrusted(l Launch) string {
	if strings.EqualFold(l.Getenv("GEMINI_CLI_TRUST_WORKSPACE"), "true") {
		return ""
	}
	gemini := filepath.Join(l.Home, ".gemini")
	if data, err := os.ReadFile(filepath.Join(gemini, "settings.json")); err == nil {
		var set struct {
			Security struct {
				FolderTrust struct {
					Enabled *bool `json:"enabled"`
				} `json:"folderTrust"`
			} `json:"security"`
		}
		if json.Unmarshal(data, &set) != nil {
			return "" // JSONC or broken: Gemini decides, we cannot tell
		}
		if e := set.Security.FolderTrust.Enabled; e != nil && !*e {
			return ""
		}
	}
	trusted := false
	best := -1
	if data, err := os.ReadFile(filepath.Join(gemini, "trustedFolders.json")); err == nil {
		var rules map[string]string
		if json.Unmarshal(data, &rules) != nil {
			return ""
		}
		for path, level := range rules {
			base := filepath.Clean(path)
			if level == "TRUST_PARENT" {
				base = filepath.Dir(base)
			}
			if !within(l.Dir, base) || len(base) <= best {
				continue
			}
			best, trusted = len(base), level == "TRUST_FOLDER" || level == "TRUST_PARENT"
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if trusted {
		return ""
	}
	return "untrusted_folder: Gemini CLI runs no hooks in a folder it does not trust; trust " + l.Dir +
		" (Gemini's trust prompt or /permissions, or ~/.gemini/trustedFolders.json) and start gemini again"
}

// within reports whether dir is base or inside it.
func within(dir, base string) bool {
	rel, err := filepath.Rel(base, filepath.Clean(dir))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
