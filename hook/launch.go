package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"slices"
)

// LaunchGroup is one matcher group a launch shim puts under hooks.<Event>
// of a hooks-shaped JSON config (Claude Code's and Codex's
// {"hooks":{"Event":[{…"hooks":[{"type":"command",…}]}]}}, which Gemini CLI
// shares). Group is compact JSON; it should carry "_paneflow_managed": true
// or run paneflow-ai-hook, so that [RemoveLaunchGroups] recognizes it.
type LaunchGroup struct {
	Event string
	Group json.RawMessage
}

// LaunchEdit is what [AddLaunchGroups] or [RemoveLaunchGroups] did to a
// file.
type LaunchEdit struct {
	// Changed is set when the file was written (or deleted).
	Changed bool
	// Created is set when AddLaunchGroups created the file.
	Created bool
	// Deleted is set when RemoveLaunchGroups deleted the file because
	// nothing but an empty object was left.
	Deleted bool
	// Skipped lists events whose hooks value is not an array: they are
	// left alone, without our group.
	Skipped []string
	// Old is what AddLaunchGroups replaced: the file's bytes before the
	// write, when it existed and was changed (the caller keeps them to put
	// back; no backup file is written).
	Old []byte
	// New is what AddLaunchGroups wrote, when Changed.
	New []byte
}

// AddLaunchGroups puts groups into the config at path with the rules of
// the persistent installer: any group of ours already there is removed
// first (so a stale path is healed and a second call changes nothing), a
// file that is not a JSON object, or whose "hooks" is not an object, is a
// *[ParseError] and stays untouched, byte for byte, and a changed file is
// replaced atomically, keeping its mode. The file is in a project, which
// may be an untrusted repository: a symlink at path is a *[SymlinkError]
// and nothing is read or written through it, and no backup is left next to
// the file (the old bytes are returned in LaunchEdit.Old instead). A
// missing file (and its directory) is created with mode 0600.
func AddLaunchGroups(path string, groups []LaunchGroup) (LaunchEdit, error) {
	in := &Installer{SettingsPath: path, launch: true}
	f, err := in.load()
	if err != nil {
		return LaunchEdit{}, err
	}
	ours := map[string]bool{}
	for _, g := range groups {
		ours[g.Event] = true
	}
	hooks, _, firstAt := stripOurs(f.hooks, func(event string) bool { return !ours[event] })
	var res LaunchEdit
	for _, g := range groups {
		raw := hooks.get(g.Event)
		if raw == nil {
			hooks.set(g.Event, encodeArray([]json.RawMessage{g.Group}))
			continue
		}
		arr, ok := parseArray(raw)
		if !ok {
			res.Skipped = append(res.Skipped, g.Event)
			continue
		}
		pos, ok := firstAt[g.Event]
		if !ok || pos > len(arr) {
			pos = len(arr)
		}
		firstAt[g.Event] = pos + 1 // a second group for the same event goes after the first
		hooks.set(g.Event, encodeArray(slices.Insert(arr, pos, g.Group)))
	}
	f.root.set("hooks", hooks.encode())
	out := f.root.encode()
	if f.exists && bytes.Equal(out, compactOf(f.data)) {
		return res, nil
	}
	if err := in.save(f, out); err != nil {
		return LaunchEdit{}, err
	}
	res.Changed, res.Created, res.New = true, !f.exists, pretty(out)
	if f.exists {
		res.Old = f.data
	}
	return res, nil
}

// RemoveLaunchGroups removes every group of ours (marked, or a handler
// running paneflow-ai-hook) from every event of the config at path, then
// the event arrays and the "hooks" object that became empty. When the
// file is left as an empty object and deleteIfEmpty is set, the file is
// deleted; otherwise it is replaced atomically, without a backup (the
// user's own content is unchanged). A missing file, or one with nothing
// of ours, is not written. A file we cannot parse is a *[ParseError], a
// symlink a *[SymlinkError]; both stay untouched.
func RemoveLaunchGroups(path string, deleteIfEmpty bool) (LaunchEdit, error) {
	in := &Installer{SettingsPath: path, launch: true}
	f, err := in.load()
	if err != nil {
		return LaunchEdit{}, err
	}
	if !f.exists {
		return LaunchEdit{}, nil
	}
	hooks, removed, _ := stripOurs(f.hooks, func(string) bool { return true })
	if removed == 0 {
		return LaunchEdit{}, nil
	}
	if len(hooks) == 0 {
		f.root.del("hooks")
	} else {
		f.root.set("hooks", hooks.encode())
	}
	if len(f.root) == 0 && deleteIfEmpty {
		if err := os.Remove(f.target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return LaunchEdit{}, err
		}
		return LaunchEdit{Changed: true, Deleted: true}, nil
	}
	if err := in.writeAtomic(f.target, pretty(f.root.encode()), f.mode); err != nil {
		return LaunchEdit{}, err
	}
	return LaunchEdit{Changed: true}, nil
}

