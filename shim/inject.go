package shim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/paneflow-go/paneflow/hook"
)

// Launch describes one agent launch that hooks are injected for.
type Launch struct {
	// Tool is the agent, one of [Tools].
	Tool string
	// Args are the agent's arguments, without argv[0].
	Args []string
	// Dir is the agent's working directory, absolute: project-scope
	// configs go there.
	Dir string
	// HookPath is the absolute path of paneflow-ai-hook the hooks run.
	HookPath string
	// Home is the user's home directory (user-scope configs).
	Home string
	// Getenv reads CODEX_HOME and CLAUDE_CONFIG_DIR; nil means os.Getenv.
	Getenv func(string) string
	// GOOS selects the hook command form; "" means the running system's.
	GOOS string
	// StateDir holds the reference counts of injected files (see the
	// package doc); "" disables counting, so that this launch's cleanup
	// removes the hooks whoever else uses them.
	StateDir string
	// PID is the shim's pid, recorded as a user of each injected file.
	PID int
	// HookURL and HookToken, when HookURL is set, are the server's
	// http-hook endpoint (hooks.endpoint): Claude Code's per-launch hooks
	// and opencode's plugin then POST there instead of running HookPath,
	// and the agent gets HookToken in hook.EnvHTTPToken (opencode the URL
	// in hook.EnvHTTPURL too). Other agents ignore them.
	HookURL, HookToken string
}

// Injection is what [Inject] did for a launch. Its zero value did
// nothing. It is not safe for concurrent use.
type Injection struct {
	// Args are the agent's arguments to run with: Launch.Args, or with
	// Claude's --settings added in front.
	Args []string
	// Hooked reports whether the agent's hooks are in place for this
	// launch (injected now, or installed for the user).
	Hooked bool
	// Warnings say what could not be done and why, for the user.
	Warnings []string
	// Env are "NAME=value" settings the agent runs with, on top of the
	// shim's environment.
	Env []string
	// Reason says, when Hooked is false for a launch of an agent Paneflow
	// integrates, why and what the user can do about it; the shim reports
	// it to the conductor, and surface.status shows it with hooked:false.
	Reason string

	cleanups []func() error // run by Cleanup, last first
}

// Inject puts the hooks of l.Tool in place for one launch: Codex gets -c
// overrides, Gemini CLI a project file, opencode a plugin in a private
// OPENCODE_CONFIG_DIR (a project file when the user set that variable),
// Claude Code --settings unless its user-scope hooks are installed; other
// tools get nothing. Problems are warnings: the agent
// then runs without hooks. [Injection.Cleanup] undoes it.
func Inject(l Launch) *Injection {
	if l.Getenv == nil {
		l.Getenv = os.Getenv
	}
	if l.GOOS == "" {
		l.GOOS = runtime.GOOS
	}
	in := &Injection{Args: l.Args}
	reg := registry{dir: l.StateDir, pid: l.PID, mem: map[string]*users{}}
	switch l.Tool {
	case "claude":
		injectClaude(l, in)
	case "codex":
		injectCodex(l, in)
	case "gemini":
		if why := geminiUntrusted(l); why != "" {
			in.Reason = why
			break
		}
		in.Hooked = in.hooksFile(reg, filepath.Join(l.Dir, ".gemini"), "settings.json", geminiGroups(l))
	case "opencode":
		if l.Getenv("OPENCODE_CONFIG_DIR") == "" && l.StateDir != "" {
			in.Hooked = in.opencodeConfigDir(l)
		} else {
			if in.Hooked = in.opencodePlugin(reg, filepath.Join(l.Dir, ".opencode", "plugins"), l); in.Hooked {
				in.opencodeUsageDir(l)
			}
		}
		if in.Hooked && l.HookURL != "" && l.HookToken != "" {
			in.Env = append(in.Env, hook.EnvHTTPURL+"="+l.HookURL, hook.EnvHTTPToken+"="+l.HookToken)
		}
	}
	if !in.Hooked && in.Reason == "" && len(in.Warnings) > 0 && slices.Contains([]string{"claude", "codex", "gemini", "opencode"}, l.Tool) {
		in.Reason = "hooks_not_installed: " + in.Warnings[0]
	}
	return in
}

// Cleanup removes what Inject added, when this launch is the last live
// one using it, and returns what it could not remove. Calling it again
// does nothing.
func (in *Injection) Cleanup() []string {
	var warns []string
	for i := len(in.cleanups) - 1; i >= 0; i-- {
		if err := in.cleanups[i](); err != nil {
			warns = append(warns, err.Error())
		}
	}
	in.cleanups = nil
	return warns
}

func (in *Injection) warnf(format string, args ...any) {
	in.Warnings = append(in.Warnings, fmt.Sprintf(format, args...))
}

// checkConfigDir checks that dir may hold our file: it is a real
// directory (not a symlink, which could point outside the project) or
// does not exist yet.
func checkConfigDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink; not touched", dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory; not touched", dir)
	}
	return nil
}

