//go:build unix

package usage

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/subsystem"
)

// Environment of the writer helper process (see TestMain).
const (
	envWriterDir   = "PANEFLOW_USAGE_BENCH_WRITER" // the directory of the transcripts
	envWriterCount = "PANEFLOW_USAGE_BENCH_AGENTS"
	envWriterSecs  = "PANEFLOW_USAGE_BENCH_SECS"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envWriterDir); dir != "" {
		n, _ := strconv.Atoi(os.Getenv(envWriterCount))
		secs, _ := strconv.Atoi(os.Getenv(envWriterSecs))
		if err := writeAgents(dir, n, time.Duration(secs)*time.Second); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// responseEvery is how often a simulated agent records a model response
// (a busy agent: a tool call every few seconds).
const responseEvery = 3 * time.Second

// benchLines are one simulated response in a Claude Code transcript: a
// tool's result (16 KB of output, as a busy agent's are) and the
// assistant message with its usage.
func benchLines(agent, n int) string {
	out := strings.Repeat("x", 16<<10)
	return fmt.Sprintf(`{"type":"user","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"%s"}]},"timestamp":"%s"}`+"\n",
		n, out, time.Now().UTC().Format(time.RFC3339Nano)) +
		fmt.Sprintf(`{"type":"assistant","isSidechain":false,"requestId":"req_%d_%d","message":{"id":"msg_%d_%d","model":"claude-opus-5-5","role":"assistant",`+
			`"content":[{"type":"text","text":"Running the next step of the plan now."},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./..."}}],`+
			`"usage":{"input_tokens":1000,"cache_creation_input_tokens":50,"cache_read_input_tokens":30000,"output_tokens":200,"cache_creation":{"ephemeral_1h_input_tokens":0}}},"timestamp":"%s"}`+"\n",
			agent, n, agent, n, n+1, time.Now().UTC().Format(time.RFC3339Nano))
}

// writeAgents is the helper process: n agents each append a response to
// <dir>/<i>.jsonl every responseEvery (staggered), for d.
func writeAgents(dir string, n int, d time.Duration) error {
	files := make([]*os.File, n)
	for i := range files {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d.jsonl", i)), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		files[i] = f
	}
	start := time.Now()
	tick := time.NewTicker(responseEvery / time.Duration(n))
	defer tick.Stop()
	for k := 0; time.Since(start) < d; k++ {
		<-tick.C
		i := k % n
		if _, err := files[i].WriteString(benchLines(i, k/n)); err != nil {
			return err
		}
	}
	return nil
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFollow50: the usage subsystem following 50 working agents,
// each recording a response every 3 s (a 16 KB tool result and an
// assistant message) while its hooks fire (an ai.tool_use per response,
// which keeps every session polled often). The agents are another
// process; this one runs the subsystem and the frames. It reports this
// process's CPU time as a share of one core over 20 s of wall time
// (cpu-%), the same run's without the subsystem (baseline-%: the frames
// and the writer's wait alone), and their difference, what reading the
// usage costs (usage-cpu-%, target <= 1). Every response must be counted.
func BenchmarkFollow50(b *testing.B) {
	secs := 20
	if s, err := strconv.Atoi(os.Getenv(envWriterSecs)); err == nil && s > 0 {
		secs = s
	}
	for i := 0; i < b.N; i++ {
		base := followRun(b, secs, false)
		with := followRun(b, secs, true)
		b.ReportMetric(with, "cpu-%")
		b.ReportMetric(base, "baseline-%")
		b.ReportMetric(with-base, "usage-cpu-%")
	}
}

// followRun runs BenchmarkFollow50's agents for secs and returns this
// process's CPU share; withUsage runs the subsystem.
func followRun(b *testing.B, secs int, withUsage bool) float64 {
	const agents = 50
	b.StopTimer()
	defer b.StartTimer()
	dir := b.TempDir()
	for a := range agents {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.jsonl", a)), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	bs := bus.New()
	defer bs.Close()
	u := New(Options{Panes: benchPanes{}, Dir: b.TempDir()})
	g := subsystem.NewGroup(subsystem.Options{Registry: ipc.NewRegistry(), Bus: bs})
	if withUsage {
		if err := g.Start(u); err != nil {
			b.Fatal(err)
		}
	}
	now := time.Now()
	for a := range agents {
		bs.Publish(bus.AgentState{SurfaceID: uint64(a + 1), Tool: "claude", State: "thinking"})
		bs.Publish(bus.AIPromptSubmit{AgentFrame: bus.AgentFrame{SurfaceID: uint64(a + 1), Tool: "claude", PID: 1000 + a,
			TranscriptPath: filepath.Join(dir, fmt.Sprintf("%d.jsonl", a)), At: now}})
	}
	writer := exec.Command(os.Args[0], "-test.run", "^$")
	writer.Env = append(os.Environ(), envWriterDir+"="+dir, envWriterCount+"="+strconv.Itoa(agents), envWriterSecs+"="+strconv.Itoa(secs))
	writer.Stderr = os.Stderr
	b.StartTimer()
	cpu0, wall0 := cpuTime(), time.Now()
	if err := writer.Start(); err != nil {
		b.Fatal(err)
	}
	// The hooks: an ai.tool_use per agent per response.
	tick := time.NewTicker(responseEvery / agents)
	done := make(chan error, 1)
	go func() { done <- writer.Wait() }()
	var werr error
loop:
	for k := 0; ; k++ {
		select {
		case werr = <-done:
			break loop
		case <-tick.C:
			a := k % agents
			bs.Publish(bus.AIToolUse{AgentFrame: bus.AgentFrame{SurfaceID: uint64(a + 1), Tool: "claude", PID: 1000 + a, At: now}})
		}
	}
	tick.Stop()
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	b.StopTimer()
	if werr != nil {
		b.Fatalf("writer: %v", werr)
	}
	if !withUsage {
		return 100 * cpu.Seconds() / wall.Seconds()
	}
	if err := g.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
	var calls, want int64
	for a := range agents {
		if st, ok := u.SurfaceUsage(uint64(a + 1)); ok {
			calls += st.Session.Calls
		}
		data, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.jsonl", a)))
		want += int64(strings.Count(string(data), `"type":"assistant"`))
	}
	if calls != want || want == 0 {
		b.Fatalf("counted %d responses, the agents wrote %d", calls, want)
	}
	return 100 * cpu.Seconds() / wall.Seconds()
}

// benchPanes is a [Panes] of panes that all exist, in one workspace.
type benchPanes struct{}

func (benchPanes) Pane(id uint64) (PaneInfo, bool) {
	return PaneInfo{WorkspaceID: 1, Workspace: "bench"}, true
}
func (benchPanes) Interactive(uint64) bool       { return true }
func (benchPanes) Press(uint64, ...string) error { return nil }
