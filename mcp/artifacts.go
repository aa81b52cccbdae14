package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Artifacts: a pane's final answer, kept by Paneflow at
// $XDG_DATA_HOME/paneflow/artifacts/<workspace>/<pane>/output.json
// (artifact.get). The hook binary writes it when a known agent's turn
// ends; an agent without hooks is told in its task to write it.

// MaxSubstitution bounds the text one {{<name>.output}} puts into a task
// (bytes, before fencing); a longer answer is cut at a rune boundary and
// ends with truncationMarker.
const MaxSubstitution = 64 << 10

// truncationMarker ends a substitution that was cut; %d is the number of
// bytes left out.
const truncationMarker = "\n[paneflow: output truncated, %d more bytes not included]"

// artifactPoll is how often a wait for an artifact looks again: a file
// written by an agent raises no event.
const artifactPoll = 250 * time.Millisecond

// artifactInfo is artifact.get's answer.
type artifactInfo struct {
	SurfaceID   uint64 `json:"surface_id"`
	WorkspaceID uint64 `json:"workspace_id"`
	Path        string `json:"path"`
	Exists      bool   `json:"exists"`
	Kept        bool   `json:"kept"`
	Output      string `json:"output"`
	Truncated   bool   `json:"truncated"`
	Tool        string `json:"tool,omitempty"`
	WrittenAt   string `json:"written_at,omitempty"`
	Modified    int64  `json:"modified_unix_ms,omitempty"`
}

// artifact reads a pane's artifact.
func (b *Bridge) artifact(ctx context.Context, id uint64) (artifactInfo, error) {
	var a artifactInfo
	err := b.call(ctx, nil, "artifact.get", map[string]any{"surface_id": id}, &a)
	return a, err
}

// waitArtifact polls a pane's artifact until it exists and was modified
// at or after since (zero: any), or ctx ends.
func (b *Bridge) waitArtifact(ctx context.Context, id uint64, since time.Time) (artifactInfo, error) {
	t := time.NewTicker(artifactPoll)
	defer t.Stop()
	for {
		a, err := b.artifact(ctx, id)
		if err != nil {
			return a, err
		}
		if a.Exists && (since.IsZero() || a.Modified >= since.UnixMilli()) {
			return a, nil
		}
		select {
		case <-ctx.Done():
			return a, ctx.Err()
		case <-t.C:
		}
	}
}

// artifactText is an artifact as a tool result: a JSON header, then the
// answer fenced as untrusted.
func artifactText(a artifactInfo, source string) string {
	head, _ := json.Marshal(map[string]any{
		"surface_id": a.SurfaceID, "path": a.Path, "exists": a.Exists, "kept": a.Kept,
		"truncated": a.Truncated, "tool": a.Tool, "written_at": a.WrittenAt,
	})
	if !a.Exists {
		return string(head) + "\nno artifact yet: the agent has not finished a turn (or, without hooks, has not written the file)"
	}
	return string(head) + "\n" + Fence(a.Output, FenceAttr{"source", source}, FenceAttr{"artifact", "output"})
}

func (b *Bridge) getArtifact(ctx context.Context, req *sdk.CallToolRequest) (string, error) {
	t, err := decodeTargetOnly(req.Params.Arguments)
	if err != nil {
		return "", err
	}
	id, err := b.resolve(ctx, t) // t also names the artifact's source
	if err != nil {
		return "", err
	}
	a, err := b.artifact(ctx, id)
	if err != nil {
		return "", err
	}
	return artifactText(a, t.String()), nil
}

// cutOutput cuts s to MaxSubstitution bytes with the truncation marker.
func cutOutput(s string) string {
	if len(s) <= MaxSubstitution {
		return s
	}
	i := MaxSubstitution
	for i > 0 && (s[i]&0xC0) == 0x80 {
		i--
	}
	return s[:i] + fmt.Sprintf(truncationMarker, len(s)-i)
}

// placeholder matches {{<name>.output}}.
var placeholder = regexp.MustCompile(`\{\{\s*([^{}]+?)\.output\s*\}\}`)

// dependency is one resolved depends_on entry.
type dependency struct {
	given string // as the caller wrote it
	id    uint64
	name  string // the pane's name
}

// dependencies decodes and resolves depends_on: pane names or ids.
func (b *Bridge) dependencies(ctx context.Context, a args) ([]dependency, error) {
	v, there := a["depends_on"]
	if !there || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("'depends_on' must be an array of pane names or surface_ids")
	}
	var deps []dependency
	for _, item := range list {
		t, err := args{"target": item}.target()
		if err != nil {
			return nil, fmt.Errorf("depends_on: %v", err)
		}
		id, err := b.resolve(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("depends_on %s: %v", t, err)
		}
		d := dependency{given: t.String(), id: id}
		if panes, err := b.listCached(ctx); err == nil {
			for _, p := range panes {
				if p.ID == id {
					d.name = p.Name
				}
			}
		}
		deps = append(deps, d)
	}
	return deps, nil
}

// substitute waits for every dependency's artifact and replaces
// {{<name>.output}} in task (name: as given in depends_on, or the pane's
// name) with the answer, cut to MaxSubstitution and fenced as untrusted.
// A placeholder naming no dependency is an error.
func (b *Bridge) substitute(ctx context.Context, task string, deps []dependency) (string, error) {
	outputs := map[string]string{}
	for _, d := range deps {
		a, err := b.waitArtifact(ctx, d.id, time.Time{})
		if err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("depends_on %s: no artifact before the timeout", d.given)
			}
			return "", fmt.Errorf("depends_on %s: %v", d.given, err)
		}
		text := Fence(cutOutput(a.Output), FenceAttr{"source", d.given}, FenceAttr{"artifact", "output"})
		outputs[strings.ToLower(d.given)] = text
		if d.name != "" {
			outputs[strings.ToLower(d.name)] = text
		}
	}
	var missing []string
	out := placeholder.ReplaceAllStringFunc(task, func(m string) string {
		name := strings.TrimSpace(placeholder.FindStringSubmatch(m)[1])
		if s, ok := outputs[strings.ToLower(name)]; ok {
			return s
		}
		missing = append(missing, name)
		return m
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("task names %s, which is not in depends_on", strings.Join(missing, ", "))
	}
	return out, nil
}

// fileInstruction is appended to the task of an agent Paneflow has no
// hooks for, so its answer still becomes an artifact.
func fileInstruction(path string) string {
	return "\n\nWhen you have finished, write your final answer to the file " + path +
		` as JSON: {"output": "<your answer>"}.`
}
