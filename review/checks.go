package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/fence"
	"github.com/paneflow-go/paneflow/internal/spectrust"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/worktree"
)

// ConfigFile is the repository's configuration file, at the root of each
// of its work trees: its [checks] table names the check commands.
//
//	[checks]
//	on_turn_end = true          # run them each time the agent finishes a turn
//	timeout_secs = 600          # per check (default 600)
//	[checks.commands]
//	test = "go test ./..."
//	lint = "go vet ./..."
const ConfigFile = ".paneflow.toml"

// defaultCheckTimeout is a check's time limit unless timeout_secs says.
const defaultCheckTimeout = 10 * time.Minute

// checkConfig is the [checks] table of a ConfigFile.
type checkConfig struct {
	Checks struct {
		OnTurnEnd   bool              `toml:"on_turn_end"`
		TimeoutSecs int               `toml:"timeout_secs"`
		Commands    map[string]string `toml:"commands"`
	} `toml:"checks"`
}

// check is one configured check.
type check struct{ name, command string }

// checkSet is a worktree's checks as its ConfigFile names them.
type checkSet struct {
	path      string
	checks    []check // sorted by name
	onTurnEnd bool
	timeout   time.Duration
}

// loadChecks reads root's ConfigFile and, unless trust says the user
// trusts exactly these bytes, refuses: a repository's file runs nothing
// on its own (the agent in the worktree could have written it).
func (s *Service) loadChecks(root string) (checkSet, error) {
	path := filepath.Join(root, ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return checkSet{}, ipc.InvalidParams("no checks configured: %s does not exist (its [checks.commands] table names them)", path)
	}
	if err != nil {
		return checkSet{}, ipc.InvalidParams("%v", err)
	}
	var cfg checkConfig
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return checkSet{}, ipc.InvalidParams("%s: %v", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		var keys []string
		for _, k := range und {
			if len(k) > 0 && k[0] == "checks" {
				keys = append(keys, k.String())
			}
		}
		if len(keys) > 0 {
			return checkSet{}, ipc.InvalidParams("%s: unknown keys %s", path, strings.Join(keys, ", "))
		}
	}
	set := checkSet{path: path, onTurnEnd: cfg.Checks.OnTurnEnd, timeout: defaultCheckTimeout}
	if cfg.Checks.TimeoutSecs < 0 {
		return checkSet{}, ipc.InvalidParams("%s: checks.timeout_secs must be positive", path)
	}
	if cfg.Checks.TimeoutSecs > 0 {
		set.timeout = time.Duration(cfg.Checks.TimeoutSecs) * time.Second
	}
	for name, cmd := range cfg.Checks.Commands {
		if strings.TrimSpace(cmd) == "" {
			return checkSet{}, ipc.InvalidParams("%s: check '%s' has no command", path, name)
		}
		set.checks = append(set.checks, check{name, cmd})
	}
	if len(set.checks) == 0 {
		return checkSet{}, ipc.InvalidParams("no checks configured: %s has no [checks.commands]", path)
	}
	sort.Slice(set.checks, func(i, j int) bool { return set.checks[i].name < set.checks[j].name })
	st, err := s.o.Trust(path, data)
	if err != nil {
		return checkSet{}, ipc.Errorf(ipc.CodeInternal, "%v", err)
	}
	if !st.OK() {
		what := "is not trusted"
		if st == spectrust.Changed {
			what = "changed since you trusted it"
		}
		return checkSet{}, ipc.InvalidParams("the checks of %s are not run: the file %s; read it, then `paneflow trust %s`", path, what, path)
	}
	return set, nil
}

// checksOf decodes a checks method's params into p, whose worktree
// member is dir, and returns the worktree's root and its trusted
// checks.
func (s *Service) checksOf(ctx context.Context, params json.RawMessage, p any, dir *string) (string, checkSet, error) {
	if err := proto.DecodeParams(params, p); err != nil {
		return "", checkSet{}, err
	}
	root, err := s.rootOf(ctx, *dir)
	if err != nil {
		return "", checkSet{}, err
	}
	set, err := s.loadChecks(root)
	return root, set, err
}

// checksRun is checks.run: the named checks (all when none is named) run
// one after the other in the worktree; the answer is their results.
func (s *Service) checksRun(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ChecksParams
	root, set, err := s.checksOf(ctx, params, &p, &p.Worktree)
	if err != nil {
		return nil, err
	}
	var run []check
	for _, n := range p.Names {
		i := slices.IndexFunc(set.checks, func(c check) bool { return c.name == n })
		if i < 0 {
			return nil, ipc.InvalidParams("no check '%s' in %s", n, set.path)
		}
		run = append(run, set.checks[i])
	}
	if len(p.Names) == 0 {
		run = set.checks
	}
	res := proto.ChecksResult{Worktree: root, Config: set.path, OnTurnEnd: set.onTurnEnd, Checks: []proto.CheckResult{}}
	s.beginRun(root, set)
	defer s.endRun(root)
	for _, c := range run {
		res.Checks = append(res.Checks, s.runCheck(ctx, root, c, set.timeout, "run"))
	}
	return res, nil
}

