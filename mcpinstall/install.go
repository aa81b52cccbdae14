package mcpinstall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
)

// EntryName is the name of our entry in every agent's configuration.
const EntryName = "paneflow"

// Outcome is what an action did to one agent.
type Outcome string

// The outcomes.
const (
	Installed   Outcome = "installed"
	Updated     Outcome = "updated"
	UpToDate    Outcome = "already up to date"
	Removed     Outcome = "removed"
	NothingToDo Outcome = "nothing to remove"
	Skipped     Outcome = "skipped (not detected)"
)

// Format is how an agent's file is written.
type Format int

// The formats.
const (
	JSON  Format = iota // strict JSON
	JSONC               // JSON with comments and trailing commas
	TOML
)

// Agent is one agent CLI's configuration file and entry.
type Agent struct {
	ID, Name  string
	Path      string   // the config file
	Format    Format   //
	Container string   // the JSON object holding MCP servers ("" for TOML)
	Markers   []string // other paths whose existence means the agent is installed
	Binary    string   // the agent's program, looked up on PATH
	entry     func(bridge string, args []string) any
}

// Agents returns the four agents in their fixed order, with their files
// under home and configDir ($XDG_CONFIG_HOME or ~/.config).
func Agents(home, configDir string) []*Agent {
	oc := filepath.Join(configDir, "opencode", "opencode.json")
	format := JSONC // opencode reads JSONC in both names
	if _, err := os.Stat(oc); err != nil {
		if _, err := os.Stat(oc + "c"); err == nil {
			oc += "c"
		}
	}
	return []*Agent{
		{ID: "claude-code", Name: "Claude Code", Path: filepath.Join(home, ".claude.json"), Format: JSON, Container: "mcpServers", Binary: "claude",
			entry: func(b string, args []string) any {
				return struct {
					Type    string   `json:"type"`
					Command string   `json:"command"`
					Args    []string `json:"args"`
				}{"stdio", b, args}
			}},
		{ID: "codex", Name: "Codex", Path: filepath.Join(home, ".codex", "config.toml"), Format: TOML, Binary: "codex",
			Markers: []string{filepath.Join(home, ".codex")}},
		{ID: "gemini", Name: "Gemini CLI", Path: filepath.Join(home, ".gemini", "settings.json"), Format: JSON, Container: "mcpServers", Binary: "gemini",
			Markers: []string{filepath.Join(home, ".gemini")},
			entry: func(b string, args []string) any {
				return struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
					Trust   bool     `json:"trust"`
				}{b, args, true}
			}},
		{ID: "opencode", Name: "opencode", Path: oc, Format: format, Container: "mcp", Binary: "opencode",
			entry: func(b string, args []string) any {
				return struct {
					Type    string   `json:"type"`
					Command []string `json:"command"`
					Enabled bool     `json:"enabled"`
				}{"local", append([]string{b}, args...), true}
			}},
	}
}

