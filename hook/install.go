package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
)

// HookBinary is the name of the hook program (plus ".exe" on Windows).
const HookBinary = "paneflow-ai-hook"

// managedKey marks a matcher group as Paneflow's, in our configs and in the
// launch shim's (spec conductor.md §6.1, §7).
const managedKey = "_paneflow_managed"

// hookTimeout is the timeout, in seconds, written into each Claude hook
// (spec limits.md).
const hookTimeout = 5

// Outcome is what Setup or Uninstall did.
type Outcome string

// The outcomes of Setup and Uninstall.
const (
	Installed      Outcome = "installed"       // Setup added hooks to a file that had none of ours
	Updated        Outcome = "updated"         // Setup replaced hooks of ours that were stale or incomplete
	AlreadyCurrent Outcome = "already current" // Setup found every hook current and wrote nothing
	Removed        Outcome = "removed"         // Uninstall removed hooks of ours
	NothingToDo    Outcome = "nothing to do"   // Uninstall found none of ours and wrote nothing
)

// State is what Status found.
type State string

// The states Status reports.
const (
	StateInstalled    State = "installed"     // every event has our current hook
	StateStale        State = "stale"         // some hooks of ours, but not all current (another path, a missing event)
	StateNotInstalled State = "not installed" // none of ours (or no file)
)

// ParseError reports a settings file we cannot edit safely: not JSON, not
// an object, a duplicated key, or a "hooks" value that is not an object.
// The file is left untouched.
type ParseError struct {
	Path string
	Err  error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s: %v; left untouched, fix it by hand", e.Path, e.Err)
}

// Unwrap returns the parse error.
func (e *ParseError) Unwrap() error { return e.Err }

// SymlinkError is the error for a project's config file that is a
// symbolic link: a repository can point it anywhere (a file of the user's
// outside the project), so a launch neither reads nor writes through it.
type SymlinkError struct {
	Path string
}

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s is a symlink (it could point outside the project); not followed", e.Path)
}

// Installer installs, checks and removes Paneflow's persistent hooks in
// Claude Code's user settings (spec conductor.md §7). Its zero value is
// not usable: SettingsPath is required, and HookPath for Setup. An
// Installer holds no state between calls; see the package doc for
// concurrency.
type Installer struct {
	// SettingsPath is the settings file, normally ~/.claude/settings.json.
	// A symlink is followed: the file it points to is replaced (so a
	// dotfiles link stays a link) and the backup goes next to the link,
	// at SettingsPath+".bak". A dangling link is an error.
	SettingsPath string

	// HookPath is the absolute path of paneflow-ai-hook that the hooks
	// run. Status compares the installed commands with it; empty means
	// unknown (every installed hook then counts as stale).
	HookPath string

	// GOOS selects the command form: a POSIX shell command line, or on
	// "windows" the PowerShell wrapper. Empty means runtime.GOOS.
	GOOS string

	// launch is set for the files a launch shim edits inside a project
	// (see [AddLaunchGroups]): a symlink is refused, not followed, and no
	// backup is written next to the file.
	launch bool

	// Test hooks; nil means the real function.
	createTemp func(dir, pattern string) (*os.File, error)
	write      func(f *os.File, data []byte) (int, error)
}

// SetupResult is what Setup did.
type SetupResult struct {
	Outcome Outcome
	// Skipped lists events whose hooks value is not an array: they are
	// left alone, without a Paneflow hook.
	Skipped []string
}

// StatusResult is what Status found.
type StatusResult struct {
	State State
	// Programs are the distinct hook programs our entries run, in file
	// order.
	Programs []string
	// Missing lists the events of ClaudeEvents without a current hook of
	// ours (empty when installed; all of them when not installed).
	Missing []string
}