// runCheck runs one check in root and records its result (marked running
// while it runs) for checks.status.
func (s *Service) runCheck(ctx context.Context, root string, c check, timeout time.Duration, trigger string) proto.CheckResult {
	start := s.o.Now()
	r := proto.CheckResult{Name: c.name, Command: c.command, Status: proto.CheckRunning, StartedAt: start.UTC().Format(time.RFC3339), Trigger: trigger}
	s.record(root, r)
	out, err := worktree.RunOutput(ctx, root, c.command, nil, timeout)
	r.DurationMS = s.o.Now().Sub(start).Milliseconds()
	var se *worktree.SetupError
	switch {
	case err == nil:
		r.Status = proto.CheckPass
		code := 0
		r.ExitCode = &code
	case errors.As(err, &se):
		r.Status, r.Output, r.TimedOut = proto.CheckFail, out, se.TimedOut
		if se.Code >= 0 {
			code := se.Code
			r.ExitCode = &code
		}
		if r.Output == "" {
			r.Output = se.Error()
		}
	default:
		r.Status, r.Output = proto.CheckFail, err.Error()
	}
	s.record(root, r)
	return r
}

// record keeps r as its check's latest result in root: in memory, and a
// finished run in root's file of the store too, so that it outlives the
// server (a run in progress is this process's alone).
func (s *Service) record(root string, r proto.CheckResult) {
	s.pubMu.Lock()
	s.mu.Lock()
	if s.results[root] == nil {
		s.results[root] = map[string]proto.CheckResult{}
	}
	s.results[root][r.Name] = r
	ev := s.checksChangedLocked(root)
	s.mu.Unlock()
	s.publish(ev)
	s.pubMu.Unlock()
	if r.Status == proto.CheckRunning {
		return
	}
	err := s.store.Update(root, func(f *file) (bool, error) {
		if f.Checks == nil {
			f.Checks = map[string]proto.CheckResult{}
		}
		f.Checks[r.Name] = r
		return true, nil
	})
	if err != nil {
		s.logf("paneflow: checks: %s: the result of %s is not kept on disk: %v", root, r.Name, err)
	}
}

// beginRun says that a run of set's checks in root starts: root's checks
// read as running until the matching endRun. The results of checks that
// set no longer has, or has with another command, are forgotten (latest
// left them out already).
func (s *Service) beginRun(root string, set checkSet) {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	s.runs[root]++
	for name, r := range s.results[root] {
		i := slices.IndexFunc(set.checks, func(c check) bool { return c.name == name })
		if i < 0 || set.checks[i].command != r.Command {
			delete(s.results[root], name)
		}
	}
	ev := s.checksChangedLocked(root)
	s.mu.Unlock()
	s.publish(ev)
}

// endRun says that a run beginRun announced ended.
func (s *Service) endRun(root string) {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	if s.runs[root]--; s.runs[root] <= 0 {
		delete(s.runs, root)
	}
	ev := s.checksChangedLocked(root)
	s.mu.Unlock()
	s.publish(ev)
}

// checksChangedLocked is the ChecksChanged of root as its checks stand:
// s.mu must be held.
func (s *Service) checksChangedLocked(root string) bus.ChecksChanged {
	ev := bus.ChecksChanged{Worktree: root, Status: proto.CheckPass, Checks: []proto.CheckResult{}}
	for _, r := range s.results[root] {
		r.Output = ""
		ev.Checks = append(ev.Checks, r)
		ev.DurationMS += r.DurationMS
		switch {
		case r.Status == proto.CheckRunning:
			ev.Status = proto.CheckRunning
		case r.Status == proto.CheckFail && ev.Status == proto.CheckPass:
			ev.Status = proto.CheckFail
		}
	}
	if s.runs[root] > 0 {
		ev.Status = proto.CheckRunning
	}
	sort.Slice(ev.Checks, func(i, j int) bool { return ev.Checks[i].Name < ev.Checks[j].Name })
	return ev
}

// publish puts ev on the bus, when there is one.
func (s *Service) publish(ev bus.Event) {
	if s.bus != nil {
		s.bus.Publish(ev)
	}
}