// Present reports whether the agent is installed: its program on PATH
// (lookPath) or its file or marker directory exists.
func (a *Agent) Present(lookPath func(string) (string, error)) bool {
	if _, err := lookPath(a.Binary); err == nil {
		return true
	}
	for _, p := range append([]string{a.Path}, a.Markers...) {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// file is a loaded config file.
type file struct {
	target string      // the file to replace: Path with symlinks resolved
	exists bool        //
	data   []byte      // its bytes
	mode   fs.FileMode // its permissions
}

// load reads the agent's file (missing: empty). A symlink is followed.
func (a *Agent) load() (*file, error) {
	c, err := atomicfile.ReadCurrent(a.Path)
	if err != nil {
		return nil, fmt.Errorf("%w; not changed", err)
	}
	return &file{target: c.Target, exists: c.Exists, data: c.Data, mode: c.Mode}, nil
}

// ParseError is a config file we cannot parse; it is left untouched.
type ParseError struct {
	Path string
	Err  error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s cannot be parsed (%v); not changed", e.Path, e.Err)
}

// current returns the command of our entry in data ("" and false when
// there is none).
func (a *Agent) current(data []byte) (cmd string, has bool, err error) {
	cmd, _, has, err = a.readEntry(data)
	return cmd, has, err
}

// readEntry returns the command and arguments of our entry in data (has is
// false when there is none).
func (a *Agent) readEntry(data []byte) (cmd string, args []string, has bool, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return "", nil, false, nil
	}
	if a.Format == TOML {
		doc, err := tomlDecode(data)
		if err != nil {
			return "", nil, false, &ParseError{a.Path, err}
		}
		e, ok := tomlEntry(doc)
		if !ok {
			return "", nil, false, nil
		}
		c, _ := e["command"].(string)
		list, _ := e["args"].([]any)
		for _, v := range list {
			if s, ok := v.(string); ok {
				args = append(args, s)
			}
		}
		return c, args, true, nil
	}
	root, err := parseDoc(data, a.Format == JSONC)
	if err != nil {
		return "", nil, false, &ParseError{a.Path, err}
	}
	m, ok := root.member(a.Container)
	if !ok {
		return "", nil, false, nil
	}
	c, err := child(data, m)
	if err != nil {
		return "", nil, false, &ParseError{a.Path, err}
	}
	em, ok := c.member(EntryName)
	if !ok {
		return "", nil, false, nil
	}
	var e struct {
		Command json.RawMessage `json:"command"`
		Args    []string        `json:"args"`
	}
	raw := stripComments(data[em.valStart:em.end])
	if json.Unmarshal(raw, &e) != nil {
		return "", nil, true, nil
	}
	var s string
	if json.Unmarshal(e.Command, &s) == nil {
		return s, e.Args, true, nil
	}
	var argv []string
	if json.Unmarshal(e.Command, &argv) == nil && len(argv) > 0 {
		return argv[0], argv[1:], true, nil
	}
	return "", nil, true, nil
}

// stripComments removes JSONC comments and trailing commas from one value
// so encoding/json can read it (strings kept intact).
func stripComments(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:min(j+1, len(b))]...)
			i = j
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += 2 + end + 1
		case b[i] == ',':
			k := i + 1
			for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r') {
				k++
			}
			if k < len(b) && (b[k] == '}' || b[k] == ']') {
				continue
			}
			out = append(out, ',')
		default:
			out = append(out, b[i])
		}
	}
	return out
}

// withEntry returns data with our entry for bridge.
func (a *Agent) withEntry(data []byte, bridge string, args []string) ([]byte, error) {
	if a.Format == TOML {
		if _, err := tomlDecode(data); err != nil {
			return nil, &ParseError{a.Path, err}
		}
		out, err := tomlSet(data, bridge, args)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Path, err)
		}
		return out, nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	root, err := parseDoc(data, a.Format == JSONC)
	if err != nil {
		return nil, &ParseError{a.Path, err}
	}
	val, _ := json.MarshalIndent(a.entry(bridge, args), "", "  ")
	m, ok := root.member(a.Container)
	if !ok {
		cont := []byte("{\n  \"" + EntryName + "\": " + reindent(val, "  ") + "\n}")
		return setMember(data, root, a.Container, cont, ""), nil
	}
	if data[m.valStart] != '{' {
		return nil, &ParseError{a.Path, fmt.Errorf("%q is not an object", a.Container)}
	}
	c, err := child(data, m)
	if err != nil {
		return nil, &ParseError{a.Path, err}
	}
	return setMember(data, c, EntryName, val, lineIndent(data, m.start)), nil
}

// withoutEntry returns data without our entry.
func (a *Agent) withoutEntry(data []byte) ([]byte, error) {
	if a.Format == TOML {
		if _, err := tomlDecode(data); err != nil {
			return nil, &ParseError{a.Path, err}
		}
		out, err := tomlDelete(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Path, err)
		}
		return out, nil
	}
	root, err := parseDoc(data, a.Format == JSONC)
	if err != nil {
		return nil, &ParseError{a.Path, err}
	}
	m, ok := root.member(a.Container)
	if !ok {
		return data, nil
	}
	c, err := child(data, m)
	if err != nil {
		return nil, &ParseError{a.Path, err}
	}
	return deleteMember(data, c, EntryName), nil
}

