package teams

import (
	"errors"
	"fmt"
	"strings"
)

// Version is what `tmux -V` answers: the version Claude Code and the
// public shims expect.
const Version = "tmux 3.4"

// verb describes one tmux command: its getopt flags (bools take no
// value, values take one) and how it runs. A nil run is an accepted
// no-op whose flags are not checked.
type verb struct {
	name          string
	bools, values string
	run           func(r *Registry, c *call) error
}

// aliases are tmux's short names.
var aliases = map[string]string{
	"splitw": "split-window", "respawnp": "respawn-pane", "send": "send-keys",
	"capturep": "capture-pane", "killp": "kill-pane", "lsp": "list-panes",
	"display": "display-message", "selectp": "select-pane", "show": "show-options",
	"showw": "show-window-options", "set": "set-option", "setw": "set-window-option",
	"has": "has-session", "selectl": "select-layout", "resizep": "resize-pane",
	"lsw": "list-windows", "ls": "list-sessions", "refresh": "refresh-client",
	"source": "source-file", "wait": "wait-for", "attach": "attach-session",
	"detach": "detach-client", "lastp": "last-pane", "breakp": "break-pane",
	"joinp": "join-pane", "selectw": "select-window", "setenv": "set-environment",
	"renamew": "rename-window", "new": "new-session", "neww": "new-window",
}

// verbs is the command table; init fills it to break the initialization
// cycle through the run functions.
var verbs map[string]*verb

func init() {
	list := []*verb{
		{name: "split-window", bools: "bdfhIvPZ", values: "celFtp", run: (*Registry).splitWindow},
		{name: "respawn-pane", bools: "k", values: "cet", run: (*Registry).respawnPane},
		{name: "send-keys", bools: "FHKlMRX", values: "Nt", run: (*Registry).sendKeys},
		{name: "capture-pane", bools: "aCeJNpPqT", values: "bESt", run: (*Registry).capturePane},
		{name: "kill-pane", bools: "a", values: "t", run: (*Registry).killPane},
		{name: "list-panes", bools: "as", values: "Fft", run: (*Registry).listPanes},
		{name: "list-windows", bools: "a", values: "Fft", run: (*Registry).listWindows},
		{name: "list-sessions", values: "Ff", run: (*Registry).listSessions},
		{name: "display-message", bools: "aIlNpv", values: "cdFt", run: (*Registry).displayMessage},
		{name: "select-pane", bools: "DdeLlMmRUZ", values: "PTt", run: (*Registry).selectPane},
		{name: "show-options", bools: "AgHpqsvw", values: "t", run: (*Registry).showOptions},
		{name: "show-window-options", bools: "gv", values: "t", run: (*Registry).showOptions},
		{name: "set-option", bools: "aFgopqsuUw", values: "t", run: (*Registry).setOption},
		{name: "set-window-option", bools: "aFgoqu", values: "t", run: (*Registry).setOption},
		{name: "has-session", values: "t", run: (*Registry).hasSession},
		{name: "select-layout", bools: "Enop", values: "t", run: (*Registry).selectLayout},
		{name: "resize-pane", bools: "DLMRTUZ", values: "txy", run: (*Registry).resizePane},
		{name: "new-session", run: unsupported},
		{name: "new-window", run: unsupported},
	}
	for _, n := range []string{"set-hook", "refresh-client", "source-file", "wait-for",
		"attach-session", "detach-client", "last-pane", "break-pane", "join-pane",
		"select-window", "set-environment", "rename-window", "start-server"} {
		list = append(list, &verb{name: n})
	}
	verbs = make(map[string]*verb, len(list))
	for _, v := range list {
		verbs[v.name] = v
	}
}

// command is one parsed tmux invocation.
type command struct {
	version bool // -V
	verb    *verb
	// flags holds each flag given, in order: "" for a bool flag.
	flags map[byte][]string
	args  []string
}

func (c *command) has(f byte) bool { return len(c.flags[f]) > 0 }