// latest is root's last result of each configured check (this process's,
// else the one kept on disk), in set's order; a result of another command
// than the one configured now is left out.
func (s *Service) latest(root string, set checkSet) []proto.CheckResult {
	var kept map[string]proto.CheckResult
	_ = s.store.Update(root, func(f *file) (bool, error) { // read only
		kept = f.Checks
		return false, nil
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []proto.CheckResult{}
	for _, c := range set.checks {
		r, ok := s.results[root][c.name]
		if !ok {
			r, ok = kept[c.name]
		}
		if ok && r.Command == c.command {
			out = append(out, r)
		}
	}
	return out
}

// checksStatus is checks.status: each configured check's last result.
func (s *Service) checksStatus(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ChecksParams
	root, set, err := s.checksOf(ctx, params, &p, &p.Worktree)
	if err != nil {
		return nil, err
	}
	return proto.ChecksResult{Worktree: root, Config: set.path, OnTurnEnd: set.onTurnEnd, Checks: s.latest(root, set)}, nil
}

// checksSend is checks.send: a failing check's output sent to the agent
// working in the worktree as a prompt, the output fenced as untrusted.
func (s *Service) checksSend(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ReviewSendParams
	root, set, err := s.checksOf(ctx, params, &p, &p.Worktree)
	if err != nil {
		return nil, err
	}
	if p.Check == "" {
		return nil, ipc.InvalidParams("Missing 'check' parameter")
	}
	i := slices.IndexFunc(s.latest(root, set), func(r proto.CheckResult) bool { return r.Name == p.Check })
	if i < 0 {
		return nil, ipc.InvalidParams("check '%s' has not run in %s (paneflow checks run)", p.Check, root)
	}
	r := s.latest(root, set)[i]
	if r.Status != proto.CheckFail {
		return nil, ipc.InvalidParams("check '%s' did not fail (%s): nothing to send", p.Check, r.Status)
	}
	res, err := s.deliver(ctx, root, p, checkPrompt(root, r))
	if err != nil {
		return nil, err
	}
	res.Check = r.Name
	return res, nil
}

// checkPrompt is the prompt of a failing check: what ran and how it
// ended, then its output in the untrusted-output envelope (a program's
// output is data, not instructions), cut to fit send_text's limit.
func checkPrompt(root string, r proto.CheckResult) string {
	how := "failed"
	switch {
	case r.TimedOut:
		how = fmt.Sprintf("was stopped after %.0fs", float64(r.DurationMS)/1000)
	case r.ExitCode != nil:
		how = fmt.Sprintf("failed with exit code %d", *r.ExitCode)
	}
	out := r.Output
	if limit := maxPrompt - 1024; len(out) > limit {
		out = "[… cut]\n" + out[len(out)-limit:]
	}
	return fmt.Sprintf("The check %q (`%s`) %s in %s. Its output is below; fix the cause, run it again, then say what you changed.\n\n%s\n",
		fence.Defang(clean(r.Name)), fence.Defang(clean(r.Command)), how, fence.Defang(clean(root)),
		fence.Wrap(clean(out), fence.Attr{Name: "source", Value: "check:" + r.Name}))
}

// followTurns runs a worktree's checks each time the agent working in it
// finishes a turn (an agent_state into "finished"), when the worktree's
// trusted ConfigFile says on_turn_end. One run per worktree at a time: a
// turn that ends while its checks run starts none. It ends at Shutdown.
func (s *Service) followTurns(sub *bus.Subscription) {
	defer s.wg.Done()
	defer sub.Close()
	var buf []bus.Event
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-sub.Done():
			return
		case <-sub.Ready():
		}
		var evs []bus.Event
		evs, _ = sub.Drain(buf[:0])
		buf = evs
		for _, e := range evs {
			st, ok := e.(bus.AgentState)
			if !ok || st.SurfaceID == 0 || st.State != string(proto.StateFinished) || st.Previous == st.State {
				continue
			}
			s.wg.Add(1)
			go func(id uint64) {
				defer s.wg.Done()
				s.turnEnded(id)
			}(st.SurfaceID)
		}
	}
}

// turnEnded runs the on_turn_end checks of the worktree pane id works in.
func (s *Service) turnEnded(id uint64) {
	ctx := s.ctx
	cl := proto.Client{Caller: s.o.Dial(0)}
	ls, err := cl.SurfaceList(ctx)
	if err != nil {
		return
	}
	i := slices.IndexFunc(ls.Surfaces, func(sf proto.SurfaceInfo) bool { return sf.ID == id })
	if i < 0 || ls.Surfaces[i].Cwd == nil || s.o.Dir == "" {
		return
	}
	root, err := worktree.Root(ctx, *ls.Surfaces[i].Cwd)
	if err != nil {
		return // not in a git work tree
	}
	if _, err := os.Stat(filepath.Join(root, ConfigFile)); err != nil {
		return
	}
	set, err := s.loadChecks(root)
	if err != nil {
		s.logf("paneflow: checks at the end of pane %d's turn: %v", id, err)
		return
	}
	if !set.onTurnEnd {
		return
	}
	s.mu.Lock()
	busy := s.turnRun[root]
	s.turnRun[root] = true
	s.mu.Unlock()
	if busy {
		return
	}
	defer func() {
		s.mu.Lock()
		delete(s.turnRun, root)
		s.mu.Unlock()
	}()
	s.beginRun(root, set)
	defer s.endRun(root)
	for _, c := range set.checks {
		if ctx.Err() != nil {
			return
		}
		s.runCheck(ctx, root, c, set.timeout, "turn_end")
	}
}
