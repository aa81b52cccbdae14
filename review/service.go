package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/gitdiff"
	"github.com/paneflow-go/paneflow/internal/spectrust"
	"github.com/paneflow-go/paneflow/internal/treewatch"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/subsystem"
	"github.com/paneflow-go/paneflow/worktree"
)

// Limits of the review methods.
const (
	// maxFileBytes is the largest file a comment is made on or
	// re-anchored in; a larger one counts as gone (its comments outdated).
	maxFileBytes = 8 << 20
	// maxBody is the longest comment.
	maxBody = 16 << 10
	// maxPrompt is surface.send_text's limit on a text.
	maxPrompt = 64 << 10
	// defaultInputWait is review.send's input_wait_ms when not given: as
	// `paneflow send --submit`'s.
	defaultInputWait = 30 * time.Second
	// diffTimeout bounds review.diff's git commands.
	diffTimeout = 30 * time.Second
	// callMargin is added to a send's wait for the call's own timeout.
	callMargin = 10 * time.Second
)

// Options configure [New].
type Options struct {
	// Dir holds the comment files ($XDG_STATE_HOME/paneflow/review); ""
	// when there is no state directory: the methods then fail.
	Dir string
	// Dial returns a Caller on the server's own socket whose calls may
	// take up to timeout: review.send types into a pane through
	// surface.send_text, so the scripting gate, the wait for the agent's
	// input and the executor's order apply as to any client.
	Dial func(timeout time.Duration) proto.Caller
	// Now is the clock of CreatedAt and of the checks' times (nil:
	// time.Now).
	Now func() time.Time
	// Trust says whether the user trusts a repository's ConfigFile with
	// these bytes (core: internal/spectrust's store, as `paneflow trust`
	// writes it); nil trusts nothing, so no check runs.
	Trust func(path string, data []byte) (spectrust.Status, error)
}

// Service is the "review" subsystem: review.* (comments on a worktree's
// files, re-anchored as the files change, sent to the worktree's agent)
// land.* (the worktree's branch into its base, or a pull request) and
// checks.* (the repository's check commands run in the worktree, on
// demand and, when its configuration says so, at each turn's end).
// Use [New]; its methods are safe for concurrent use.
type Service struct {
	o     Options
	store *Store
	logf  func(string, ...any)

	ctx    context.Context // ends at Shutdown: git and sends in flight stop
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// bus gets a ChecksChanged each time a worktree's checks change; nil
	// publishes nothing. pubMu keeps the publications of one worktree in
	// the order of the changes (taken before mu, held while publishing).
	bus   *bus.Bus
	pubMu sync.Mutex

	mu      sync.Mutex
	results map[string]map[string]proto.CheckResult // root → check → last result
	turnRun map[string]bool                         // roots whose turn-end checks are running
	runs    map[string]int                          // root → runs of its checks in progress
}

// New returns the subsystem.
func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Trust == nil {
		o.Trust = func(string, []byte) (spectrust.Status, error) { return spectrust.Untrusted, nil }
	}
	return &Service{o: o, store: &Store{Dir: o.Dir}, logf: func(string, ...any) {}, results: map[string]map[string]proto.CheckResult{}, turnRun: map[string]bool{}, runs: map[string]int{}}
}

// Name is "review".
func (*Service) Name() string { return "review" }

// Namespaces lists review's namespaces.
func (*Service) Namespaces() []string { return []string{"review", "land", "checks"} }

// Init registers the methods. Without git the subsystem is skipped;
// without a state directory its methods fail, saying so.
func (s *Service) Init(h *subsystem.Host) error {
	if s.o.Dial == nil {
		return errors.New("review: Options.Dial is required")
	}
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("git is not on PATH: %w", subsystem.ErrSkip)
	}
	s.logf = h.Logf
	s.ctx, s.cancel = context.WithCancel(context.Background())
	m := h.Methods
	m.Register(proto.MethodReviewComment, s.handle(s.comment), ipc.Long())
	m.Register(proto.MethodReviewList, s.handle(s.list), ipc.Long())
	m.Register(proto.MethodReviewResolve, s.handle(s.resolve), ipc.Long())
	m.Register(proto.MethodReviewSend, s.handle(s.send), ipc.Long())
	m.Register(proto.MethodReviewDiff, s.handle(s.diff), ipc.Long())
	m.RegisterStream(proto.MethodReviewWatch, s.watch)
	m.Register(proto.MethodLandRun, s.handle(s.land), ipc.Long())
	m.Register(proto.MethodLandPR, s.handle(s.pr), ipc.Long())
	m.Register(proto.MethodLandTeardown, s.handle(s.landTeardown), ipc.Long())
	m.Register(proto.MethodChecksRun, s.handle(s.checksRun), ipc.Long())
	m.Register(proto.MethodChecksStatus, s.handle(s.checksStatus), ipc.Long())
	m.Register(proto.MethodChecksSend, s.handle(s.checksSend), ipc.Long())
	s.bus = h.Bus
	if h.Bus != nil {
		sub := h.Bus.Subscribe("review", bus.MatchTypes(bus.TypeAgentState), 0)
		s.wg.Add(1)
		go s.followTurns(sub)
	}
	return nil
}