// value returns the last value of a flag, "" when absent.
func (c *command) value(f byte) string {
	if v := c.flags[f]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// errUnsupported marks commands Paneflow knows and refuses.
var errUnsupported = errors.New("not supported by Paneflow's tmux")

// parseCommand parses tmux's argv (without "tmux"): global flags (-S, -L
// and -f are taken with their values and ignored; -V asks the version),
// then the command name (full, alias, or an unambiguous prefix) and its
// flags, getopt style, then its arguments.
func parseCommand(argv []string) (*command, error) {
	c := &command{flags: map[byte][]string{}}
	i := 0
global:
	for i < len(argv) {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			switch f := a[j]; f {
			case 'S', 'L', 'f', 'T':
				if j+1 == len(a) {
					i++
					if i == len(argv) {
						return nil, fmt.Errorf("option -%c requires an argument", f)
					}
				}
				i++
				continue global
			case 'V':
				c.version = true
			case '2', 'u', 'l', 'N', 'v', 'D':
			case 'c':
				return nil, fmt.Errorf("-c (run a shell command) is %w", errUnsupported)
			case 'C':
				return nil, fmt.Errorf("control mode (-C) is %w", errUnsupported)
			default:
				return nil, fmt.Errorf("unknown option -%c", f)
			}
		}
		i++
	}
	if c.version {
		return c, nil
	}
	if i == len(argv) {
		return nil, errors.New("no command (Paneflow's tmux does not start sessions)")
	}
	v, err := lookupVerb(argv[i])
	if err != nil {
		return nil, err
	}
	c.verb = v
	rest := argv[i+1:]
	if v.run == nil {
		c.args = rest
		return c, nil
	}
	k := 0
	for k < len(rest) {
		a := rest[k]
		if a == "--" {
			k++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			f := a[j]
			switch {
			case strings.IndexByte(v.bools, f) >= 0:
				c.flags[f] = append(c.flags[f], "")
			case strings.IndexByte(v.values, f) >= 0:
				val := a[j+1:]
				if val == "" {
					k++
					if k == len(rest) {
						return nil, fmt.Errorf("%s: option -%c requires an argument", v.name, f)
					}
					val = rest[k]
				}
				c.flags[f] = append(c.flags[f], val)
				j = len(a)
			default:
				return nil, fmt.Errorf("%s: unknown flag -%c", v.name, f)
			}
		}
		k++
	}
	c.args = rest[k:]
	return c, nil
}

// lookupVerb finds a command by name, alias or unambiguous prefix.
func lookupVerb(name string) (*verb, error) {
	if a, ok := aliases[name]; ok {
		name = a
	}
	if v, ok := verbs[name]; ok {
		return v, nil
	}
	var found *verb
	if name != "" {
		for n, v := range verbs {
			if strings.HasPrefix(n, name) {
				if found != nil {
					return nil, fmt.Errorf("ambiguous command: %s", name)
				}
				found = v
			}
		}
	}
	if found == nil {
		return nil, fmt.Errorf("unknown command: %s", name)
	}
	return found, nil
}

func unsupported(_ *Registry, c *call) error {
	return fmt.Errorf("%s is %w (Paneflow panes live in Paneflow workspaces)", c.cmd.verb.name, errUnsupported)
}

// shellWords splits a POSIX shell command line into words the way sh
// would without expansions: single quotes, double quotes (with \ before
// " \ $ ` and newline), backslash escapes. It is used to read a
// teammate's name, team and colour from respawn-pane's command.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
			} else {
				cur.WriteString(s[i+1 : i+1+j])
				i += j + 1
			}
		case ch == '"':
			in = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case ch == '\\' && i+1 < len(s):
			in = true
			i++
			cur.WriteByte(s[i])
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == ';' || ch == '&' || ch == '|':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			in = true
			cur.WriteByte(ch)
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// agentFlags reads --agent-name, --team-name, --agent-color,
// --agent-type and --agent-id (name@team) from a teammate's command
// line, in any order, as `--flag value` or `--flag=value`.
func agentFlags(cmdline string) (name, team, color, role string) {
	words := shellWords(cmdline)
	get := func(i int, w, flag string) (string, bool) {
		if v, ok := strings.CutPrefix(w, flag+"="); ok {
			return v, true
		}
		if w == flag && i+1 < len(words) {
			return words[i+1], true
		}
		return "", false
	}
	var id string
	for i, w := range words {
		if v, ok := get(i, w, "--agent-name"); ok {
			name = v
		} else if v, ok := get(i, w, "--team-name"); ok {
			team = v
		} else if v, ok := get(i, w, "--agent-color"); ok {
			color = v
		} else if v, ok := get(i, w, "--agent-type"); ok {
			role = v
		} else if v, ok := get(i, w, "--agent-id"); ok {
			id = v
		}
	}
	if n, t, ok := strings.Cut(id, "@"); ok {
		if name == "" {
			name = n
		}
		if team == "" {
			team = t
		}
	}
	return name, team, color, role
}
