package teams

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// This file reads what Claude Code writes about a team:
// <config dir>/teams/<team>/config.json (spec agent-teams.md §2,
// real-agents-offline.md), so the sidebar and the socket can name a team
// and its teammates as Claude Code does.

// maxTeamConfig bounds the config.json read (Claude Code's is about 2 KiB
// for a few teammates).
const maxTeamConfig = 1 << 20

// TeamConfig is the part of Claude Code's team config.json Paneflow uses.
// Unknown fields are ignored.
type TeamConfig struct {
	// Name is the team's name ("session-8090a9bf" for the implicit team of
	// 2.1.178 and later; what TeamCreate was given before).
	Name string `json:"name"`
	// Description is what TeamCreate was given (older releases); "" now.
	Description string         `json:"description"`
	LeadAgentID string         `json:"leadAgentId"`
	Members     []ConfigMember `json:"members"`
}

// ConfigMember is one entry of a team config's members.
type ConfigMember struct {
	AgentID   string `json:"agentId"`
	Name      string `json:"name"`
	Color     string `json:"color"`
	AgentType string `json:"agentType"`
	// TmuxPaneID is the pane Claude Code got from split-window ("%1"),
	// "leader" for the lead, "in-process" without a pane.
	TmuxPaneID  string `json:"tmuxPaneId"`
	BackendType string `json:"backendType"` // "tmux" or "in-process"
}

// member returns the entry whose tmux pane id is pane, else the one named
// name; nil when neither is listed.
func (c *TeamConfig) member(pane, name string) *ConfigMember {
	for i := range c.Members {
		if pane != "" && c.Members[i].TmuxPaneID == pane {
			return &c.Members[i]
		}
	}
	for i := range c.Members {
		if name != "" && c.Members[i].Name == name {
			return &c.Members[i]
		}
	}
	return nil
}

// ClaudeConfigDir is the directory where Claude Code run with the
// environment env ("K=V") keeps its state: $CLAUDE_CONFIG_DIR, else
// $HOME/.claude; "" when env sets neither.
func ClaudeConfigDir(env []string) string {
	var home, dir string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "CLAUDE_CONFIG_DIR":
			dir = v
		case "HOME":
			home = v
		}
	}
	switch {
	case dir != "":
		return dir
	case home != "":
		return filepath.Join(home, ".claude")
	}
	return ""
}

// validTeamName reports whether team can name a directory under teams/:
// one path element, never "." or "..". The name comes from a teammate's
// command line, so it is checked before it becomes part of a path.
func validTeamName(team string) bool {
	return team != "" && team != "." && team != ".." && len(team) <= 255 &&
		!strings.ContainsAny(team, `/\`+"\x00") && filepath.Base(team) == team
}

// TeamConfigPath is where Claude Code keeps team's config under
// configDir; "" when team is not a usable directory name.
func TeamConfigPath(configDir, team string) string {
	if configDir == "" || !validTeamName(team) {
		return ""
	}
	return filepath.Join(configDir, "teams", team, "config.json")
}

// ReadTeamConfig reads and parses team's config.json under configDir (see
// [ClaudeConfigDir]). A missing file is an error wrapping fs.ErrNotExist;
// a file that is not regular, larger than 1 MiB or not JSON is an error.
func ReadTeamConfig(configDir, team string) (*TeamConfig, error) {
	path := TeamConfigPath(configDir, team)
	if path == "" {
		return nil, fmt.Errorf("teams: no config for team %q in %q", team, configDir)
	}
	cfg, _, err := readTeamConfig(path)
	return cfg, err
}

func readTeamConfig(path string) (*TeamConfig, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("teams: %s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTeamConfig+1))
	if err != nil {
		return nil, fi, err
	}
	if len(data) > maxTeamConfig {
		return nil, fi, fmt.Errorf("teams: %s is larger than %d bytes", path, maxTeamConfig)
	}
	var cfg TeamConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fi, fmt.Errorf("teams: %s: %w", path, err)
	}
	return &cfg, fi, nil
}

// teamConfigs caches parsed team configs by path; an entry is read again
// when the file's size or modification time changes, so a lookup costs
// one stat. The zero value is ready; safe for concurrent use.
type teamConfigs struct {
	mu sync.Mutex
	m  map[string]cachedConfig
}

type cachedConfig struct {
	size int64
	mod  time.Time
	cfg  *TeamConfig // nil when the file could not be parsed
}

// maxCachedConfigs bounds the cache; past it the cache starts afresh.
const maxCachedConfigs = 256

// get returns the config at path, nil when there is none or it cannot be
// read; logf hears about a file that exists but cannot be parsed, once
// per version of it.
func (c *teamConfigs) get(path string, logf func(string, ...any)) *TeamConfig {
	if path == "" {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	e, ok := c.m[path]
	c.mu.Unlock()
	if ok && e.size == fi.Size() && e.mod.Equal(fi.ModTime()) {
		return e.cfg
	}
	cfg, rfi, err := readTeamConfig(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		logf("teams: %v", err)
	}
	if rfi == nil {
		return cfg
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedConfigs {
		c.m = map[string]cachedConfig{}
	}
	c.m[path] = cachedConfig{size: rfi.Size(), mod: rfi.ModTime(), cfg: cfg}
	return cfg
}
