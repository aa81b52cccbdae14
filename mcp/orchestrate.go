package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneflow-go/paneflow/ipc"
)

// orchestrationTools are the tools that drive other panes, listed only
// when the bridge runs with Options.Orchestrate and Paneflow's scripting
// gate is open (system.capabilities).
var orchestrationTools = []string{"spawn_agent", "send_to_agent", "read_from_agent", "wait_for_idle", "get_artifact", "kill_agent"}

// Agent commands spawn_agent knows by name; anything else runs as given in
// "command".
var knownAgents = map[string]string{"claude": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}

// gate adds or removes the orchestration tools to match Paneflow's
// scripting gate; Paneflow unreachable means closed.
func (b *Bridge) gate(ctx context.Context) {
	if !b.o.Orchestrate {
		return
	}
	var caps struct {
		Scripting bool `json:"scripting"`
	}
	open := b.call(ctx, nil, "system.capabilities", map[string]any{}, &caps) == nil && caps.Scripting
	b.mu.Lock()
	changed := open != b.gateOpen
	b.gateOpen = open
	b.mu.Unlock()
	switch {
	case !changed:
	case open:
		b.addOrchestration()
	default:
		b.srv.RemoveTools(orchestrationTools...)
	}
}

// addOrchestration registers the orchestration tools.
func (b *Bridge) addOrchestration() {
	t := true
	f := false
	writes := &sdk.ToolAnnotations{DestructiveHint: &f, OpenWorldHint: &f}
	b.srv.AddTool(&sdk.Tool{
		Name: "spawn_agent",
		Description: "Start a coding agent (agent: claude, codex, gemini, opencode) or any command in a new Paneflow pane, " +
			"optionally in cwd, named name, with task typed in as its first prompt once it is ready. Returns the new pane's surface_id and name. " +
			"With depends_on (pane names or ids) it first waits for those panes' artifacts (their agents' final answers) and replaces {{<name>.output}} in task with them. " +
			"A command that is not a known agent is told in its task where to write its answer. The new pane's artifact is deleted with the pane unless keep_artifact is true. " +
			"With worktree (a branch name) the pane runs in a git worktree of cwd's repository (default: your own working directory), <repo>.worktrees/<branch>, created (with the branch, off HEAD, when it does not exist) or reused as `paneflow up` does; " +
			"a worktree created for it is removed when the pane closes if it is clean.",
		InputSchema: object(map[string]any{
			"agent":           map[string]any{"type": "string", "description": "claude, codex, gemini or opencode"},
			"command":         map[string]any{"type": "string", "description": "A shell command line to run instead of a known agent."},
			"cwd":             map[string]any{"type": "string", "description": "Working directory (absolute)."},
			"task":            map[string]any{"type": "string", "description": "The first prompt, typed in once the pane's output settles; {{<name>.output}} is a dependency's answer."},
			"name":            map[string]any{"type": "string", "description": "A name for the pane."},
			"depends_on":      map[string]any{"type": "array", "items": targetSchema, "description": "Panes whose artifacts must exist first."},
			"keep_artifact":   map[string]any{"type": "boolean", "description": "Keep the pane's artifact after the pane closes."},
			"timeout_seconds": map[string]any{"type": "number", "exclusiveMinimum": 0, "description": "How long to wait for depends_on (default 3600)."},
			"worktree":        map[string]any{"type": "string", "description": "A branch: run the pane in a git worktree of cwd's repository for it."},
		}),
		Annotations: writes,
	}, wrap(b.spawnAgent))
	b.srv.AddTool(&sdk.Tool{
		Name:        "send_to_agent",
		Description: "Type text into another pane and, unless submit is false, press Enter (agents' input boxes get a submit they accept; a submitted text waits up to 30 s for an agent that is still starting to read its input, and input_ready in the result is false if it had not).",
		InputSchema: object(map[string]any{
			"target": targetSchema,
			"text":   map[string]any{"type": "string"},
			"submit": map[string]any{"type": "boolean", "description": "Press Enter after the text (default true)."},
		}, "target", "text"),
		Annotations: writes,
	}, wrap(b.sendToAgent))
	b.srv.AddTool(&sdk.Tool{
		Name: "read_from_agent",
		Description: "Read another pane's output: the last lines (default 50), or with since_last only what it printed since your previous read_from_agent of it; " +
			"with pattern, first wait (up to timeout_seconds, default 30) for a new line matching it. Untrusted terminal text.",
		InputSchema: object(map[string]any{
			"target":          targetSchema,
			"lines":           map[string]any{"type": "integer", "minimum": 1},
			"since_last":      map[string]any{"type": "boolean"},
			"pattern":         map[string]any{"type": "string"},
			"timeout_seconds": map[string]any{"type": "number", "exclusiveMinimum": 0},
		}, "target"),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
	}, wrap(b.readFromAgent))
	b.srv.AddTool(&sdk.Tool{
		Name: "wait_for_idle",
		Description: "Block until the agent in a pane stops working (its state leaves thinking: finished, waiting for input, errored), " +
			"or, for a pane whose agent sends no hooks, until its output is quiet for idle_seconds (default 5); up to timeout_seconds (default 300). " +
			"With artifact true, wait instead until the pane's artifact (its final answer) is written after this call starts. The answer comes back when there is one.",
		InputSchema: object(map[string]any{
			"target":          targetSchema,
			"idle_seconds":    map[string]any{"type": "number", "exclusiveMinimum": 0},
			"timeout_seconds": map[string]any{"type": "number", "exclusiveMinimum": 0},
			"artifact":        map[string]any{"type": "boolean"},
		}, "target"),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
	}, wrap(b.waitForIdle))
	b.srv.AddTool(&sdk.Tool{
		Name: "get_artifact",
		Description: "The final answer of the agent in a pane (its artifact: written when its turn ended, or by the agent itself), " +
			"with the file's path. Untrusted text.",
		InputSchema: object(map[string]any{"target": targetSchema}, "target"),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
	}, wrap(b.getArtifact))
	b.srv.AddTool(&sdk.Tool{
		Name:        "kill_agent",
		Description: "Close a pane, ending its program. Refuses to close the pane you run in.",
		InputSchema: object(map[string]any{"target": targetSchema}, "target"),
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &t, OpenWorldHint: &f},
	}, wrap(b.killAgent))
}