// OnlyLaunchGroups reports whether the config at path holds groups of
// ours and nothing else, so that [RemoveLaunchGroups] would leave an
// empty object: a file a launch created and did not get to remove. A
// missing or unparsable file, or one with anything of the user's, is
// false.
func OnlyLaunchGroups(path string) bool {
	f, err := (&Installer{SettingsPath: path, launch: true}).load()
	if err != nil || !f.exists {
		return false
	}
	hooks, removed, _ := stripOurs(f.hooks, func(string) bool { return true })
	return removed > 0 && len(hooks) == 0 && len(f.root) == 1 && f.root.get("hooks") != nil
}

// LaunchHookGroup returns the matcher group a launch shim writes for
// event in Claude Code's and Codex's format: marked as ours, one command
// handler running hookPath with event, timeout 5 s — the shape
// [Installer.Setup] writes, so each recognizes the other's.
func LaunchHookGroup(hookPath, event, goos string) json.RawMessage {
	return (&Installer{HookPath: hookPath, GOOS: goos}).group(event)
}

// UserHooksProgram returns the first paneflow-ai-hook program that the
// persistent hooks in the Claude settings file at path run, and whether
// that program exists as a regular file: when it does, the persistent
// install is live and a launch shim must not add hooks of its own (Claude
// Code would run both). A missing file gives "", false, nil.
func UserHooksProgram(path string) (program string, exists bool, err error) {
	res, err := (&Installer{SettingsPath: path}).Status()
	if err != nil {
		return "", false, err
	}
	for _, p := range res.Programs {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true, nil
		}
	}
	if len(res.Programs) > 0 {
		return res.Programs[0], false, nil
	}
	return "", false, nil
}

// EnvHTTPToken is the variable the launch shim gives Claude Code the
// secret of the server's http-hook endpoint in (package hookhttp): the
// hooks' Authorization header interpolates it (allowedEnvVars), so the
// secret never appears in an argv.
const EnvHTTPToken = "PANEFLOW_HOOK_TOKEN"

// EnvHTTPURL is the variable the launch shim gives opencode the URL of
// the server's http-hook endpoint in: the shim's plugin posts its events
// there with fetch() (the secret in EnvHTTPToken), no process per event,
// and runs the hook program only when the post cannot be made.
const EnvHTTPURL = "PANEFLOW_HOOK_URL"

// HTTPHookMark is the header every http hook sends with the value "1": no
// web page can send a custom header without a CORS preflight, which the
// endpoint refuses.
const HTTPHookMark = "X-Paneflow-Hook"

// HTTPHookQuery maps the query parameters of an http hook's URL to the
// environment variables a command hook reads them from, for the
// endpoint to map the payload with as [Map]'s env. The event is the
// parameter "event". The launch shim writes only the tool there; the
// pane and the session key come in [HTTPHookHeaders].
var HTTPHookQuery = map[string]string{
	"surface":   EnvSurfaceID,
	"workspace": EnvWorkspaceID,
	"tool":      EnvTool,
	"pid":       EnvPID,
}

// HTTPHookHeaders maps the headers of an http hook to the environment
// variables whose values they carry: Claude Code interpolates each from
// the environment of the process that posts (it lists them in
// allowedEnvVars), as a command hook would read them. So a teammate of
// an agent team, which Claude Code starts in its own pane with the
// lead's --settings, posts with its own pane's ids, not the lead's. An
// empty header (the variable unset) counts as absent; a header wins
// over the same id in the query.
var HTTPHookHeaders = map[string]string{
	"X-Paneflow-Surface":   EnvSurfaceID,
	"X-Paneflow-Workspace": EnvWorkspaceID,
	"X-Paneflow-Pid":       EnvPID,
}

// HTTPHookGroup is the matcher group of an http hook for event: a POST
// of the payload to endpoint (http://127.0.0.1:PORT/hook) with the event
// and ids in the query, the pane's ids in [HTTPHookHeaders] and the
// secret in EnvHTTPToken, all three interpolated from the posting
// process's environment. ids maps HTTPHookQuery's parameters to their
// values.
func HTTPHookGroup(endpoint, event string, ids map[string]string) json.RawMessage {
	q := url.Values{"event": {event}}
	for k, v := range ids {
		if _, ok := HTTPHookQuery[k]; ok && v != "" {
			q.Set(k, v)
		}
	}
	headers := map[string]string{"Authorization": "Bearer ${" + EnvHTTPToken + "}", HTTPHookMark: "1"}
	allowed := []string{EnvHTTPToken}
	for h, env := range HTTPHookHeaders {
		headers[h] = "${" + env + "}"
		allowed = append(allowed, env)
	}
	slices.Sort(allowed)
	h := map[string]any{
		"type": "http", "url": endpoint + "?" + q.Encode(), "timeout": hookTimeout,
		"headers": headers, "allowedEnvVars": allowed,
	}
	hooks, _ := json.Marshal([]any{h})
	return json.RawMessage(`{"` + managedKey + `":true,"hooks":` + string(hooks) + `}`)
}
