//go:build linux

package bench

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/teams"
)

// Samples per make bench round of the agent-teams benchmarks.
const (
	teamsSplitSamples = 40
	teamsSpawnSamples = 60
)

// teamsSplitScript is what Claude Code does to open a teammate's pane,
// as a user could type it: split-window with the `cat` placeholder, then
// list-panes until the new id is listed (one call suffices on both
// sides). Both sides run it with sh, through their own `tmux`.
const teamsSplitScript = `id=$(tmux -L "$SOCK" -f /dev/null split-window -d -t "$TARGET" -v -P -F '#{pane_id}' -- cat) &&
tmux -L "$SOCK" -f /dev/null list-panes -t "$TARGET" -F '#{pane_id}' | grep -qx "$id" && echo "listed $id"`

var (
	shimOnce sync.Once
	shimPath string
	shimErr  error
)

// shimBin returns paneflow-shim: next to the paneflow binary when make
// bench built it there, else built next to it on first use.
func shimBin(b testing.TB) string {
	b.Helper()
	shimOnce.Do(func() {
		shimPath = filepath.Join(filepath.Dir(paneflowBin(b)), "paneflow-shim")
		if _, err := os.Stat(shimPath); err == nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", shimPath, "github.com/paneflow-go/paneflow/cmd/paneflow-shim")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			shimErr = err
			b.Logf("%s", out)
		}
	})
	if shimErr != nil {
		b.Fatal(shimErr)
	}
	return shimPath
}

// teamsLead starts a server and attaches its first pane as a Claude Code
// lead (%0), as the launch shim does.
func teamsLead(b *testing.B) (*pfServer, teams.AttachInfo) {
	pf := startPaneflow(b)
	c := pf.dial(b)
	var l struct {
		Surfaces []struct {
			ID uint64 `json:"surface_id"`
		} `json:"surfaces"`
	}
	if err := c.call("surface.list", nil, &l); err != nil || len(l.Surfaces) == 0 {
		b.Fatalf("surface.list: %v %v", l, err)
	}
	var a teams.AttachInfo
	if err := c.call("teams.attach", map[string]any{"surface_id": l.Surfaces[0].ID}, &a); err != nil {
		b.Fatal(err)
	}
	return pf, a
}

// BenchmarkTeamsSplit measures opening a teammate's pane through tmux
// until it is listed (teamsSplitScript) with Paneflow's tmux shim against
// `paneflow serve`, and with the real tmux against a tmux server. After
// each sample, untimed, the pane is killed. Metric: ms per sample
// (median), sub-benchmarks paneflow and tmux.
func BenchmarkTeamsSplit(b *testing.B) {
	pf, a := teamsLead(b)
	dir := b.TempDir()
	if err := os.Symlink(shimBin(b), filepath.Join(dir, "tmux")); err != nil {
		b.Fatal(err)
	}
	path := dir + ":" + os.Getenv("PATH")
	pfEnv := append(userEnv("PATH="+path, "PANEFLOW_SOCKET_PATH="+pf.sock, "TMUX="+a.TMUX, "TMUX_PANE="+a.Pane),
		"SOCK=ignored", "TARGET="+a.Pane)
	type side struct {
		name string
		env  []string
		kill func(id string) error
	}
	sides := []side{{name: "paneflow", env: pfEnv, kill: func(id string) error {
		c := pf.dial(b)
		defer c.Close()
		var r struct {
			Code   int    `json:"exit_code"`
			Stderr string `json:"stderr"`
		}
		return c.call("teams.tmux", map[string]any{"argv": []string{"kill-pane", "-t", id}, "pane": a.Pane}, &r)
	}}}
	if why := tmuxMissing(); why != "" {
		b.Log(why)
	} else {
		t := startTmux(b)
		pane := t.window(b, "exec sleep 1000000")
		env := append(append([]string(nil), t.s.Cmd().Env...), "SOCK="+t.s.Socket(), "TARGET="+pane)
		sides = append(sides, side{name: "tmux", env: env, kill: func(id string) error {
			_, err := t.s.Command("kill-pane", "-t", id)
			return err
		}})
	}
	xs := make([][]float64, len(sides))
	var out bytes.Buffer
	for i := range teamsSplitSamples + 1 {
		for _, j := range rand.Perm(len(sides)) {
			s := sides[j]
			cmd := exec.Command("/bin/sh", "-c", teamsSplitScript)
			cmd.Env = s.env
			d, err := timeProcess(cmd, &out)
			if err != nil {
				b.Fatalf("%s: %v", s.name, err)
			}
			id, ok := strings.CutPrefix(strings.TrimSpace(out.String()), "listed ")
			if !ok {
				b.Fatalf("%s: %q", s.name, out.String())
			}
			if err := s.kill(id); err != nil {
				b.Fatalf("%s: kill-pane %s: %v", s.name, id, err)
			}
			if i > 0 {
				xs[j] = append(xs[j], ms(d))
			}
		}
	}
	for j, s := range sides {
		b.Run(s.name, func(b *testing.B) { b.ReportMetric(median(xs[j]), "ms") })
	}
}

// BenchmarkTeamsSpawn measures spawn_agent over the CustomPaneBackend
// socket, on one connection, from the request to its reply (the pane is
// created and its program started in the background); each agent is killed
// afterwards, untimed. Metric: ms per spawn (median), sub-benchmark
// paneflow.
func BenchmarkTeamsSpawn(b *testing.B) {
	_, a := teamsLead(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bc, _, err := teams.DialBackend(ctx, a.BackendSocket, a.ContextID)
	if err != nil {
		b.Fatal(err)
	}
	defer bc.Close()
	var xs []float64
	for i := range teamsSpawnSamples + 1 {
		var r struct {
			ContextID string `json:"context_id"`
		}
		start := time.Now()
		err := bc.Call(ctx, "spawn_agent", map[string]any{"command": []string{"cat"}, "metadata": map[string]any{"name": "bench"}}, &r)
		d := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if err := bc.Call(ctx, "kill", map[string]any{"context_id": r.ContextID}, nil); err != nil {
			b.Fatal(err)
		}
		if i > 0 {
			xs = append(xs, ms(d))
		}
	}
	b.Run("paneflow", func(b *testing.B) { b.ReportMetric(median(xs), "ms") })
}