func (b *Bridge) spawnAgent(ctx context.Context, req *sdk.CallToolRequest) (string, error) {
	a, err := decodeArgs(req.Params.Arguments)
	if err != nil {
		return "", err
	}
	get := func(k string) (string, error) { return a.strArg(k) }
	known := false
	agent, err := get("agent")
	if err != nil {
		return "", err
	}
	command, err := get("command")
	if err != nil {
		return "", err
	}
	switch {
	case agent != "" && command != "":
		return "", errors.New("pass 'agent' or 'command', not both")
	case agent != "":
		known = true
		c, ok := knownAgents[strings.ToLower(agent)]
		if !ok {
			return "", fmt.Errorf("unknown agent %q; known: claude, codex, gemini, opencode (or pass 'command')", agent)
		}
		command = c
	case command == "":
		return "", errors.New("pass 'agent' (claude, codex, gemini, opencode) or 'command'")
	}
	p := map[string]any{"direction": "vertical", "command": command}
	for _, k := range []string{"cwd", "name"} {
		v, err := get(k)
		if err != nil {
			return "", err
		}
		if v != "" {
			p[k] = v
		}
	}
	task, err := get("task")
	if err != nil {
		return "", err
	}
	keep := false
	if v, there := a["keep_artifact"]; there && v != nil {
		var ok bool
		if keep, ok = v.(bool); !ok {
			return "", errors.New("'keep_artifact' must be a boolean")
		}
	}
	timeout := float64(maxWaitSecs)
	if v, ok, err := a.numArg("timeout_seconds"); err != nil {
		return "", err
	} else if ok {
		if v <= 0 {
			return "", errors.New("'timeout_seconds' must be greater than 0")
		}
		timeout = min(v, maxWaitSecs)
	}
	deps, err := b.dependencies(ctx, a)
	if err != nil {
		return "", err
	}
	if len(deps) > 0 || placeholder.MatchString(task) {
		wctx, cancel := context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
		task, err = b.substitute(wctx, task, deps)
		cancel()
		if err != nil {
			return "", err
		}
	}
	if task != "" && known {
		p["prompt"] = task
	}
	branch, err := get("worktree")
	if err != nil {
		return "", err
	}
	var wt *madeWorktree
	if branch != "" {
		if wt, err = b.makeWorktree(ctx, p, branch); err != nil {
			return "", err
		}
	}
	var r struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	if err := b.call(ctx, nil, "surface.split", p, &r); err != nil {
		if wt != nil && wt.Action == "create" {
			if rerr := b.call(context.WithoutCancel(ctx), b.longClient(worktreeCallWait), "worktree.rollback", map[string]any{"path": wt.Path}, nil); rerr != nil {
				return "", fmt.Errorf("%v (and removing the worktree %s failed: %v)", err, wt.Path, rerr)
			}
		}
		return "", err
	}
	var art artifactInfo
	if keep {
		if err := b.call(ctx, nil, "artifact.keep", map[string]any{"surface_id": r.SurfaceID}, nil); err != nil {
			return "", err
		}
	}
	if !known {
		// No hooks: the task says where the answer goes. Typed once the
		// output settles, like a known agent's first prompt.
		if art, err = b.artifact(ctx, r.SurfaceID); err != nil {
			return "", err
		}
		if task != "" {
			long := b.ipcClient(promptSettleWait + waitCallMargin)
			err := b.call(ctx, long, "surface.wait", map[string]any{"surface_ids": []uint64{r.SurfaceID}, "idle_ms": 500, "timeout_ms": promptSettleWait.Milliseconds()}, nil)
			var e *ipc.Error
			if err == nil || errors.As(err, &e) && e.Code == ipc.CodeTimeout {
				err = b.call(ctx, nil, "surface.send_text", map[string]any{"surface_id": r.SurfaceID, "text": task + fileInstruction(art.Path), "submit": false}, nil)
			}
			if err != nil {
				return "", fmt.Errorf("started surface %d, but could not type the task into it: %v", r.SurfaceID, err)
			}
		}
	}
	name := ""
	if panes, err := b.list(ctx); err == nil {
		for _, pn := range panes {
			if pn.ID == r.SurfaceID {
				name = pn.Name
			}
		}
	}
	res := map[string]any{"surface_id": r.SurfaceID, "name": name, "command": command, "keep_artifact": keep}
	if art.Path != "" {
		res["artifact_path"] = art.Path
	}
	if wt != nil {
		res["worktree"] = map[string]any{"path": wt.Path, "branch": wt.Branch, "repo_root": wt.RepoRoot, "action": wt.Action, "new_branch": wt.NewBranch}
	}
	out, _ := json.Marshal(res)
	return string(out), nil
}