// Setup installs or refreshes our hooks: every group of ours (marked, or a
// handler whose program is paneflow-ai-hook) is removed from every event,
// and a fresh group is put back for each of ClaudeEvents, where the old one
// was or at the end. Nothing is written when the result equals the file;
// otherwise the old file is first copied to SettingsPath+".bak".
func (in *Installer) Setup() (SetupResult, error) {
	if !filepath.IsAbs(in.HookPath) {
		return SetupResult{}, fmt.Errorf("hook program path %q is not absolute", in.HookPath)
	}
	f, err := in.load()
	if err != nil {
		return SetupResult{}, err
	}
	hooks, removed, firstAt := stripOurs(f.hooks, func(event string) bool { return !slices.Contains(ClaudeEvents, event) })
	var res SetupResult
	for _, ev := range ClaudeEvents {
		group := in.group(ev)
		raw := hooks.get(ev)
		if raw == nil {
			hooks.set(ev, encodeArray([]json.RawMessage{group}))
			continue
		}
		arr, ok := parseArray(raw)
		if !ok {
			res.Skipped = append(res.Skipped, ev)
			continue
		}
		pos, ok := firstAt[ev]
		if !ok {
			pos = len(arr)
		}
		hooks.set(ev, encodeArray(slices.Insert(arr, pos, group)))
	}
	f.root.set("hooks", hooks.encode())
	out := f.root.encode()
	res.Outcome = Installed
	if removed > 0 {
		res.Outcome = Updated
	}
	if f.exists && bytes.Equal(out, compactOf(f.data)) {
		res.Outcome = AlreadyCurrent
		return res, nil
	}
	if err := in.save(f, out); err != nil {
		return SetupResult{}, err
	}
	return res, nil
}

// Uninstall removes every hook of ours from every event, then the event
// arrays and the "hooks" object it emptied. Nothing is written when there
// was none of ours.
func (in *Installer) Uninstall() (Outcome, error) {
	f, err := in.load()
	if err != nil {
		return "", err
	}
	if !f.exists {
		return NothingToDo, nil
	}
	hooks, removed, _ := stripOurs(f.hooks, func(string) bool { return true })
	if removed == 0 {
		return NothingToDo, nil
	}
	if len(hooks) == 0 {
		f.root.del("hooks")
	} else {
		f.root.set("hooks", hooks.encode())
	}
	if err := in.save(f, f.root.encode()); err != nil {
		return "", err
	}
	return Removed, nil
}

// Status reports whether our hooks are installed and current.
func (in *Installer) Status() (StatusResult, error) {
	f, err := in.load()
	if err != nil {
		return StatusResult{}, err
	}
	var res StatusResult
	current := map[string]bool{}
	for _, m := range f.hooks {
		arr, ok := parseArray(m.val)
		if !ok {
			continue
		}
		for _, g := range arr {
			cmds, managed := ourCommands(g)
			for _, c := range cmds {
				if p := commandProgram(c); !slices.Contains(res.Programs, p) {
					res.Programs = append(res.Programs, p)
				}
			}
			if managed && in.HookPath != "" && bytes.Equal(compactOf(g), in.group(m.key)) {
				current[m.key] = true
			}
		}
	}
	for _, ev := range ClaudeEvents {
		if !current[ev] {
			res.Missing = append(res.Missing, ev)
		}
	}
	switch {
	case len(res.Programs) == 0 && len(current) == 0:
		res.State = StateNotInstalled
	case len(res.Missing) == 0 && len(res.Programs) == 1:
		res.State = StateInstalled
	default:
		res.State = StateStale
	}
	return res, nil
}

// group returns our matcher group for event, as compact JSON: the shape
// the launch shim writes too, so each recognizes the other's.
func (in *Installer) group(event string) json.RawMessage {
	cmd := HookCommand(in.HookPath, event, in.goos())
	return json.RawMessage(`{"` + managedKey + `":true,"hooks":[{"type":"command","command":` +
		string(marshalNoEscape(cmd)) + `,"timeout":` + fmt.Sprint(hookTimeout) + `}]}`)
}

func (in *Installer) goos() string {
	if in.GOOS != "" {
		return in.GOOS
	}
	return runtime.GOOS
}

// settingsFile is a loaded settings file.
type settingsFile struct {
	target string      // the file to replace: SettingsPath with symlinks resolved
	exists bool        // the file exists (else data is empty and root is {})
	data   []byte      // its bytes
	mode   fs.FileMode // its permissions, kept when it is replaced
	root   object      // its top-level object
	hooks  object      // its "hooks" object ({} when absent)
}

