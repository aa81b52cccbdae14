//go:build linux

package agents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// benchAgent is how BenchmarkHookToStatus runs one agent: its set-up and a
// one-shot command that sends one prompt.
type benchAgent struct {
	tool    string
	options func(m *fakemodel.Server) options
	command string
}

var benchAgents = []benchAgent{
	{"claude", func(m *fakemodel.Server) options { return options{profile: claudeProfile(m)} }, `claude -p "say done"`},
	{"codex", func(m *fakemodel.Server) options {
		return options{setup: func(e *env) {
			e.write(".codex/config.toml", "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \""+m.URL+"/v1\"\nwire_api = \"responses\"\n")
		}}
	}, `codex exec --skip-git-repo-check "say done" </dev/null`},
	{"gemini", func(m *fakemodel.Server) options {
		return options{profile: geminiProfile(m), setup: geminiSetup(true)}
	}, `gemini -m gemini-2.5-flash -p "say done"`},
	{"opencode", func(m *fakemodel.Server) options {
		return options{
			profile: "export OPENCODE_DISABLE_MODELS_FETCH=true OPENCODE_DISABLE_AUTOUPDATE=true npm_config_offline=true\n",
			setup: func(e *env) {
				e.write(".config/opencode/opencode.json", `{"provider":{"fake":{"npm":"@ai-sdk/openai-compatible","options":{"baseURL":"`+m.URL+`/v1","apiKey":"x"},"models":{"fake-model":{"tool_call":true}}}},"model":"fake/fake-model","permission":{"*":"allow"}}`+"\n")
			}}
	}, `opencode run "say done"`},
}

// BenchmarkHookToStatus measures, per agent, how long the end of a turn
// takes to show: from the fake model's last answer (released while the
// agent is thinking) to `finished` in surface.status. That is the real
// CLI's handling of the answer and its Stop hook (AfterAgent for Gemini,
// session.idle for opencode), paneflow-ai-hook or the plugin, the socket
// and the conductor. The "hook-binary" row is Paneflow's own part alone:
// running paneflow-ai-hook Stop by hand until surface.status shows it.
// Each iteration is one agent run; -benchtime=5x gives five samples, and
// the median is reported (ms-median).
func BenchmarkHookToStatus(b *testing.B) {
	for _, a := range benchAgents {
		b.Run(a.tool, func(b *testing.B) {
			model := fakemodel.Start(b)
			e := newEnv(b, model, a.options(model))
			var samples []time.Duration
			for i := 0; i < b.N; i++ {
				hold := make(chan struct{})
				want := fmt.Sprintf("Done %d.", i)
				model.Append(fakemodel.Turn{Text: want, Hold: hold})
				e.typeLine(a.command)
				if !model.WaitTurns(i+1, nil) {
					b.Fatal("the model server stopped")
				}
				e.waitStatus(a.tool+" thinking", func(s status) bool { return s.State == "thinking" })
				start := time.Now()
				close(hold)
				for {
					st := e.socketStatus()
					if st.State == "finished" && (a.tool == "opencode" || str(st.LastResult) == want) {
						break
					}
					if time.Since(start) > pollTimeout {
						b.Fatalf("no finished state after the answer; last status %s", st)
					}
				}
				samples = append(samples, time.Since(start))
				e.waitStatus(a.tool+" gone", func(s status) bool { return s.State == "idle" })
			}
			reportMedian(b, samples)
		})
	}
	b.Run("hook-binary", func(b *testing.B) {
		e := newEnv(b, fakemodel.Start(b), options{})
		env := append(append([]string(nil), e.environ...), "PANEFLOW_SURFACE_ID=1", "PANEFLOW_WORKSPACE_ID=1", "PANEFLOW_AI_TOOL=claude")
		var samples []time.Duration
		for i := 0; i < b.N; i++ {
			run := func(event, payload string) {
				cmd := exec.Command(filepath.Join(binDir, "paneflow-ai-hook"), event)
				cmd.Env, cmd.Stdin = env, strings.NewReader(payload)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("paneflow-ai-hook %s: %v %s", event, err, out)
				}
			}
			run("UserPromptSubmit", `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"x"}`)
			e.waitStatus("thinking", func(s status) bool { return s.State == "thinking" })
			want := fmt.Sprintf("Done %d.", i)
			start := time.Now()
			run("Stop", `{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"`+want+`"}`)
			for st := e.socketStatus(); st.State != "finished" || str(st.LastResult) != want; st = e.socketStatus() {
				if time.Since(start) > pollTimeout {
					b.Fatalf("no finished state; last status %s", st)
				}
			}
			samples = append(samples, time.Since(start))
		}
		reportMedian(b, samples)
	})
	// From the end of the hook program (its frame sent) to the state in
	// surface.status, without a transcript and with the frames naming a
	// 100 MB Claude Code transcript that the usage subsystem is reading
	// from its start (written just now, so none of it is skipped) while
	// lines are appended to it: the hook path must not notice (target:
	// <= 5 ms either way).
	b.Run("after-hook", func(b *testing.B) { afterHook(b, "") })
	b.Run("after-hook-100MB-transcript", func(b *testing.B) {
		afterHook(b, bigTranscript(b, 100<<20))
	})
}