func (b *Bridge) sendToAgent(ctx context.Context, req *sdk.CallToolRequest) (string, error) {
	a, t, err := decodeTargeted(req.Params.Arguments)
	if err != nil {
		return "", err
	}
	text, ok := a["text"].(string)
	if !ok {
		return "", errors.New("missing 'text' argument (a string)")
	}
	submit, err := a.boolArg("submit", true)
	if err != nil {
		return "", err
	}
	id, err := b.resolve(ctx, t)
	if err != nil {
		return "", err
	}
	p := map[string]any{"surface_id": id, "text": text, "submit": submit}
	var cl *ipc.Client
	if submit {
		// An agent spawned moments ago may not read its input yet:
		// Paneflow holds the text until it does, at most this long.
		p["input_wait_ms"] = agentInputWait.Milliseconds()
		cl = b.longClient(agentInputWait)
	}
	var raw json.RawMessage
	if err := b.call(ctx, cl, "surface.send_text", p, &raw); err != nil {
		return "", err
	}
	return pretty(raw), nil
}

// agentInputWait bounds how long send_to_agent has Paneflow hold a
// submitted text for an agent that has not read its input yet
// (surface.send_text's input_wait_ms), as `paneflow send --submit` does;
// the result's input_ready says whether it had.
const agentInputWait = 30 * time.Second

