package flow

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/mattn/go-shellwords"
)

// MaxPanes is the most panes a workspace spec or a flow may open (the
// server's pane cap).
const MaxPanes = 32

// DefaultPortBase is port_base's default.
const DefaultPortBase = 3000

// Layout presets (spec specs.md §4).
var layouts = []string{"even_h", "even_v", "main_vertical", "tiled"}

// Pane is one [[panes]] entry of a workspace spec, or a flow step's pane.
// Pointer fields are nil when absent.
type Pane struct {
	Cwd              *string           `toml:"cwd" json:"cwd,omitempty"`
	Agent            *string           `toml:"agent" json:"agent,omitempty"`
	Command          *string           `toml:"command" json:"command,omitempty"`
	Prompt           *string           `toml:"prompt" json:"prompt,omitempty"`
	Focus            bool              `toml:"focus" json:"focus,omitempty"`
	Env              map[string]string `toml:"env" json:"env,omitempty"`
	Name             *string           `toml:"name" json:"name,omitempty"`
	Worktree         *string           `toml:"worktree" json:"worktree,omitempty"`
	CopyEnv          *bool             `toml:"copy_env" json:"copy_env,omitempty"`
	Setup            *string           `toml:"setup" json:"setup,omitempty"`
	SetupTimeoutSecs *int64            `toml:"setup_timeout_secs" json:"setup_timeout_secs,omitempty"`
	WorktreeTeardown *string           `toml:"worktree_teardown" json:"worktree_teardown,omitempty"`
	// Budget limits the pane of a workspace spec (a flow's steps carry
	// theirs on the step).
	Budget *Budget `toml:"budget" json:"budget,omitempty"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// checkPane applies the per-pane rules of spec specs.md §1 step 3 (plus
// command and setup being parseable shell words); messages have no
// prefix.
func checkPane(p *Pane) error {
	if p.Agent != nil && p.Command != nil {
		return errors.New("set either `agent` or `command`, not both")
	}
	if p.Worktree != nil {
		b := *p.Worktree
		switch {
		case b == "":
			return errors.New("`worktree` must name a branch")
		case strings.HasPrefix(b, "-"):
			return fmt.Errorf("branch '%s' must not start with '-'", b)
		case slugEmpty(b):
			return fmt.Errorf("branch '%s' has no filesystem-safe name (dot-only names are not allowed)", b)
		case p.Cwd == nil:
			return errors.New("`worktree` requires `cwd` (to locate the git repository)")
		}
	} else {
		for _, f := range []struct {
			name string
			set  bool
		}{{"copy_env", p.CopyEnv != nil}, {"setup", p.Setup != nil}, {"setup_timeout_secs", p.SetupTimeoutSecs != nil}, {"worktree_teardown", p.WorktreeTeardown != nil}} {
			if f.set {
				return fmt.Errorf("`%s` requires `worktree`", f.name)
			}
		}
	}
	if t := p.WorktreeTeardown; t != nil && *t != "auto" && *t != "keep" {
		return fmt.Errorf("`worktree_teardown` must be \"auto\" or \"keep\", got '%s'", *t)
	}
	if t := p.SetupTimeoutSecs; t != nil && *t <= 0 {
		return fmt.Errorf("`setup_timeout_secs` must be a positive number of seconds, got %d", *t)
	}
	if p.Command != nil {
		if err := checkWords(*p.Command); err != nil {
			return fmt.Errorf("`command`: %v", err)
		}
	}
	if p.Setup != nil {
		if err := checkWords(*p.Setup); err != nil {
			return fmt.Errorf("`setup`: %v", err)
		}
	}
	if p.Agent != nil && strings.TrimSpace(*p.Agent) == "" {
		return errors.New("`agent` is empty")
	}
	return nil
}

// slugEmpty reports whether a branch has no filesystem-safe name (the
// worktree package's Slug would be empty).
func slugEmpty(b string) bool {
	for _, r := range b {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return false
		}
	}
	return true // only '.', '-' and characters that become '-'
}

// checkWords reports whether s splits into shell words (balanced quotes,
// no dangling escape). Variables and backquotes are left to the shell.
func checkWords(s string) error {
	p := shellwords.NewParser()
	p.ParseEnv = false
	p.ParseBacktick = false
	_, err := p.Parse(s)
	if err != nil {
		return fmt.Errorf("cannot split %q into shell words: %v", s, err)
	}
	return nil
}

// tokenRE matches a ${…} token. Compiled on first use: the CLI client
// links this package, and its start-up is kept short.
var tokenRE = lazyRE(`\$\{([^}]*)\}`)

// lazyRE compiles a regular expression the first time it is used.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// checkEnvTokens checks every ${…} of the env values against allowed
// (spec specs.md §1 step 4); keys are visited in sorted order so the first
// error is stable.
func checkEnvTokens(env map[string]string, allowed ...string) error {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := env[k]
		if err := unclosed(v); err != nil {
			return fmt.Errorf("env `%s`: unclosed `${`", k)
		}
		for _, m := range tokenRE().FindAllStringSubmatch(v, -1) {
			ok := false
			for _, a := range allowed {
				ok = ok || m[1] == a
			}
			if !ok {
				sup := make([]string, len(allowed))
				for i, a := range allowed {
					sup[i] = "${" + a + "}"
				}
				return fmt.Errorf("env `%s` references unknown variable '%s' (supported: %s)", k, m[0], strings.Join(sup, ", "))
			}
		}
	}
	return nil
}

// unclosed reports a "${" with no "}" after it.
func unclosed(s string) error {
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return errors.New("unclosed `${`")
		}
		s = s[i+j+1:]
	}
}

// agent is a recognised coding agent: its spec name (the conductor's
// persist tag) and the argv that launches it.
type agent struct {
	tag  string
	argv []string
}

// agents are the recognised agents (spec conductor.md §1).
var agents = []agent{
	{"claude_code", []string{"claude"}}, {"codex", []string{"codex"}}, {"opencode", []string{"opencode"}},
	{"pi", []string{"pi"}}, {"hermes", []string{"hermes"}}, {"grok", []string{"grok"}}, {"amp", []string{"amp"}},
	{"cursor", []string{"cursor-agent"}}, {"gemini", []string{"gemini"}}, {"kiro", []string{"kiro-cli", "chat"}},
	{"antigravity", []string{"agy"}}, {"copilot", []string{"copilot"}}, {"codebuddy", []string{"codebuddy"}},
	{"factory", []string{"droid"}}, {"qoder", []string{"qodercli"}}, {"openclaw", []string{"openclaw", "tui"}},
}

// agentArgv resolves an agent name ("claude", "Claude-Code", "codex", …):
// trimmed, lower-cased, '-' → '_', "claude" → "claude_code", then matched
// against the tags.
func agentArgv(name string) ([]string, bool) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
	if n == "claude" {
		n = "claude_code"
	}
	for _, a := range agents {
		if a.tag == n {
			return append([]string(nil), a.argv...), true
		}
	}
	return nil, false
}

// shellJoin quotes argv for a POSIX shell (the server runs a pane's
// command with sh -c).
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// splitWords splits a command line into its words.
func splitWords(s string) ([]string, error) {
	p := shellwords.NewParser()
	p.ParseEnv = false
	p.ParseBacktick = false
	w, err := p.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("cannot split %q into shell words: %v", s, err)
	}
	return w, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