// afterHook is BenchmarkHookToStatus's after-hook rows: UserPromptSubmit
// then Stop through paneflow-ai-hook, timed from the Stop hook's exit to
// finished with its result in surface.status; the payloads name
// transcript (none when "").
func afterHook(b *testing.B, transcript string) {
	e := newEnv(b, fakemodel.Start(b), options{})
	env := append(append([]string(nil), e.environ...), "PANEFLOW_SURFACE_ID=1", "PANEFLOW_WORKSPACE_ID=1", "PANEFLOW_AI_TOOL=claude")
	tp := ""
	if transcript != "" {
		tp = `,"transcript_path":` + jsonString(transcript)
		stop := make(chan struct{})
		done := appendLines(b, transcript, stop)
		b.Cleanup(func() { close(stop); <-done })
	}
	run := func(event, payload string) {
		cmd := exec.Command(filepath.Join(binDir, "paneflow-ai-hook"), event)
		cmd.Env, cmd.Stdin = env, strings.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("paneflow-ai-hook %s: %v %s", event, err, out)
		}
	}
	var samples []time.Duration
	for i := 0; i < b.N; i++ {
		run("UserPromptSubmit", `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"x"`+tp+`}`)
		e.waitStatus("thinking", func(s status) bool { return s.State == "thinking" })
		want := fmt.Sprintf("Done %d.", i)
		run("Stop", `{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"`+want+`"`+tp+`}`)
		start := time.Now()
		for st := e.socketStatus(); st.State != "finished" || str(st.LastResult) != want; st = e.socketStatus() {
			if time.Since(start) > pollTimeout {
				b.Fatalf("no finished state; last status %s", st)
			}
		}
		samples = append(samples, time.Since(start))
	}
	reportMedian(b, samples)
}

// bigTranscript writes a Claude Code transcript of about size bytes
// (tool results of 64 KB and assistant messages with their usage) and
// returns its path. Its records are stamped an hour ago, as a resumed
// session's history is; the file is written now, so the usage subsystem
// reads all of it (and counts none).
func bigTranscript(b *testing.B, size int) string {
	p := filepath.Join(b.TempDir(), "big.jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	for n := 0; n < size; n++ {
		k, _ := w.WriteString(transcriptLines(n, 64<<10, time.Now().Add(-time.Hour)))
		n += k
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return p
}

// transcriptLines is one response in a Claude Code transcript, stamped
// at: a tool result of out bytes and the assistant message with its
// usage.
func transcriptLines(n, out int, at time.Time) string {
	ts := at.UTC().Format(time.RFC3339Nano)
	return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t` + fmt.Sprint(n) + `","content":"` +
		strings.Repeat("x", out) + `"}]},"timestamp":"` + ts + `"}` + "\n" +
		`{"type":"assistant","requestId":"req_` + fmt.Sprint(n) + `","message":{"id":"msg_` + fmt.Sprint(n) + `","model":"claude-opus-5-5","role":"assistant",` +
		`"content":[{"type":"text","text":"next"}],"usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":1,"output_tokens":5}},"timestamp":"` + ts + `"}` + "\n"
}

// appendLines appends a response to path every 100 ms until stop is
// closed; the returned channel is closed when it stopped.
func appendLines(b *testing.B, path string, stop <-chan struct{}) <-chan struct{} {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer f.Close()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for n := 1 << 30; ; n++ {
			select {
			case <-stop:
				return
			case <-t.C:
				f.WriteString(transcriptLines(n, 16<<10, time.Now()))
			}
		}
	}()
	return done
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	j, _ := json.Marshal(s)
	return string(j)
}

// reportMedian reports the median sample in milliseconds.
func reportMedian(b *testing.B, samples []time.Duration) {
	slices.Sort(samples)
	med := samples[len(samples)/2]
	if len(samples)%2 == 0 {
		med = (samples[len(samples)/2-1] + samples[len(samples)/2]) / 2
	}
	b.ReportMetric(float64(med.Microseconds())/1000, "ms-median")
	b.ReportMetric(0, "ns/op")
}

// socketStatus asks the server for pane 1's surface.status directly over
// its socket: a poll costs a fraction of a millisecond, not a CLI start.
func (e *env) socketStatus() status {
	e.t.Helper()
	c, err := net.Dial("unix", e.sock)
	if err != nil {
		e.t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, `{"jsonrpc":"2.0","id":1,"method":"surface.status","params":{"surface_id":1}}`+"\n")
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		e.t.Fatal(err)
	}
	var resp struct {
		Result status          `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.Error != nil {
		e.t.Fatalf("surface.status: %v %s", err, line)
	}
	return resp.Result
}
