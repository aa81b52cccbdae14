// Package fleettest puts a fleet's load on a running `paneflow serve`, the
// way issue 25's target describes it: N real paneflow-mcp bridges, each
// holding its events.subscribe stream, and N agents whose hooks (the real
// paneflow-ai-hook binary, one process per frame) fire at once, while the
// caller uses the server as a user would. test/e2e (a small fleet, no
// timing) and test/bench (200 agents, `paneflow ls` timed) share it.
//
// It drives the built binaries and speaks to the socket in plain JSON-RPC,
// as a user's script would: it links none of the app. Every bound in it is
// a hang guard, generous for a loaded 2-core machine.
package fleettest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Timeout bounds one socket call and the wait for the bridges.
const Timeout = 60 * time.Second

// perWorkspace is how many agent panes share a workspace.
const perWorkspace = 20

// Call sends one request to the server at sock on a fresh connection
// and decodes the result into result (nil: discard it).
func Call(sock, method string, params, result any) error {
	nc, err := net.DialTimeout("unix", sock, Timeout)
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(Timeout))
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	if _, err := nc.Write(append(req, '\n')); err != nil {
		return err
	}
	line, err := bufio.NewReaderSize(nc, 1<<20).ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &reply); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if reply.Error != nil {
		return fmt.Errorf("%s: %d %s", method, reply.Error.Code, reply.Error.Message)
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(reply.Result, result)
}

// Kind is one admission kind in [Admission].
type Kind struct {
	Open     int    `json:"open"`
	Limit    int    `json:"limit"`
	Admitted uint64 `json:"admitted"`
	Refused  uint64 `json:"refused"`
}

// Admission is system.admission's result.
type Admission struct {
	Calls              Kind   `json:"calls"`
	Streams            Kind   `json:"streams"`
	Hooks              Kind   `json:"hooks"`
	Idle               int    `json:"idle"`
	Evicted            uint64 `json:"evicted"`
	FirstFrameTimeouts uint64 `json:"first_frame_timeouts"`
}

// GetAdmission asks the server at sock for its admission counters.
func GetAdmission(sock string) (Admission, error) {
	var a Admission
	err := Call(sock, "system.admission", nil, &a)
	return a, err
}

// NewPanes opens n panes that run `sleep`, perWorkspace to a workspace,
// and returns their surface ids: the agents' panes.
func NewPanes(sock string, n int) ([]uint64, error) {
	var ids []uint64
	for w := 0; len(ids) < n; w++ {
		panes := make([]map[string]any, min(perWorkspace, n-len(ids)))
		for i := range panes {
			panes[i] = map[string]any{"command": "exec sleep 1000000"}
		}
		var r struct {
			SurfaceIDs []uint64 `json:"surface_ids"`
		}
		if err := Call(sock, "workspace.up", map[string]any{"name": "fleet-" + strconv.Itoa(w), "layout": "tiled", "panes": panes}, &r); err != nil {
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
}

// StartBridges starts n paneflow-mcp bridges (bin) with env, which must
// point PANEFLOW_SOCKET_PATH at the server sock, and returns once the
// server holds a stream for each (system.admission). Stop ends them.
func StartBridges(bin string, env []string, sock string, n int) (*Bridges, error) {
	before, err := GetAdmission(sock)
	if err != nil {
		return nil, err
	}
	b := &Bridges{}
	for range n {
		cmd := exec.Command(bin)
		cmd.Env = env
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Stop()
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			b.Stop()
			return nil, err
		}
		b.cmds, b.stdins = append(b.cmds, cmd), append(b.stdins, stdin)
	}
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

// Stop ends the bridges (closing stdin ends an MCP server) and waits for
// them, killing those that do not exit.
func (b *Bridges) Stop() {
	for _, in := range b.stdins {
		in.Close()
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
	b.cmds, b.stdins = nil, nil
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
}

// Total is the number of frames the hooks say they delivered.
func (h Hooks) Total() int {
	n := 0
	for _, v := range h.Sent {
		n += v
	}
	return n
}

// FireHooks runs, for every pane at once, frames UserPromptSubmit hooks
// of a Claude Code agent one after another: each a paneflow-ai-hook
// process (bin) with the pane's environment (env plus its
// PANEFLOW_SURFACE_ID), logging to a file per pane in dir.
func FireHooks(bin string, env []string, dir string, panes []uint64, frames int) (Hooks, error) {
	var wg sync.WaitGroup
	errs := make(chan error, len(panes))
	for _, id := range panes {
		wg.Go(func() {
			for i := range frames {
				cmd := exec.Command(bin, "UserPromptSubmit")
				cmd.Env = append(append([]string{}, env...),
					"PANEFLOW_SURFACE_ID="+strconv.FormatUint(id, 10), "PANEFLOW_AI_TOOL=claude",
					"PANEFLOW_HOOK_LOG="+hookLog(dir, id))
				cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"fleet-%d","hook_event_name":"UserPromptSubmit","prompt":"turn %d"}`, id, i))
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					errs <- fmt.Errorf("hook of pane %d: %v %q", id, err, out)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return Hooks{}, err
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
		var st struct {
			TurnSeq uint64 `json:"turn_seq"`
		}
		if err := Call(sock, "surface.status", map[string]any{"surface_id": id}, &st); err != nil {
			return 0, err
		}
		most = max(most, st.TurnSeq)
	}
	return most, nil
}

// Baseline is the server's counts before the hooks fire.
type Baseline struct {
	Admission Admission
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
// admitted once, and run once by the conductor (the turns it counted). It
// returns a description of every mismatch, none when all holds.
func Check(sock string, panes []uint64, before Baseline, h Hooks) ([]string, error) {
	after, err := Measure(sock, panes)
	if err != nil {
		return nil, err
	}
	var bad []string
	if r := after.Admission.Hooks.Refused - before.Admission.Hooks.Refused; r != 0 {
		bad = append(bad, fmt.Sprintf("%d hook frames refused", r))
	}
	if got := after.Admission.Hooks.Admitted - before.Admission.Hooks.Admitted; got != uint64(h.Total()) {
		bad = append(bad, fmt.Sprintf("the server admitted %d hook frames, the hooks say they delivered %d", got, h.Total()))
	}
	if got := after.Turns - before.Turns; got != uint64(h.Total()) {
		bad = append(bad, fmt.Sprintf("the conductor started %d turns, the hooks say they delivered %d prompts", got, h.Total()))
	}
	return bad, nil
}
