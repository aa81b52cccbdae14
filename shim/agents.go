package shim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/paneflow-go/paneflow/hook"
)

// hookGroup is one matcher group for hooks.<Event>.
type hookGroup = hook.LaunchGroup

func addGroups(path string, groups []hookGroup) (hook.LaunchEdit, error) {
	return hook.AddLaunchGroups(path, groups)
}

func removeGroups(path string, deleteIfEmpty bool) (hook.LaunchEdit, error) {
	return hook.RemoveLaunchGroups(path, deleteIfEmpty)
}

// CodexEvents are the Codex hook events a launch installs, each running
// paneflow-ai-hook with the same name.
var CodexEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Stop"}

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

func codexGroups(l Launch) []hookGroup {
	var gs []hookGroup
	for _, ev := range CodexEvents {
		gs = append(gs, hookGroup{Event: ev, Group: hook.LaunchHookGroup(l.HookPath, ev, l.GOOS)})
	}
	return gs
}

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
	in.Args = append([]string{"--settings", ClaudeSettings(l.HookPath, l.GOOS)}, l.Args...)
	in.Hooked = true
}

// ClaudeSettings is the --settings value a Claude launch gets: a hooks
// object with our group for each of [hook.ClaudeEvents].
func ClaudeSettings(hookPath, goos string) string {
	var b strings.Builder
	b.WriteString(`{"hooks":{`)
	for i, ev := range hook.ClaudeEvents {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:[%s]", ev, hook.LaunchHookGroup(hookPath, ev, goos))
	}
	b.WriteString(`}}`)
	return b.String()
}

// codexConfigPath is Codex's user config: $CODEX_HOME/config.toml, else
// ~/.codex/config.toml.
func codexConfigPath(l Launch) string {
	if h := l.Getenv("CODEX_HOME"); h != "" {
		return filepath.Join(h, "config.toml")
	}
	return filepath.Join(l.Home, ".codex", "config.toml")
}

// The Codex feature flag. Our lines end with the marker comment, which is
// how they are found again.
var (
	codexFlagRE     = regexp.MustCompile(`(?m)^[ \t]*(?:features\.)?(?:codex_)?hooks[ \t]*=[ \t]*(true|false)\b`)
	codexFeaturesRE = regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*features[ \t]*\][ \t]*(?:#.*)?$`)
)

const (
	codexFlagLine    = "codex_hooks = true # " + managedMarker
	codexFeatureHead = "[features] # " + managedMarker
)

// codexFeature turns on Codex's hooks feature in its config.toml for the
// launch, under the registry's lock: nothing when the user has set the
// flag (if it is false, the launch gets no hooks), our line under an
// existing [features] table, else a [features] table of ours at the end.
func (in *Injection) codexFeature(reg registry, path string) bool {
	var off bool
	err := reg.acquire(path, func(u *users) error {
		data, err := os.ReadFile(path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		text := string(data)
		if m := codexFlagRE.FindStringSubmatch(text); m != nil {
			if m[1] == "false" {
				off = true
			}
			if strings.Contains(text, codexFlagLine) {
				u.Added = true // ours, from an earlier launch
			}
			return nil // the user's flag, or ours already
		}
		var out string
		if loc := codexFeaturesRE.FindStringIndex(text); loc != nil {
			out = text[:loc[1]] + "\n" + codexFlagLine + text[loc[1]:]
		} else {
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			out = text + codexFeatureHead + "\n" + codexFlagLine + "\n"
		}
		var created []string
		if !exists {
			if created, err = mkdirAllRecord(filepath.Dir(path)); err != nil {
				return err
			}
		}
		perm := fs.FileMode(0o600)
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
		if err := writeAtomic(path, strings.NewReader(out), perm); err != nil {
			removeEmptyDirs(created)
			return err
		}
		u.Added = true
		u.CreatedFile = u.CreatedFile || !exists
		u.CreatedDirs = append(u.CreatedDirs, created...)
		return nil
	})
	if err != nil {
		in.warnf("codex hooks feature not enabled in %s: %v", path, err)
		return false
	}
	in.cleanups = append(in.cleanups, func() error {
		return reg.release(path, func(u *users) error {
			if !u.Added {
				return nil
			}
			return removeCodexFeature(path, u.CreatedFile, u.CreatedDirs)
		})
	})
	if off {
		in.warnf("%s sets the codex hooks feature to false; no hooks for this launch", path)
		return false
	}
	return true
}

// removeCodexFeature removes our marked lines from config.toml, and the
// file (and directories) we created when nothing else is left.
func removeCodexFeature(path string, createdFile bool, createdDirs []string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	kept := slices.DeleteFunc(slices.Clone(lines), func(l string) bool {
		t := strings.TrimRight(l, "\r\n")
		return t == codexFlagLine || t == codexFeatureHead
	})
	if len(kept) == len(lines) {
		return nil
	}
	out := strings.Join(kept, "")
	if createdFile && strings.TrimSpace(out) == "" {
		if err := os.Remove(path); err != nil {
			return err
		}
		removeEmptyDirs(createdDirs)
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return writeAtomic(path, strings.NewReader(out), fi.Mode().Perm())
}

// opencodePluginName is the plugin file a launch writes.
const opencodePluginName = "paneflow-status.js"

// OpencodePlugin returns the plugin an opencode launch gets: it runs
// hookPath with opencode's event names (which paneflow-ai-hook maps) and
// a small JSON payload on stdin, in the background, ignoring failures.
func OpencodePlugin(hookPath string) string {
	p, _ := json.Marshal(hookPath)
	return `// ` + managedMarker + `: written by Paneflow's launch shim for this opencode run; it is removed when opencode exits.
import { spawn } from "node:child_process";

const HOOK = ` + string(p) + `;

function send(event, payload) {
  if (!process.env.PANEFLOW_SOCKET_PATH) return;
  try {
    const child = spawn(HOOK, [event], { stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload ?? {}));
  } catch {}
}

export const PaneflowStatus = async () => ({
  "chat.message": async () => send("chat.message", {}),
  "tool.execute.before": async (input) => send("tool.execute.before", { tool_name: input?.tool }),
  "tool.execute.after": async (input) => send("tool.execute.after", { tool_name: input?.tool }),
  event: async ({ event }) => {
    const type = event?.type;
    if (type === "session.idle") send(type, { type });
    else if (type === "permission.asked" || type === "permission.updated")
      send(type, { type, properties: { title: event?.properties?.title } });
  },
});
`
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
