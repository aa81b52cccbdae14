package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// Defaults and limits of wait (spec limits.md, CLI rows).
const (
	defaultWaitTimeout = 300 * time.Second
	defaultIdleFor     = 1000 * time.Millisecond
	// waitCallMargin is added to the wait's own timeout for the transport's
	// per-call timeout, so the server's -32002 always arrives first.
	waitCallMargin = 10 * time.Second
)

// Wait modes sent to surface.wait.
const (
	waitAny = "any" // done when one of surface_ids is done
	waitAll = "all" // done when every one of surface_ids is done
)

// waitParams are surface.wait's parameters. The server watches the
// surfaces' output notifications, ignores text that was there when the wait
// began and compiles pattern with (?m), so anchors are per line. A surface is
// done when new output matches pattern or, with idle_ms, when it printed
// nothing for that long. The server answers when the mode is satisfied, or
// with -32002 after timeout_ms.
type waitParams struct {
	SurfaceIDs []uint64 `json:"surface_ids"`
	Pattern    string   `json:"pattern,omitempty"`
	Mode       string   `json:"mode"`
	IdleMS     int64    `json:"idle_ms,omitempty"`
	TimeoutMS  int64    `json:"timeout_ms"`
	FromStart  bool     `json:"from_start,omitempty"`
}

func runWait(ctx context.Context, s *session, in *input) error {
	v := in.verb
	match, ok := in.str("match")
	if !ok || match == "" {
		return v.usageErrorf("--match <target> is required")
	}
	pattern, hasPattern := in.str("pattern")
	idle, anyMode, allMode := in.bool("idle"), in.bool("any"), in.bool("all")
	switch {
	case anyMode && allMode:
		return v.usageErrorf("--any and --all cannot be used together")
	case !idle && !hasPattern:
		return v.usageErrorf("give --pattern <regex>, --idle, or both")
	case hasPattern && pattern == "":
		return v.usageErrorf("--pattern must not be empty")
	case in.has("for") && !idle:
		return v.usageErrorf("--for only applies with --idle")
	}
	timeout := defaultWaitTimeout
	if t, ok := in.str("timeout"); ok {
		d, err := parseSeconds(v, "--timeout", t)
		if err != nil {
			return err
		}
		timeout = d
	}
	idleFor := defaultIdleFor
	if f, ok := in.str("for"); ok {
		d, err := parseMillis(v, "--for", f)
		if err != nil {
			return err
		}
		if d < time.Millisecond {
			return v.usageErrorf("--for must be at least 1ms, got '%s'", f)
		}
		idleFor = d
	}
	// The server compiles the same pattern (with per-line anchors); checking
	// it here first gives the error before anything is sent.
	if hasPattern {
		if err := checkPattern(pattern); err != nil {
			return exitErrorf(ExitFailure, "invalid regex '%s': %v", pattern, err)
		}
	}

	p := waitParams{Pattern: pattern, Mode: waitAny, TimeoutMS: timeout.Milliseconds(), FromStart: in.bool("from-start")}
	c, err := s.connect()
	if err != nil {
		if idle {
			return exitErrorf(ExitNoTarget, "wait --idle failed: %v", err)
		}
		return err
	}
	switch {
	case idle:
		// Idle waits watch exactly one pane; --any/--all do not apply.
		t, err := s.resolveOne(ctx, c, match)
		if err != nil {
			return idleResolveError(err)
		}
		p.SurfaceIDs, p.IdleMS = []uint64{t.ID}, idleFor.Milliseconds()
	case anyMode || allMode:
		ts, err := s.resolve(ctx, c, match)
		if err != nil {
			return err
		}
		for _, t := range ts {
			p.SurfaceIDs = append(p.SurfaceIDs, t.ID)
		}
		if allMode {
			p.Mode = waitAll
		}
	default:
		t, err := s.resolveOne(ctx, c, match)
		if err != nil {
			return err
		}
		p.SurfaceIDs = []uint64{t.ID}
	}

	long, err := s.dial(timeout + waitCallMargin)
	if err != nil {
		return err
	}
	raw, err := call(ctx, long, "surface.wait", p)
	switch code, _ := rpcCode(err); {
	case err == nil:
		return s.printRaw(raw)
	case ctx.Err() != nil:
		return &exitError{Code: ExitInterrupted}
	case code == ipc.CodeTimeout && idle:
		return exitErrorf(ExitTimeout, "timeout after %ss waiting for surface %d to go idle", seconds(timeout), p.SurfaceIDs[0])
	case code == ipc.CodeTimeout:
		return exitErrorf(ExitTimeout, "timeout after %ss waiting for /%s/", seconds(timeout), pattern)
	case idle && isUnreachable(err):
		return fmt.Errorf("the connection to Paneflow closed before the pane went idle (did Paneflow exit?): %v", err)
	default:
		return err
	}
}

// idleResolveError maps a selector failure of wait --idle to exit 3, as the
// spec does for all of that mode's connection and resolution problems
// (usage errors stay usage errors).
func idleResolveError(err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return exitErrorf(ExitNoTarget, "wait --idle failed: %v", err)
}

// seconds formats d in seconds without trailing zeros: 300, 1.5, 0.25.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

func runWatch(ctx context.Context, s *session, in *input) error {
	failed := func(err error) error {
		msg := err.Error()
		if !strings.Contains(msg, "is Paneflow running?") {
			msg += "; is Paneflow running?"
		}
		return exitErrorf(ExitNoTarget, "watch failed: %s", msg)
	}
	c, err := s.connect()
	if err != nil {
		return failed(err)
	}
	p := map[string]any{}
	if sel, ok := in.str("surface"); ok {
		t, err := s.resolveOne(ctx, c, sel)
		var ee *exitError
		switch {
		case errors.As(err, &ee):
			return err
		case err != nil:
			return failed(err)
		}
		p["surfaces"] = []uint64{t.ID}
	}
	if types := in.list("type"); len(types) > 0 {
		p["types"] = types
	}
	st, err := c.Subscribe(ctx, "events.subscribe", p)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if e := (*ipc.Error)(nil); errors.As(err, &e) {
			return &rpcError{e} // e.g. an unknown --type: the server refused the filter
		}
		return failed(err)
	}
	defer st.Close()
	// Ctrl-C closes the stream, which unblocks Next.
	stop := context.AfterFunc(ctx, func() { st.Close() })
	defer stop()
	var line []byte
	for {
		frame, err := st.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("watch: the event stream failed: %v", err)
		}
		line = append(append(line[:0], bytes.TrimRight(frame, "\r\n")...), '\n')
		if _, err := s.stdout.Write(line); err != nil {
			return err
		}
	}
}