// hooksFile injects groups into the hooks-shaped JSON file dir/name and
// arranges their removal. The file is in the project, which may be a
// repository nobody vetted: a symlink there is refused (it could point at
// a file of the user's outside the project), no backup is left next to it,
// and the last user puts the file's exact old bytes back (see [users]).
func (in *Injection) hooksFile(reg registry, dir, name string, groups []hookGroup) bool {
	path := filepath.Join(dir, name)
	if err := checkConfigDir(dir); err != nil {
		in.warnf("no hooks for this launch: %v", err)
		return false
	}
	err := reg.acquire(path, func(u *users) error {
		before, _, err := readRegular(path)
		if err != nil {
			return err
		}
		created, err := mkdirAllRecord(dir)
		if err != nil {
			return err
		}
		edit, err := addGroups(path, groups)
		if err != nil {
			removeEmptyDirs(created)
			return err
		}
		if len(edit.Skipped) > 0 {
			in.warnf("%s: hooks.%s is not an array; left as it is", path, strings.Join(edit.Skipped, ", hooks."))
		}
		ours := before != nil && u.Wrote == sha256Hex(before)
		switch {
		case edit.Changed:
			if !ours { // the bytes before this edit are the user's
				u.Original, u.Restore = edit.Old, edit.Old != nil
			}
			u.Wrote = sha256Hex(edit.New)
		case !ours: // our groups were there already, put by someone we have no record of
			u.Original, u.Restore = nil, false
			if before != nil {
				u.Wrote = sha256Hex(before)
			}
		}
		u.CreatedFile = u.CreatedFile || edit.Created
		u.CreatedDirs = append(u.CreatedDirs, created...)
		return nil
	})
	if err != nil {
		in.warnf("no hooks for this launch: %v", err)
		return false
	}
	in.cleanups = append(in.cleanups, func() error {
		return reg.release(path, func(u *users) error {
			cur, mode, err := readRegular(path)
			if err != nil {
				return fmt.Errorf("removing our hooks: %v", err)
			}
			if u.Restore && cur != nil && sha256Hex(cur) == u.Wrote {
				if err := writeAtomic(path, bytes.NewReader(u.Original), mode); err != nil {
					return fmt.Errorf("putting %s back: %v", path, err)
				}
				return nil
			}
			edit, err := removeGroups(path, u.CreatedFile)
			if err != nil {
				return fmt.Errorf("removing our hooks: %v", err)
			}
			if edit.Deleted || !u.CreatedFile {
				removeEmptyDirs(u.CreatedDirs)
			}
			return nil
		})
	})
	return true
}

// readRegular returns the bytes and permissions of the regular file at
// path, or nil when there is none. A symlink or any other kind of file is
// an error: a project's config is read only when it is a plain file.
func readRegular(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, nil
	case err != nil:
		return nil, 0, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, 0, &hook.SymlinkError{Path: path}
	case !fi.Mode().IsRegular():
		return nil, 0, fmt.Errorf("%s is not a regular file; not touched", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, fi.Mode().Perm(), nil
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// writeOwnedFile writes content to path, a file wholly ours (it holds
// marker), unless a file without the marker is there.
// A symlink there is refused, not followed.
func writeOwnedFile(path, content, marker string) (created bool, err error) {
	old, _, err := readRegular(path)
	switch {
	case err == nil && old == nil:
		created = true
	case err != nil:
		return false, err
	case !strings.Contains(string(old), marker):
		return false, fmt.Errorf("%s exists and is not Paneflow's; not touched", path)
	case string(old) == content:
		return false, nil
	}
	return created, writeAtomic(path, strings.NewReader(content), 0o644)
}

// removeOwnedFile deletes path if it holds marker.
func removeOwnedFile(path, marker string) error {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !strings.Contains(string(old), marker) {
		return nil
	}
	return os.Remove(path)
}

// ProjectLeftover reports whether the file at path is one a launch writes
// into the project (Gemini CLI's .gemini/settings.json, opencode's
// .opencode/plugins/paneflow-status.js) and holds nothing but Paneflow's
// hooks: what a shim that could not clean up (killed, or still exiting)
// leaves in a worktree. Worktree teardown deletes such files rather than
// keeping the worktree for them (worktree.Leftovers).
func ProjectLeftover(path string) bool {
	dir, name := filepath.Split(path)
	dir = filepath.Clean(dir)
	switch {
	case name == "settings.json" && filepath.Base(dir) == ".gemini":
		return hook.OnlyLaunchGroups(path)
	case name == opencodePluginName && filepath.Base(dir) == "plugins" && filepath.Base(filepath.Dir(dir)) == ".opencode":
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return false
		}
		data, err := os.ReadFile(path)
		return err == nil && string(data) == OpencodePlugin(opencodeHookPath(data))
	}
	return false
}

// opencodeHookPath returns the hook program an opencode plugin of ours
// runs (its HOOK constant), or "".
func opencodeHookPath(plugin []byte) string {
	for line := range strings.Lines(string(plugin)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "const HOOK = "); ok {
			var p string
			if json.Unmarshal([]byte(strings.TrimSuffix(v, ";")), &p) == nil {
				return p
			}
			return ""
		}
	}
	return ""
}

// managedMarker marks what Paneflow wrote, in JSON groups (as a key) and
// in other files (in a comment).
const managedMarker = "_paneflow_managed"

// hasArg reports whether args hold flag, alone or as flag=value.
func hasArg(args []string, flag string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
}
