// Package fleettest puts a fleet's load on a running `paneflow serve`, the
// way issue 25's target describes it: N real paneflow-mcp bridges, each
// holding its events.subscribe stream, and N agents whose hooks (the real
// paneflow-ai-hook binary, one process per frame; or, with no process,
// Claude Code's http posts or Codex's mcp_tool calls of the bridges' hook
// tool) fire at once, while the caller uses the server as a user would. test/e2e (a small fleet, no
// timing) and test/bench (200 agents, `paneflow ls` timed) share it.
//
// It drives the built binaries and speaks to the socket in plain JSON-RPC,
// as a user's script would, with package proto's types: it links none of
// the app. Every bound in it is
// a hang guard, generous for a loaded 2-core machine, but one:
// [AgentHookTimeout], how long an agent waits for its hook.
package fleettest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/proto"
)

// Timeout bounds one socket call and the wait for the bridges.
const Timeout = 60 * time.Second

// AgentHookTimeout is how long an agent waits for one of its hooks as
// the launch shim configures them: the timeout of Claude Code's http
// hooks (package hook) and of Codex's (package shim), 5 s. A hook frame
// answered later is one the agent gave up on (Claude Code reports the
// hook failed and goes on), so the process-less fleets' agents wait that
// long and no longer: a later answer is a late frame, and fails
// [CheckTurns]. The server answers a hook frame at once (it runs the
// conductor's step and replies), so the bound has a wide margin even on
// 2 loaded cores. The command-hook fleet is not held to it: there the
// hook's own 550 ms budget includes the hook process's wait for a CPU,
// which the machine's other load decides (see [Check]).
const AgentHookTimeout = 5 * time.Second

// perWorkspace is how many agent panes share a workspace.
const perWorkspace = 20

// caller calls the server at a socket path: one request on a fresh
// connection per call, in plain JSON-RPC, as a user's script would.
type caller string

