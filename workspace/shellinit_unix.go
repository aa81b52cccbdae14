//go:build !windows

package workspace

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// EnvUserZdotdir carries the user's ZDOTDIR into a zsh pane whose ZDOTDIR
// points at Paneflow's integration files; the integration's .zshenv puts
// it back and unsets this. Absent means the user had no ZDOTDIR.
const EnvUserZdotdir = "PANEFLOW_USER_ZDOTDIR"

// envBashLogin tells the bash integration rc file to read the login
// files (the shell was configured with -l); the rc file unsets it.
const envBashLogin = "PANEFLOW_BASH_LOGIN"

//go:embed shellinit
var shellInitFS embed.FS

// shellInitFiles maps the embedded scripts to the names they get on
// disk: zsh reads .zshenv from $ZDOTDIR.
var shellInitFiles = map[string]string{
	"shellinit/bashrc.bash": "bashrc.bash",
	"shellinit/zshenv.zsh":  ".zshenv",
	"shellinit/init.fish":   "init.fish",
}

// shellInitCache remembers, per base directory, where the scripts were
// written (or why they could not be), so each process writes them once.
var shellInitCache struct {
	sync.Mutex
	dirs map[string]shellInitResult
}

type shellInitResult struct {
	dir string
	err error
}

// shellInitBase is the directory the scripts go under:
// <user cache dir>/paneflow/shell.
func shellInitBase() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "paneflow", "shell"), nil
}

// shellInitDir writes the integration scripts under base, in a 0700
// directory named after a hash of their contents (so a new Paneflow
// version never runs an old script, and panes of a running Paneflow
// never see their scripts change), and returns that directory. Files are
// written atomically (temporary file, then rename) and only once per
// process and base. It is safe for concurrent use.
func shellInitDir(base string) (string, error) {
	shellInitCache.Lock()
	defer shellInitCache.Unlock()
	if r, ok := shellInitCache.dirs[base]; ok {
		return r.dir, r.err
	}
	dir, err := writeShellInit(base)
	if shellInitCache.dirs == nil {
		shellInitCache.dirs = map[string]shellInitResult{}
	}
	shellInitCache.dirs[base] = shellInitResult{dir, err}
	return dir, err
}

func writeShellInit(base string) (string, error) {
	names := []string{"shellinit/bashrc.bash", "shellinit/init.fish", "shellinit/zshenv.zsh"}
	h := sha256.New()
	data := map[string][]byte{}
	for _, n := range names {
		b, err := shellInitFS.ReadFile(n)
		if err != nil {
			return "", err
		}
		data[n] = b
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	dir := filepath.Join(base, hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	// The shells run these files: refuse a directory others can write to
	// or that is not ours.
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedByUs(fi) {
		return "", fmt.Errorf("workspace: shell integration directory %s is not private", dir)
	}
	for _, n := range names {
		dst := filepath.Join(dir, shellInitFiles[n])
		if old, err := os.ReadFile(dst); err == nil && string(old) == string(data[n]) {
			continue
		}
		if err := atomicfile.Write(dst, bytes.NewReader(data[n]), 0o600); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// shellKind names the shell argv runs when Paneflow knows how to
// integrate with it ("bash", "zsh", "fish"), and whether it was asked to
// be a login shell. Shells started with any other arguments are left
// alone: ok is false.
func shellKind(argv []string) (kind string, login, ok bool) {
	if len(argv) == 0 {
		return "", false, false
	}
	switch len(argv) {
	case 1:
	case 2:
		if argv[1] != "-l" && argv[1] != "--login" {
			return "", false, false
		}
		login = true
	default:
		return "", false, false
	}
	kind = strings.TrimPrefix(filepath.Base(argv[0]), "-")
	switch kind {
	case "bash", "zsh", "fish":
		return kind, login, true
	}
	return "", false, false
}

// integrateShell rewrites the argv and environment of a pane running an
// interactive bash, zsh or fish so that, after the user's startup files,
// $PANEFLOW_BIN_DIR (if set in env) is first in PATH again at every
// prompt and the shell reports its directory with OSC 7 (spec gui.md §3,
// conductor.md §6):
//
//   - bash: "bash --rcfile <dir>/bashrc.bash -i"; the rc file reads
//     /etc/profile and the first of ~/.bash_profile, ~/.bash_login,
//     ~/.profile when argv asked for a login shell (else
//     /etc/bash.bashrc and ~/.bashrc), then appends a function to
//     PROMPT_COMMAND (string or array form).
//   - zsh: ZDOTDIR=<dir>, the user's ZDOTDIR saved in
//     PANEFLOW_USER_ZDOTDIR; the .zshenv there restores it, reads the
//     user's .zshenv and adds a precmd hook.
//   - fish: an added --init-command that sources <dir>/init.fish (a
//     fish_prompt event function).
//
// Any other shell or argument list, or a failure to write the scripts
// under base, returns argv and env unchanged: the pane then starts as it
// always did.
func integrateShell(argv, env []string, base string) ([]string, []string) {
	kind, login, ok := shellKind(argv)
	if !ok || base == "" {
		return argv, env
	}
	dir, err := shellInitDir(base)
	if err != nil {
		return argv, env
	}
	e := newEnvList(env)
	sh := argv[0]
	switch kind {
	case "bash":
		e.unset(envBashLogin)
		if login {
			e.set(envBashLogin, "1")
		}
		argv = []string{sh, "--rcfile", filepath.Join(dir, "bashrc.bash"), "-i"}
	case "zsh":
		e.unset(EnvUserZdotdir)
		if i, ok := e.pos[envName("ZDOTDIR")]; ok {
			_, v, _ := strings.Cut(e.kv[i], "=")
			e.set(EnvUserZdotdir, v)
		}
		e.set("ZDOTDIR", dir)
	case "fish":
		argv = append(argv[:len(argv):len(argv)], "--init-command", "source "+fishQuote(filepath.Join(dir, "init.fish")))
	}
	return argv, e.list()
}

// fishQuote quotes s as one fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// integrate applies shell integration to a pane start when it runs the
// default interactive shell (no command) and Options.NoShellIntegration
// is unset.
func (m *Manager) integrate(argv []string, spec PaneSpec, env []string) ([]string, []string) {
	if spec.Command != "" || m.o.NoShellIntegration {
		return argv, env
	}
	base, err := shellInitBase()
	if err != nil {
		return argv, env
	}
	return integrateShell(argv, env, base)
}

// ownedByUs reports whether this process's user owns the file.
func ownedByUs(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == uint32(os.Getuid())
}