// Install writes our entry for bridge, run with args (nil: none;
// {"--orchestrate"} offers the orchestration tools).
func (a *Agent) Install(bridge string, args []string) (Outcome, error) {
	if args == nil {
		args = []string{}
	}
	f, err := a.load()
	if err != nil {
		return "", err
	}
	_, has, err := a.current(f.data)
	if err != nil {
		return "", err
	}
	out, err := a.withEntry(f.data, bridge, args)
	if err != nil {
		return "", err
	}
	if err := a.verify(out, bridge); err != nil {
		return "", err
	}
	if f.exists && bytes.Equal(out, f.data) {
		return UpToDate, nil
	}
	if err := a.save(f, out); err != nil {
		return "", err
	}
	if !has {
		return Installed, nil
	}
	return Updated, nil
}

// verify re-reads an edited document: it must parse and hold our entry
// for bridge ("" for none).
func (a *Agent) verify(out []byte, bridge string) error {
	cmd, has, err := a.current(out)
	if err == nil && has == (bridge != "") && cmd == bridge {
		return nil
	}
	return fmt.Errorf("%s: the edit did not produce a valid entry (%v); not changed", a.Path, err)
}

// Uninstall removes our entry. When the file is exactly what installing
// into its backup gives, the backup's bytes are put back.
func (a *Agent) Uninstall() (Outcome, error) {
	f, err := a.load()
	if err != nil {
		return "", err
	}
	if !f.exists {
		return NothingToDo, nil
	}
	_, has, err := a.current(f.data)
	if err != nil {
		return "", err
	}
	if !has {
		return NothingToDo, nil
	}
	out, err := a.withoutEntry(f.data)
	if err != nil {
		return "", err
	}
	if bak, err := os.ReadFile(a.Path + ".bak"); err == nil {
		if _, bakHas, err := a.current(bak); err == nil && !bakHas {
			cmd, _, _ := a.current(f.data)
			for _, args := range [][]string{{}, {"--orchestrate"}} {
				if again, err := a.withEntry(bak, cmd, args); err == nil && bytes.Equal(again, f.data) {
					out = bak
				}
			}
		}
	}
	if err := a.verify(out, ""); err != nil {
		return "", err
	}
	if err := a.save(f, out); err != nil {
		return "", err
	}
	return Removed, nil
}

// State is what Status found for one agent.
type State struct {
	Installed   bool
	Command     string // our entry's command
	Current     bool   // Command is the expected bridge path
	Orchestrate bool   // the entry runs the bridge with --orchestrate
}

// Status reads our entry.
func (a *Agent) Status(bridge string) (State, error) {
	f, err := a.load()
	if err != nil {
		return State{}, err
	}
	cmd, args, has, err := a.readEntry(f.data)
	if err != nil {
		return State{}, err
	}
	orch := false
	for _, v := range args {
		orch = orch || v == "--orchestrate"
	}
	return State{Installed: has, Command: cmd, Current: has && cmd == bridge, Orchestrate: has && orch}, nil
}

// save backs the old bytes up to Path+".bak", then replaces the file
// atomically (its symlink kept, its mode kept). A read-only file is not
// replaced.
func (a *Agent) save(f *file, out []byte) error {
	if f.exists {
		if f.mode&0o200 == 0 {
			return fmt.Errorf("%s is read-only; not changed", a.Path)
		}
		if err := atomicfile.Write(a.Path+".bak", bytes.NewReader(f.data), f.mode); err != nil {
			return fmt.Errorf("backing up %s: %w; not changed", a.Path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(f.target), 0o700); err != nil {
		return err
	}
	if err := atomicfile.Write(f.target, bytes.NewReader(out), f.mode); err != nil {
		return fmt.Errorf("writing %s: %w", a.Path, err)
	}
	return nil
}