// Call implements proto.Caller.
func (sock caller) Call(ctx context.Context, method string, params, result any) error {
	var d net.Dialer
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	nc, err := d.DialContext(ctx, "unix", string(sock))
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(Timeout))
	if params == nil {
		params = proto.NoParams{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`+"\n", method, p)
	if _, err := io.WriteString(nc, req); err != nil {
		return err
	}
	line, err := bufio.NewReaderSize(nc, 1<<20).ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var reply struct {
		Result json.RawMessage
		Error  *proto.Error
	}
	if err := json.Unmarshal(line, &reply); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if reply.Error != nil {
		return fmt.Errorf("%s: %w", method, reply.Error)
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(reply.Result, result)
}

// Client returns a typed client of the server at sock.
func Client(sock string) proto.Client { return proto.Client{Caller: caller(sock)} }

// GetAdmission asks the server at sock for its admission counters.
func GetAdmission(sock string) (proto.SystemAdmissionResult, error) {
	return Client(sock).Admission(context.Background())
}

// NewPanes opens n panes that run `sleep`, perWorkspace to a workspace,
// and returns their surface ids: the agents' panes.
func NewPanes(sock string, n int) ([]uint64, error) {
	var ids []uint64
	for w := 0; len(ids) < n; w++ {
		panes := make([]proto.PaneParams, min(perWorkspace, n-len(ids)))
		for i := range panes {
			panes[i] = proto.PaneParams{Command: "exec sleep 1000000"}
		}
		name := "fleet-" + strconv.Itoa(w)
		r, err := Client(sock).WorkspaceUp(context.Background(), proto.WorkspaceUpParams{Name: &name, Layout: "tiled", Panes: panes})
		if err != nil {
			return nil, err
		}
		if len(r.SurfaceIDs) != len(panes) {
			return nil, fmt.Errorf("workspace.up made %d panes, want %d", len(r.SurfaceIDs), len(panes))
		}
		ids = append(ids, r.SurfaceIDs...)
	}
	return ids, nil
}

// Bridges are running paneflow-mcp processes.
type Bridges struct {
	cmds   []*exec.Cmd
	stdins []interface{ Close() error }
	outs   []*os.File // their stdout, for [Bridges.FireMCPPaced]
	panes  []uint64   // the pane each runs in, when started by StartPaneBridges
}

// StartBridges starts n paneflow-mcp bridges (bin) with env, which must
// point PANEFLOW_SOCKET_PATH at the server sock, and returns once the
// server holds a stream for each (system.admission). Stop ends them.
func StartBridges(bin string, env []string, sock string, n int) (*Bridges, error) {
	return startBridges(bin, env, sock, make([]uint64, n))
}

// StartPaneBridges is StartBridges with one bridge per pane, run as in
// that pane (its PANEFLOW_SURFACE_ID), as an agent in it runs its bridge:
// [Bridges.FireMCPPaced] reports through them.
func StartPaneBridges(bin string, env []string, sock string, panes []uint64) (*Bridges, error) {
	return startBridges(bin, env, sock, panes)
}

func startBridges(bin string, env []string, sock string, panes []uint64) (*Bridges, error) {
	before, err := GetAdmission(sock)
	if err != nil {
		return nil, err
	}
	b := &Bridges{}
	for _, id := range panes {
		cmd := exec.Command(bin)
		cmd.Env = env
		if id != 0 {
			cmd.Env = append(append([]string{}, env...), "PANEFLOW_SURFACE_ID="+strconv.FormatUint(id, 10))
		}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Stop()
			return nil, err
		}
		var r, w *os.File // stdout, read by FireMCPPaced: only a pane's bridge
		if id != 0 {
			if r, w, err = os.Pipe(); err != nil {
				stdin.Close()
				b.Stop()
				return nil, err
			}
			cmd.Stdout = w
		}
		err = cmd.Start()
		if w != nil {
			w.Close()
		}
		if err != nil {
			stdin.Close()
			if r != nil {
				r.Close()
			}
			b.Stop()
			return nil, err
		}
		b.cmds, b.stdins, b.outs, b.panes = append(b.cmds, cmd), append(b.stdins, stdin), append(b.outs, r), append(b.panes, id)
	}
	n := len(panes)
	deadline := time.Now().Add(Timeout)
	for {
		a, err := GetAdmission(sock)
		if err == nil && a.Streams.Open >= before.Streams.Open+n {
			return b, nil
		}
		if time.Now().After(deadline) {
			b.Stop()
			return nil, fmt.Errorf("after %v the server holds %d streams, want %d more than %d (%v)", Timeout, a.Streams.Open, n, before.Streams.Open, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FireMCPPaced is [FireHTTPPaced] for Codex agents whose hooks are
// mcp_tool hooks calling their bridge's hook tool (proto.MCPHookTool),
// as the launch shim configures them when Codex runs our bridge: every
// bridge of StartPaneBridges gets MCP's initialize, then frames
// UserPromptSubmit calls of the tool, pace apart (its first at i/n of
// pace), one after another (once every bridge is initialized), each answer waited for at most
// [AgentHookTimeout] as Codex waits for a hook. The agents are
// goroutines of the caller's process, speaking MCP on the bridges' stdio
// as Codex does; no process starts per frame. Sent counts the answers
// per pane; Failed holds every error, a late answer included.
func (b *Bridges) FireMCPPaced(frames int, pace time.Duration) Hooks {
	h := Hooks{Sent: map[uint64]int{}, Fired: len(b.panes) * frames}
	var mu sync.Mutex
	fail := func(id uint64, f int, err error) {
		mu.Lock()
		h.Failed = append(h.Failed, fmt.Sprintf("pane %d frame %d: %v", id, f, err))
		mu.Unlock()
	}
	var wg, ready sync.WaitGroup
	start := make(chan struct{})
	for i, id := range b.panes {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			in, out := b.stdins[i].(io.Writer), bufio.NewReader(b.outs[i])
			call := func(rid int, method string, params any) error {
				msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
				if _, err := in.Write(append(msg, '\n')); err != nil {
					return err
				}
				b.outs[i].SetReadDeadline(time.Now().Add(AgentHookTimeout))
				for {
					line, err := out.ReadBytes('\n')
					if err != nil {
						return err
					}
					var reply struct {
						ID     *int            `json:"id"`
						Result json.RawMessage `json:"result"`
						Error  json.RawMessage `json:"error"`
					}
					if json.Unmarshal(line, &reply) != nil || reply.ID == nil || *reply.ID != rid {
						continue // a notification (resources list_changed …)
					}
					if reply.Error != nil {
						return fmt.Errorf("%s: %s", method, reply.Error)
					}
					return nil
				}
			}
			if err := call(0, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "fleettest", "version": "0"}}); err != nil {
				fail(id, -1, err)
				ready.Done()
				return
			}
			in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
			ready.Done()
			<-start
			if pace > 0 {
				time.Sleep(pace * time.Duration(i) / time.Duration(len(b.panes)))
			}
			for f := range frames {
				if f > 0 && pace > 0 {
					time.Sleep(pace)
				}
				args := map[string]any{"event": "UserPromptSubmit", "tool": "codex", "pid": "",
					"payload": map[string]any{"session_id": fmt.Sprintf("fleet-%d", id), "prompt": fmt.Sprintf("turn %d", f)}}
				posted := time.Now()
				err := call(f+1, "tools/call", map[string]any{"name": proto.MCPHookTool, "arguments": args})
				took := time.Since(posted)
				mu.Lock()
				h.Slowest = max(h.Slowest, took)
				if err == nil {
					h.Sent[id]++
				}
				mu.Unlock()
				if err != nil {
					fail(id, f, err)
				}
			}
		}()
	}
	ready.Wait() // every bridge initialized: the storm starts together
	close(start)
	wg.Wait()
	return h
}

// Pids returns the bridges' process ids.
func (b *Bridges) Pids() []int {
	pids := make([]int, len(b.cmds))
	for i, cmd := range b.cmds {
		pids[i] = cmd.Process.Pid
	}
	return pids
}

// Stop ends the bridges (closing stdin ends an MCP server) and waits for
// them, killing those that do not exit.
func (b *Bridges) Stop() {
	for _, in := range b.stdins {
		in.Close()
	}
	for _, out := range b.outs {
		if out != nil {
			out.Close()
		}
	}
	for _, cmd := range b.cmds {
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	b.cmds, b.stdins, b.outs, b.panes = nil, nil, nil, nil
}

// Hooks is what [FireHooks] saw.
type Hooks struct {
	// Sent counts, per pane, the hooks that say they delivered their
	// frame (their log's "sent" line).
	Sent map[uint64]int
	// Fired is the number of hook processes run.
	Fired int
	// Failed holds the log lines of the hooks that did not deliver.
	Failed []string
	// Slowest is the longest a process-less hook waited for its answer
	// ([FireHTTPPaced]); zero for hook processes.
	Slowest time.Duration
}

// Total is the number of frames the hooks say they delivered.
func (h Hooks) Total() int {
	n := 0
	for _, v := range h.Sent {
		n += v
	}
	return n
}

// agentScript is what each agent process runs: it waits for the start
// signal (its stdin closed), then runs its hook process once per payload
// file ($1…), one after another, as an agent CLI runs its hook commands;
// whatever a hook prints, and a failing exit status, go to $PANEFLOW_OUT.
// With $PANEFLOW_PACE set (seconds) it first waits $PANEFLOW_OFFSET
// seconds, then that long between its hooks.
const agentScript = `read _
hook=$0
[ -n "$PANEFLOW_PACE" ] && sleep "$PANEFLOW_OFFSET"
first=1
for f in "$@"; do
	[ -n "$PANEFLOW_PACE" ] && [ -z "$first" ] && sleep "$PANEFLOW_PACE"
	first=
	"$hook" UserPromptSubmit <"$f" >>"$PANEFLOW_OUT" 2>&1 || echo "exit status $?" >>"$PANEFLOW_OUT"
done
`

// FireHooks runs, for every pane at once, frames UserPromptSubmit hooks
// of a Claude Code agent one after another: each a paneflow-ai-hook
// process (bin) with the pane's environment (env plus its
// PANEFLOW_SURFACE_ID), logging to a file per pane in dir.
//
// Each agent is its own process (/bin/sh), started before the storm and
// released with the others, that starts its hooks itself, as 200 agent
// CLIs do: the caller's process starts none of them, so that nothing the
// caller times waits behind hundreds of process starts in its own fork
// lock (exec.Cmd.Start takes syscall.ForkLock), which no agent's hook
// does to a user's `paneflow ls`.
func FireHooks(bin string, env []string, dir string, panes []uint64, frames int) (Hooks, error) {
	return FireHooksPaced(bin, env, dir, panes, frames, 0)
}

// FireHooksPaced is [FireHooks] with every agent waiting pace between its
// hooks, and the agents' first hooks spread evenly over the first pace
// (agent i of n starts at i/n of it): working agents, each firing a hook
// every pace, rather than all at once. A pace of 0 is FireHooks.
func FireHooksPaced(bin string, env []string, dir string, panes []uint64, frames int, pace time.Duration) (Hooks, error) {
	agents := make([]*exec.Cmd, 0, len(panes))
	starts := make([]io.Closer, 0, len(panes))
	defer func() {
		for _, in := range starts {
			in.Close()
		}
		for _, cmd := range agents {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	for _, id := range panes {
		args := []string{"-c", agentScript, bin}
		for i := range frames {
			payload := filepath.Join(dir, fmt.Sprintf("payload-%d-%d.json", id, i))
			data := fmt.Sprintf(`{"session_id":"fleet-%d","hook_event_name":"UserPromptSubmit","prompt":"turn %d"}`, id, i)
			if err := os.WriteFile(payload, []byte(data), 0o600); err != nil {
				return Hooks{}, err
			}
			args = append(args, payload)
		}
		cmd := exec.Command("/bin/sh", args...)
		cmd.Env = append(append([]string{}, env...),
			"PANEFLOW_SURFACE_ID="+strconv.FormatUint(id, 10), "PANEFLOW_AI_TOOL=claude",
			"PANEFLOW_HOOK_LOG="+hookLog(dir, id), "PANEFLOW_OUT="+hookOut(dir, id))
		if pace > 0 {
			offset := pace * time.Duration(len(agents)) / time.Duration(len(panes))
			cmd.Env = append(cmd.Env, "PANEFLOW_PACE="+seconds(pace), "PANEFLOW_OFFSET="+seconds(offset))
		}
		start, err := cmd.StdinPipe()
		if err != nil {
			return Hooks{}, err
		}
		if err := cmd.Start(); err != nil {
			start.Close()
			return Hooks{}, fmt.Errorf("agent of pane %d: %w", id, err)
		}
		agents, starts = append(agents, cmd), append(starts, start)
	}
	for _, in := range starts {
		in.Close()
	}
	starts = nil
	var errs []error
	for i, cmd := range agents {
		if err := cmd.Wait(); err != nil {
			errs = append(errs, fmt.Errorf("agent of pane %d: %w", panes[i], err))
		}
	}
	agents = nil
	for _, id := range panes {
		if out, err := os.ReadFile(hookOut(dir, id)); err == nil && len(out) > 0 {
			errs = append(errs, fmt.Errorf("hook of pane %d: %q", id, out))
		}
	}
	if len(errs) > 0 {
		return Hooks{}, errs[0]
	}
	h := Hooks{Sent: map[uint64]int{}, Fired: len(panes) * frames}
	for _, id := range panes {
		data, err := os.ReadFile(hookLog(dir, id))
		if err != nil {
			return Hooks{}, err
		}
		for _, line := range strings.Split(string(bytes.TrimSpace(data)), "\n") {
			if strings.Contains(line, "UserPromptSubmit: sent ai.prompt_submit") {
				h.Sent[id]++
			} else {
				h.Failed = append(h.Failed, line)
			}
		}
	}
	return h, nil
}

// seconds formats d for sleep(1).
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// hookOut is where the hooks of pane id print (nothing, when they work).
func hookOut(dir string, id uint64) string {
	return filepath.Join(dir, "out-"+strconv.FormatUint(id, 10))
}

func hookLog(dir string, id uint64) string {
	return filepath.Join(dir, "hook-"+strconv.FormatUint(id, 10)+".log")
}

// Turns returns the largest turn_seq of the panes' surface.status: the
// conductor numbers every turn start of every agent (each prompt_submit
// is one) from one counter, so between two calls it grows by the number
// of prompt_submit frames the conductor ran.
func Turns(sock string, panes []uint64) (uint64, error) {
	var most uint64
	for _, id := range panes {
		st, err := Client(sock).SurfaceStatus(context.Background(), proto.SurfaceTarget(id))
		if err != nil {
			return 0, err
		}
		most = max(most, st.TurnSeq)
	}
	return most, nil
}

// Baseline is the server's counts before the hooks fire.
type Baseline struct {
	Admission proto.SystemAdmissionResult
	Turns     uint64
}

// Measure takes the baseline of [Check].
func Measure(sock string, panes []uint64) (Baseline, error) {
	a, err := GetAdmission(sock)
	if err != nil {
		return Baseline{}, err
	}
	t, err := Turns(sock, panes)
	return Baseline{a, t}, err
}

// Check compares what the hooks say with what the server counted since
// before: no hook frame refused; every frame a hook says it delivered
// admitted (none lost), and no more admitted than fired; and every frame
// admitted run by the conductor (the turns it counted; it may still be
// running the last ones, so Check waits for them up to Timeout). A hook
// that ran out of its time budget on a loaded machine may have been
// admitted all the same, which is why delivered is a lower bound. It
// returns a description of every mismatch, none when all holds.
//
// Check does not fail on a hook that ran out of its 550 ms budget (late:
// its log says so, [Hooks.Failed]) or on a frame such a hook never wrote
// (lost: fewer admitted than fired). That budget starts with the hook
// process, so it counts the process's wait for a CPU, which on a small
// machine is the other load's to decide (at load 14-34 on 2 cores 55-257
// of 600 hooks overran it and 0-2 frames were never written, while the
// server answered every frame it got): failing there would fail on the
// machine, not on Paneflow. The callers report both (hooks-late,
// hooks-lost); the process-less paths are held to the agent's own bound
// ([CheckTurns]).
func Check(sock string, panes []uint64, before Baseline, h Hooks) ([]string, error) {
	deadline := time.Now().Add(Timeout)
	for {
		after, err := Measure(sock, panes)
		if err != nil {
			return nil, err
		}
		var bad []string
		admitted := after.Admission.Hooks.Admitted - before.Admission.Hooks.Admitted
		if r := after.Admission.Hooks.Refused - before.Admission.Hooks.Refused; r != 0 {
			bad = append(bad, fmt.Sprintf("%d hook frames refused", r))
		}
		if admitted < uint64(h.Total()) {
			bad = append(bad, fmt.Sprintf("the server admitted %d hook frames, the hooks say they delivered %d: frames lost", admitted, h.Total()))
		}
		if admitted > uint64(h.Fired) {
			bad = append(bad, fmt.Sprintf("the server admitted %d hook frames, only %d were fired", admitted, h.Fired))
		}
		turns := after.Turns - before.Turns
		if turns == admitted || time.Now().After(deadline) {
			if turns != admitted {
				bad = append(bad, fmt.Sprintf("the conductor started %d turns for the %d prompt frames admitted", turns, admitted))
			}
			return bad, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// FireHTTPPaced is [FireHooksPaced] for Claude Code agents whose hooks are
// http hooks (package hookhttp, reached at ep): every agent posts its
// frames UserPromptSubmit payloads, pace apart (its first at i/n of pace),
// with the query and headers the launch shim gives Claude Code 2.1.332
// and over a keep-alive connection of its own, as Claude Code's HTTP
// client keeps one, waiting for each answer at most [AgentHookTimeout]
// as Claude Code does. An agent is a goroutine of the caller's process, not
// a process: a real agent is a process that is running anyway, and an
// http hook starts none. Sent counts the 200 answers per pane; Failed
// holds every other answer or error, a late one included.
func FireHTTPPaced(ep proto.HooksEndpointResult, panes []uint64, frames int, pace time.Duration) Hooks {
	h := Hooks{Sent: map[uint64]int{}, Fired: len(panes) * frames}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, id := range panes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: AgentHookTimeout}
			defer client.CloseIdleConnections()
			<-start
			if pace > 0 {
				time.Sleep(pace * time.Duration(i) / time.Duration(len(panes)))
			}
			for f := range frames {
				if f > 0 && pace > 0 {
					time.Sleep(pace)
				}
				body := fmt.Sprintf(`{"session_id":"fleet-%d","hook_event_name":"UserPromptSubmit","prompt":"turn %d"}`, id, f)
				url := fmt.Sprintf("%s?event=UserPromptSubmit&surface=%d&tool=claude", ep.URL, id)
				req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				if err != nil {
					panic(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/plain, */*")
				req.Header.Set("Authorization", "Bearer "+ep.Token)
				req.Header.Set("X-Paneflow-Hook", "1")
				req.Header.Set("User-Agent", "axios/1.15.2")
				posted := time.Now()
				resp, err := client.Do(req)
				took := time.Since(posted)
				var fail string
				if err != nil {
					fail = err.Error()
				} else {
					msg, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						fail = resp.Status + ": " + string(msg)
					}
				}
				mu.Lock()
				h.Slowest = max(h.Slowest, took)
				if fail == "" {
					h.Sent[id]++
				} else {
					h.Failed = append(h.Failed, fmt.Sprintf("pane %d frame %d: %s", id, f, fail))
				}
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	return h
}

// CheckTurns is [Check] for frames that bypass the socket's admission
// (http hooks): every frame fired answered 200 within
// [AgentHookTimeout] (none refused, failed or late), and the conductor
// ran each one (the turns it counted since before, waited for up to
// Timeout). It returns a description of every mismatch and the turns
// counted.
func CheckTurns(sock string, panes []uint64, before Baseline, h Hooks) ([]string, uint64, error) {
	deadline := time.Now().Add(Timeout)
	for {
		t, err := Turns(sock, panes)
		if err != nil {
			return nil, 0, err
		}
		turns := t - before.Turns
		if turns == uint64(h.Fired) || time.Now().After(deadline) {
			var bad []string
			if len(h.Failed) > 0 {
				bad = append(bad, fmt.Sprintf("%d hook posts refused, failed or not answered within the agent's %v (late), first: %s", len(h.Failed), AgentHookTimeout, h.Failed[0]))
			}
			if turns != uint64(h.Fired) {
				bad = append(bad, fmt.Sprintf("the conductor started %d turns for the %d prompt frames posted: frames lost", turns, h.Fired))
			}
			return bad, turns, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}