func (b *Bridge) readFromAgent(ctx context.Context, req *sdk.CallToolRequest) (string, error) {
	a, t, err := decodeTargeted(req.Params.Arguments)
	if err != nil {
		return "", err
	}
	pattern, err := a.strArg("pattern")
	if err != nil {
		return "", err
	}
	timeout, err := a.secondsArg("timeout_seconds", 30)
	if err != nil {
		return "", err
	}
	sinceLast, err := a.boolArg("since_last", false)
	if err != nil {
		return "", err
	}
	want := 50 // rows to return
	if lines := clamp(a.intArg("lines"), 1, maxReadLines); lines != nil {
		want = *lines
	}
	id, err := b.resolve(ctx, t)
	if err != nil {
		return "", err
	}
	found := ""
	if pattern != "" {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return "", fmt.Errorf("invalid pattern: %v", err)
		}
		// Already there (in what this read would return)? Else wait for
		// a new line. Output printed between the two is seen by neither
		// (a window of one socket round trip).
		b.mu.Lock()
		last, seen := b.lastRead[id]
		b.mu.Unlock()
		var tail readResult
		n := want
		if err := b.call(ctx, nil, "surface.read", map[string]any{"surface_id": id, "fenced": false, "lines": maxReadLines}, &tail); err != nil {
			return "", err
		}
		rows := strings.Split(strings.TrimRight(tail.Text, "\n"), "\n")
		if sinceLast && seen && tail.TotalLines != nil {
			n = *tail.TotalLines - last
		}
		if n < len(rows) {
			rows = rows[len(rows)-max(n, 0):]
		}
		for _, r := range rows {
			if re.MatchString(r) {
				found = "true"
			}
		}
	}
	if pattern != "" && found == "" {
		d := time.Duration(timeout * float64(time.Second))
		long := b.ipcClient(d + waitCallMargin)
		err := b.call(ctx, long, "surface.wait", map[string]any{"surface_ids": []uint64{id}, "pattern": pattern, "timeout_ms": d.Milliseconds()}, nil)
		var e *ipc.Error
		switch {
		case err == nil:
			found = "true"
		case errors.As(err, &e) && e.Code == ipc.CodeTimeout:
			found = "false"
		default:
			return "", err
		}
	}
	// One snapshot of the tail; the rows after the last read are the
	// newest total-last of it.
	b.mu.Lock()
	last, seen := b.lastRead[id]
	b.mu.Unlock()
	get := want
	if sinceLast {
		get = maxReadLines
	}
	var r readResult
	if err := b.call(ctx, nil, "surface.read", map[string]any{"surface_id": id, "fenced": false, "lines": get}, &r); err != nil {
		return "", err
	}
	total := 0
	if r.TotalLines != nil {
		total = *r.TotalLines
	}
	rows := strings.Split(strings.TrimRight(r.Text, "\n"), "\n")
	if r.Text == "" {
		rows = nil
	}
	if sinceLast && seen && total >= last {
		rows = rows[len(rows)-min(total-last, len(rows)):]
	} else if len(rows) > want {
		rows = rows[len(rows)-want:]
	}
	b.mu.Lock()
	b.lastRead[id] = total
	b.mu.Unlock()
	r.Text = strings.Join(rows, "\n")
	attrs := []FenceAttr{{"source", t.String()}}
	if found != "" {
		attrs = append(attrs, FenceAttr{"found", found})
	}
	return Fence(r.Text, attrs...), nil
}

// busyStates are the conductor states of an agent that is still working.
var busyStates = map[string]bool{"thinking": true}

func (b *Bridge) waitForIdle(ctx context.Context, req *sdk.CallToolRequest) (string, error) {
	a, t, err := decodeTargeted(req.Params.Arguments)
	if err != nil {
		return "", err
	}
	idle, err := a.secondsArg("idle_seconds", 5)
	if err != nil {
		return "", err
	}
	timeout, err := a.secondsArg("timeout_seconds", 300)
	if err != nil {
		return "", err
	}
	useArtifact := false
	if v, there := a["artifact"]; there && v != nil {
		var ok bool
		if useArtifact, ok = v.(bool); !ok {
			return "", errors.New("'artifact' must be a boolean")
		}
	}
	id, err := b.resolve(ctx, t)
	if err != nil {
		return "", err
	}
	start := time.Now()
	deadline := start.Add(time.Duration(timeout * float64(time.Second)))
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if useArtifact {
		art, err := b.waitArtifact(ctx, id, start)
		if err != nil {
			if time.Now().After(deadline) {
				return timedOut(id, timeout), nil
			}
			return "", err
		}
		return fmt.Sprintf(`{"surface_id": %d, "is_idle": true, "by": "artifact"}`, id) + "\n" + artifactText(art, t.String()), nil
	}
	// Subscribe first, so a state change between the status and the wait
	// is not lost.
	st, err := b.client.Subscribe(ctx, "events.subscribe", map[string]any{"surfaces": []uint64{id}, "types": []string{"agent_state", "surface_closed"}})
	if err != nil {
		return "", callError(err)
	}
	defer st.Close()
	for {
		var s struct {
			State string `json:"state"`
		}
		if err := b.call(ctx, nil, "surface.status", map[string]any{"surface_id": id}, &s); err != nil {
			if ctx.Err() != nil && time.Now().After(deadline) {
				return timedOut(id, timeout), nil
			}
			return "", err
		}
		switch {
		case s.State == "unknown_running" || s.State == "idle":
			// No hooks to say when it is done: quiet output is the sign.
			d := time.Until(deadline)
			long := b.ipcClient(d + waitCallMargin)
			err := b.call(ctx, long, "surface.wait", map[string]any{"surface_ids": []uint64{id}, "idle_ms": int64(idle * 1000), "timeout_ms": d.Milliseconds()}, nil)
			var e *ipc.Error
			if errors.As(err, &e) && e.Code == ipc.CodeTimeout || ctx.Err() != nil && time.Now().After(deadline) {
				return timedOut(id, timeout), nil
			}
			if err != nil {
				return "", err
			}
			return fmt.Sprintf(`{"surface_id": %d, "is_idle": true, "state": %s, "by": "quiet output"}`, id, strconv.Quote(s.State)) + b.answerOf(ctx, id, t), nil
		case !busyStates[s.State]:
			return fmt.Sprintf(`{"surface_id": %d, "is_idle": true, "state": %s, "by": "agent state"}`, id, strconv.Quote(s.State)) + b.answerOf(ctx, id, t), nil
		}
		if _, err := st.Next(); err != nil {
			if time.Now().After(deadline) {
				return timedOut(id, timeout), nil
			}
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("Paneflow's event stream ended: %v", err)
		}
	}
}