// Shutdown cancels the git commands and sends in flight and waits for
// their handlers.
func (s *Service) Shutdown(ctx context.Context) error {
	if s.cancel != nil {
		s.cancel()
	}
	return subsystem.Wait(ctx, &s.wg)
}

// handle runs h with a context that also ends at Shutdown.
func (s *Service) handle(h ipc.Handler) ipc.Handler {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		s.wg.Add(1)
		defer s.wg.Done()
		ctx, stop := context.WithCancel(ctx)
		defer stop()
		defer context.AfterFunc(s.ctx, stop)()
		return h(ctx, params)
	}
}

// rootOf resolves a worktree param: an absolute directory inside a git
// work tree → that work tree's top directory.
func (s *Service) rootOf(ctx context.Context, dir string) (string, error) {
	if s.o.Dir == "" {
		return "", ipc.Errorf(ipc.CodeInternal, "the server has no state directory to keep review comments in ($XDG_STATE_HOME or $HOME)")
	}
	if dir == "" {
		return "", ipc.InvalidParams("Missing 'worktree' parameter")
	}
	if !filepath.IsAbs(dir) {
		return "", ipc.InvalidParams("'worktree' must be an absolute path, got '%s'", dir)
	}
	root, err := worktree.Root(ctx, dir)
	if err != nil {
		return "", ipc.InvalidParams("'%s' is not inside a git work tree: %v", dir, err)
	}
	return root, nil
}

// relPath turns a comment's path (relative to root, or absolute inside
// it) into the slash-separated path relative to root.
func relPath(root, p string) (string, error) {
	if p == "" {
		return "", ipc.InvalidParams("Missing 'path' parameter")
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(root, filepath.FromSlash(p))
	} else if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		abs = filepath.Join(real, filepath.Base(p))
	}
	rel, err := filepath.Rel(root, filepath.Clean(abs))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", ipc.InvalidParams("'%s' is not a file inside the worktree %s", p, root)
	}
	if first, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); first == ".git" {
		return "", ipc.InvalidParams("'%s' is inside .git", p)
	}
	return filepath.ToSlash(rel), nil
}

// readLines reads a file of the worktree; a missing, non-regular or
// larger than maxFileBytes file is an error, and so is a symbolic link
// that leads out of the worktree (its text would go to the agent).
func readLines(root, rel string) ([]string, error) {
	target, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	if !inside(root, target) {
		return nil, fmt.Errorf("%s leads outside the worktree", rel)
	}
	f, err := os.Open(target)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB", rel, maxFileBytes>>20)
	}
	return splitLines(string(b)), nil
}

func (s *Service) comment(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ReviewCommentParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	root, err := s.rootOf(ctx, p.Worktree)
	if err != nil {
		return nil, err
	}
	rel, err := relPath(root, p.Path)
	if err != nil {
		return nil, err
	}
	body := strings.TrimSpace(p.Body)
	switch {
	case body == "":
		return nil, ipc.InvalidParams("Missing 'body' parameter")
	case len(body) > maxBody:
		return nil, ipc.InvalidParams("'body' exceeds %d KiB", maxBody>>10)
	}
	end := p.StartLine
	if p.EndLine != nil {
		end = *p.EndLine
	}
	lines, err := readLines(root, rel)
	if err != nil {
		return nil, ipc.InvalidParams("cannot comment on '%s': %v", rel, err)
	}
	if p.StartLine < 1 || end < p.StartLine || end > len(lines) {
		return nil, ipc.InvalidParams("lines %d-%d are not in '%s' (%d lines)", p.StartLine, end, rel, len(lines))
	}
	code, before, after := capture(lines, p.StartLine, end)
	c := proto.ReviewComment{
		Path: rel, StartLine: p.StartLine, EndLine: end, Code: code, Before: before, After: after,
		Body: body, CreatedAt: s.o.Now().UTC().Format(time.RFC3339),
	}
	err = s.store.Update(root, func(f *file) (bool, error) {
		c = f.add(c)
		return true, nil
	})
	if err != nil {
		return nil, ipc.Errorf(ipc.CodeInternal, "%v", err)
	}
	return proto.ReviewCommentResult{Worktree: root, Comment: c}, nil
}