// load reads and parses the settings file. A missing file, or one holding
// only white space, is an empty object.
func (in *Installer) load() (*settingsFile, error) {
	if in.SettingsPath == "" {
		return nil, errors.New("no settings path")
	}
	if in.launch {
		if fi, err := os.Lstat(in.SettingsPath); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &SymlinkError{Path: in.SettingsPath}
		}
	}
	c, err := atomicfile.ReadCurrent(in.SettingsPath)
	if err != nil {
		return nil, err
	}
	f := &settingsFile{target: c.Target, exists: c.Exists, data: c.Data, mode: c.Mode, root: object{}, hooks: object{}}
	if len(bytes.TrimSpace(f.data)) == 0 {
		return f, nil
	}
	if f.root, err = parseObject(f.data); err != nil {
		return nil, &ParseError{Path: in.SettingsPath, Err: fmt.Errorf("not a valid JSON object (%v)", err)}
	}
	if raw := f.root.get("hooks"); raw != nil {
		if !isObject(raw) {
			return nil, &ParseError{Path: in.SettingsPath, Err: errors.New(`"hooks" is not a JSON object`)}
		}
		if f.hooks, err = parseObject(raw); err != nil {
			return nil, &ParseError{Path: in.SettingsPath, Err: fmt.Errorf(`"hooks": %v`, err)}
		}
	}
	return f, nil
}