// promptSettleWait bounds how long spawn_agent waits for a command's
// output to settle before typing its task.
const promptSettleWait = 30 * time.Second

// answerOf is the pane's artifact, as more lines of wait_for_idle's
// answer, when it exists; "" when there is none or it cannot be read.
func (b *Bridge) answerOf(ctx context.Context, id uint64, t Target) string {
	a, err := b.artifact(ctx, id)
	if err != nil || !a.Exists {
		return ""
	}
	return "\n" + artifactText(a, t.String())
}

// timedOut is wait_for_idle's answer at its deadline.
func timedOut(id uint64, secs float64) string {
	return fmt.Sprintf(`{"surface_id": %d, "is_idle": false, "timed_out": true}`+"\ntimed out after %gs", id, secs)
}

func (b *Bridge) killAgent(ctx context.Context, req *sdk.CallToolRequest) (string, error) {
	id, err := b.targetOnly(ctx, req.Params.Arguments)
	if err != nil {
		return "", err
	}
	if b.o.SelfSurface != 0 && id == b.o.SelfSurface {
		return "", fmt.Errorf("refusing to kill surface %d: it is the pane you run in", id)
	}
	return b.callPretty(ctx, "surface.close", map[string]any{"surface_id": id})
}

// worktreeCallWait bounds worktree.create and worktree.rollback: git's own
// limits in package worktree (2 min for `worktree add`) plus its queries.
const worktreeCallWait = 3 * time.Minute

// madeWorktree is worktree.create's result.
type madeWorktree struct {
	Path      string `json:"path"`
	RepoRoot  string `json:"repo_root"`
	Branch    string `json:"branch"`
	Action    string `json:"action"`
	Teardown  string `json:"teardown"`
	NewBranch bool   `json:"new_branch"`
}

// longClient is a socket client for one call that may take up to d.
func (b *Bridge) longClient(d time.Duration) *ipc.Client {
	return b.ipcClient(d + waitCallMargin)
}

// makeWorktree has Paneflow plan and create (or reuse) branch's worktree
// of the repository holding p's cwd (the bridge's own working directory,
// i.e. the calling agent's, when none was given), then points p (a
// surface.split's params) at it: cwd the worktree, managed_worktree so
// that Paneflow tears it down with the pane. The git work runs in the
// server (worktree.create): the bridge links no git code. Its error is
// Paneflow's message as is (git's own words included).
func (b *Bridge) makeWorktree(ctx context.Context, p map[string]any, branch string) (*madeWorktree, error) {
	cwd, _ := p["cwd"].(string)
	if cwd == "" && b.o.Dial != nil {
		return nil, fmt.Errorf("worktree: give cwd, a directory on the host whose panes these are (this bridge's own directory is on another machine)")
	}
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("worktree: no cwd given and the working directory is unknown: %v", err)
		}
		cwd = wd
	}
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("'cwd' must be an absolute path, got %q", cwd)
	}
	var w madeWorktree
	if err := b.call(ctx, b.longClient(worktreeCallWait), "worktree.create", map[string]any{"cwd": cwd, "branch": branch}, &w); err != nil {
		var e *ipc.Error
		if errors.As(err, &e) && e.Code != ipc.CodeMethodNotFound {
			return nil, errors.New(e.Message)
		}
		return nil, err
	}
	p["cwd"] = w.Path
	p["managed_worktree"] = map[string]any{"path": w.Path, "repo_root": w.RepoRoot, "branch": w.Branch, "teardown": "auto", "action": w.Action}
	return &w, nil
}