// current re-anchors f's open comments against the files under root as
// they are now (each file read and indexed once) and reports whether any
// moved or changed state.
func current(root string, f *file) bool {
	ixs := map[string]*fileIndex{}
	changed := false
	for i := range f.Comments {
		c := &f.Comments[i]
		if c.Resolved {
			continue
		}
		ix, seen := ixs[c.Path]
		if !seen {
			if lines, err := readLines(root, c.Path); err == nil {
				ix = newFileIndex(lines)
			}
			ixs[c.Path] = ix
		}
		if reanchor(c, ix) {
			changed = true
		}
	}
	return changed
}

// open is f's comments that are not resolved.
func open(f *file) []proto.ReviewComment {
	var out []proto.ReviewComment
	for _, c := range f.Comments {
		if !c.Resolved {
			out = append(out, c)
		}
	}
	return out
}

func (s *Service) list(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ReviewListParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	root, err := s.rootOf(ctx, p.Worktree)
	if err != nil {
		return nil, err
	}
	res := proto.ReviewListResult{Worktree: root, Comments: []proto.ReviewComment{}}
	err = s.store.Update(root, func(f *file) (bool, error) {
		changed := current(root, f)
		if p.All != nil && *p.All {
			res.Comments = append(res.Comments, f.Comments...)
		} else {
			res.Comments = append(res.Comments, open(f)...)
		}
		return changed, nil
	})
	if err != nil {
		return nil, ipc.Errorf(ipc.CodeInternal, "%v", err)
	}
	return res, nil
}

// diff is review.diff: the worktree's changes as the Diff view shows
// them, read with git here (package gitdiff), for a window on another
// machine. It needs no state directory.
func (s *Service) diff(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ReviewDiffParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Worktree == "" {
		return nil, ipc.InvalidParams("Missing 'worktree' parameter")
	}
	if !filepath.IsAbs(p.Worktree) {
		return nil, ipc.InvalidParams("'worktree' must be an absolute path, got '%s'", p.Worktree)
	}
	ctx, cancel := context.WithTimeout(ctx, diffTimeout)
	defer cancel()
	d, err := gitdiff.Load(ctx, p.Worktree, p.Scope)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ipc.Errorf(ipc.CodeInternal, "reading the diff of '%s' took longer than %v: %v", p.Worktree, diffTimeout, err)
		}
		return nil, ipc.InvalidParams("'%s': %v", p.Worktree, err)
	}
	if d.Files == nil {
		d.Files = []proto.ReviewDiffFile{}
	}
	return d, nil
}

// watch streams review.watch: a frame once the worktree is watched, then
// one per settled change of its files, index or HEAD, until the client
// goes or the server stops.
func (s *Service) watch(ctx context.Context, params json.RawMessage, w ipc.FrameWriter) error {
	var p proto.ReviewWatchParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return err
	}
	if p.Worktree == "" {
		return ipc.InvalidParams("Missing 'worktree' parameter")
	}
	if !filepath.IsAbs(p.Worktree) {
		return ipc.InvalidParams("'worktree' must be an absolute path, got '%s'", p.Worktree)
	}
	s.wg.Add(1)
	defer s.wg.Done()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(s.ctx, stop)()
	tw, err := treewatch.Start(ctx, p.Worktree)
	if err != nil {
		if errors.Is(err, treewatch.ErrWatcher) {
			return ipc.Errorf(ipc.CodeInternal, "'%s': %v", p.Worktree, err)
		}
		return ipc.InvalidParams("'%s': %v", p.Worktree, err)
	}
	defer tw.Close()
	if err := w.WriteFrame(proto.ReviewWatchFrame{Type: proto.FrameWatching}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tw.C:
			if err := w.WriteFrame(proto.ReviewWatchFrame{Type: proto.FrameChanged}); err != nil {
				return err
			}
		}
	}
}

func (s *Service) resolve(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ReviewResolveParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	all := p.All != nil && *p.All
	if all == (len(p.IDs) > 0) {
		return nil, ipc.InvalidParams("give either 'ids' or 'all'")
	}
	root, err := s.rootOf(ctx, p.Worktree)
	if err != nil {
		return nil, err
	}
	res := proto.ReviewResolveResult{Worktree: root, Resolved: []string{}}
	err = s.store.Update(root, func(f *file) (bool, error) {
		for _, id := range p.IDs {
			if !slices.ContainsFunc(f.Comments, func(c proto.ReviewComment) bool { return c.ID == id }) {
				return false, ipc.InvalidParams("no comment '%s' in %s", id, root)
			}
		}
		for i := range f.Comments {
			c := &f.Comments[i]
			if !c.Resolved && (all || slices.Contains(p.IDs, c.ID)) {
				c.Resolved = true
				res.Resolved = append(res.Resolved, c.ID)
			}
		}
		return len(res.Resolved) > 0, nil
	})
	if err != nil {
		var pe *proto.Error
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, ipc.Errorf(ipc.CodeInternal, "%v", err)
	}
	return res, nil
}