// save writes compact JSON out, pretty-printed, over the settings file:
// first a backup of the old bytes, then the new file atomically. Any
// failure leaves the old file as it was.
func (in *Installer) save(f *settingsFile, out []byte) error {
	if f.exists && !in.launch {
		if err := in.writeAtomic(in.SettingsPath+".bak", f.data, f.mode); err != nil {
			return fmt.Errorf("backing up %s: %w", in.SettingsPath, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(f.target), 0o700); err != nil {
		return err
	}
	if err := in.writeAtomic(f.target, pretty(out), f.mode); err != nil {
		return fmt.Errorf("writing %s: %w", in.SettingsPath, err)
	}
	return nil
}

// writeAtomic replaces path with data, so readers see the old file or
// the new one, never a part (see [atomicfile.Writer]). On failure path is
// untouched.
func (in *Installer) writeAtomic(path string, data []byte, perm fs.FileMode) error {
	w := atomicfile.Writer{CreateTemp: in.createTemp}
	if in.write != nil {
		w.Copy = func(dst *os.File, src io.Reader) (int64, error) {
			n, err := in.write(dst, data)
			return int64(n), err
		}
	}
	return w.Write(path, bytes.NewReader(data), perm)
}

// stripOurs returns hooks without any hook of ours, how many groups or
// handlers it removed, and for each event the array position of its first
// removed group (where Setup puts the fresh one back). An event array that
// becomes empty is deleted when dropEmpty(event) says so, else kept empty.
// Values that are not arrays, and groups we cannot read, are kept as they
// are.
func stripOurs(hooks object, dropEmpty func(event string) bool) (object, int, map[string]int) {
	out := slices.Clone(hooks)
	removed := 0
	firstAt := map[string]int{}
	for _, m := range hooks {
		arr, ok := parseArray(m.val)
		if !ok {
			continue
		}
		kept := make([]json.RawMessage, 0, len(arr))
		n := 0
		for _, g := range arr {
			ng, drop, changed := stripGroup(g)
			if !drop {
				kept = append(kept, ng)
			}
			if changed {
				if _, ok := firstAt[m.key]; !ok {
					firstAt[m.key] = len(kept) // where a dropped group was, or just after a trimmed one
				}
				n++
			}
		}
		if n == 0 {
			continue
		}
		removed += n
		if len(kept) == 0 && dropEmpty(m.key) {
			out.del(m.key)
		} else {
			out.set(m.key, encodeArray(kept))
		}
	}
	return out, removed, firstAt
}

// stripGroup removes what is ours from one matcher group: the whole group
// when it carries our marker, else each handler whose program is
// paneflow-ai-hook (a group left with no handler is dropped).
func stripGroup(g json.RawMessage) (out json.RawMessage, drop, changed bool) {
	if !isObject(g) {
		return g, false, false
	}
	var probe struct {
		Managed json.RawMessage `json:"_paneflow_managed"`
		Hooks   json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(g, &probe) != nil {
		return g, false, false
	}
	if string(probe.Managed) == "true" {
		return nil, true, true
	}
	handlers, ok := parseArray(probe.Hooks)
	if !ok {
		return g, false, false
	}
	kept := handlers[:0:0]
	for _, h := range handlers {
		if !isOurHandler(h) {
			kept = append(kept, h)
		}
	}
	if len(kept) == len(handlers) {
		return g, false, false
	}
	if len(kept) == 0 {
		return nil, true, true
	}
	obj, err := parseObject(g)
	if err != nil {
		return g, false, false // ambiguous (duplicate keys): leave it whole
	}
	obj.set("hooks", encodeArray(kept))
	return obj.encode(), false, true
}

// ourCommands returns the commands of group that run paneflow-ai-hook, and
// whether the group carries our marker.
func ourCommands(g json.RawMessage) (cmds []string, managed bool) {
	var probe struct {
		Managed json.RawMessage `json:"_paneflow_managed"`
		Hooks   []json.RawMessage
	}
	if !isObject(g) || json.Unmarshal(g, &probe) != nil {
		return nil, false
	}
	for _, h := range probe.Hooks {
		if c, ok := handlerCommand(h); ok && isHookProgram(commandProgram(c)) {
			cmds = append(cmds, c)
		}
	}
	return cmds, string(probe.Managed) == "true"
}

// isOurHandler reports whether a hook handler runs paneflow-ai-hook.
func isOurHandler(h json.RawMessage) bool {
	c, ok := handlerCommand(h)
	return ok && isHookProgram(commandProgram(c))
}

// handlerCommand returns the command string of a handler object.
func handlerCommand(h json.RawMessage) (string, bool) {
	var v struct {
		Command string `json:"command"`
	}
	if !isObject(h) || json.Unmarshal(h, &v) != nil || v.Command == "" {
		return "", false
	}
	return v.Command, true
}

// HookCommand returns the command line a config runs for event: the hook
// program's path, shell-quoted when needed, then the event; on Windows
// (goos "windows") the PowerShell wrapper of spec conductor.md §6.1.
func HookCommand(hookPath, event, goos string) string {
	if goos == "windows" {
		p := strings.ReplaceAll(strings.ReplaceAll(hookPath, `\`, "/"), "'", "''")
		return `powershell.exe -NoProfile -ExecutionPolicy Bypass -Command "& '` + p + `' ` + event + `"`
	}
	return shellQuote(hookPath) + " " + event
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("/._-+,:@%=", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// commandProgram returns the program a hook command runs: its first shell
// word, or for the PowerShell wrapper the path after "& ".
func commandProgram(cmd string) string {
	prog := shellWord(cmd)
	switch strings.ToLower(baseName(prog)) {
	case "powershell", "powershell.exe", "pwsh", "pwsh.exe":
		if i := strings.Index(cmd, "& "); i >= 0 {
			return powerShellWord(cmd[i+2:])
		}
	}
	return prog
}

// isHookProgram reports whether path names paneflow-ai-hook.
func isHookProgram(path string) bool {
	b := strings.ToLower(baseName(path))
	return b == HookBinary || b == HookBinary+".exe"
}

// baseName is the last element of a Unix or Windows path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// shellWord returns the first word of a POSIX shell command line, with its
// quotes and backslash escapes removed. It is enough to find the program of
// a hook command; it does not expand anything.
func shellWord(s string) string {
	s = strings.TrimLeft(s, " \t\n")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', ';', '&', '|':
			return b.String()
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return b.String() + s[i+1:]
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// powerShellWord returns the first word of a PowerShell argument list: a
// single-quoted string, in which a doubled quote stands for one, or a bare
// word.
func powerShellWord(s string) string {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, "'") {
		if i := strings.IndexAny(s, " \t\""); i >= 0 {
			return s[:i]
		}
		return s
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			break
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