func (s *Service) send(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.ReviewSendParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	root, err := s.rootOf(ctx, p.Worktree)
	if err != nil {
		return nil, err
	}
	var cs []proto.ReviewComment
	var outdated int
	err = s.store.Update(root, func(f *file) (bool, error) {
		changed := current(root, f)
		for _, c := range open(f) {
			if c.Outdated {
				outdated++
			} else {
				cs = append(cs, c)
			}
		}
		return changed, nil
	})
	if err != nil {
		return nil, ipc.Errorf(ipc.CodeInternal, "%v", err)
	}
	if len(cs) == 0 {
		msg := "no open comments to send in " + root
		if outdated > 0 {
			msg += fmt.Sprintf(" (%d outdated: their code is gone; resolve them)", outdated)
		}
		return nil, ipc.InvalidParams("%s", msg)
	}
	text := reviewPrompt(root, cs)
	res, err := s.deliver(ctx, root, p, text)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		res.Comments = append(res.Comments, c.ID)
	}
	err = s.store.Update(root, func(f *file) (bool, error) {
		for i := range f.Comments {
			if slices.Contains(res.Comments, f.Comments[i].ID) {
				f.Comments[i].Sent++
			}
		}
		return true, nil
	})
	if err != nil {
		s.logf("paneflow: review: %s: sent, but not recorded: %v", root, err)
	}
	return res, nil
}

// deliver submits text to the agent pane working in root (p.SurfaceID, or
// the one found) through surface.send_text on the server's own socket,
// after reading its surface.status, against which the client confirms
// the turn start.
func (s *Service) deliver(ctx context.Context, root string, p proto.ReviewSendParams, text string) (proto.ReviewSendResult, error) {
	if len(text) > maxPrompt {
		return proto.ReviewSendResult{}, ipc.InvalidParams("the prompt is %d KiB, over send_text's 64 KiB: resolve or shorten some", len(text)>>10)
	}
	wait := defaultInputWait
	if p.InputWaitMS != nil {
		wait = time.Duration(*p.InputWaitMS) * time.Millisecond
	}
	cl := proto.Client{Caller: s.o.Dial(wait + callMargin)}
	id, err := agentPane(ctx, cl, root, p.SurfaceID)
	if err != nil {
		return proto.ReviewSendResult{}, err
	}
	before, err := cl.SurfaceStatus(ctx, proto.SurfaceTarget(id))
	if err != nil {
		return proto.ReviewSendResult{}, err
	}
	ms := wait.Milliseconds()
	sent, err := cl.SurfaceSendText(ctx, proto.SurfaceSendTextParams{SurfaceID: &id, Text: text, Submit: true, InputWaitMS: &ms})
	if err != nil {
		return proto.ReviewSendResult{}, err // the gate's -32601 as send_text words it
	}
	return proto.ReviewSendResult{Worktree: root, SurfaceID: id, Text: text, Send: sent, StatusBefore: before}, nil
}

// agentPane is the pane to send root's prompt to: want when given (it
// must run a known agent), else the one pane whose directory is inside
// root and runs a known agent.
func agentPane(ctx context.Context, cl proto.Client, root string, want *uint64) (uint64, error) {
	if want != nil {
		st, err := cl.SurfaceStatus(ctx, proto.SurfaceTarget(*want))
		if err != nil {
			return 0, err
		}
		if st.Tool == "" {
			return 0, ipc.InvalidParams("pane %d runs no known agent", *want)
		}
		return *want, nil
	}
	ls, err := cl.SurfaceList(ctx)
	if err != nil {
		return 0, err
	}
	var found []uint64
	var errs []error
	for _, sf := range ls.Surfaces {
		if sf.Exited || sf.Cwd == nil || !inside(root, *sf.Cwd) {
			continue
		}
		st, err := cl.SurfaceStatus(ctx, proto.SurfaceTarget(sf.ID))
		if err != nil {
			errs = append(errs, fmt.Errorf("pane %d: %w", sf.ID, err))
			continue
		}
		if st.Tool != "" {
			found = append(found, sf.ID)
		}
	}
	switch len(found) {
	case 0:
		why := ""
		if len(errs) > 0 {
			why = " (" + errors.Join(errs...).Error() + ")"
		}
		return 0, ipc.InvalidParams("no pane running a known agent works in %s%s; start one there or name the pane (surface_id)", root, why)
	case 1:
		return found[0], nil
	}
	return 0, ipc.InvalidParams("%d agent panes work in %s (%v); name one (surface_id)", len(found), root, found)
}

// inside reports whether dir is root or below it (symbolic links
// resolved).
func inside(root, dir string) bool {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
