//go:build linux

package mcpe2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// uris lists the concrete resources.
func uris(t *testing.T, c *session) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Resources {
		if r.MIMEType != "text/plain" {
			t.Errorf("%s: MIME type %q", r.URI, r.MIMEType)
		}
		out = append(out, r.URI)
	}
	slices.Sort(out)
	return out
}

// waitEvent waits for one value on ch, failing after callTimeout.
func waitEvent[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(callTimeout):
		t.Fatalf("no %s within %v", what, callTimeout)
	}
	var zero T
	return zero
}

func TestResources(t *testing.T) {
	s := startServer(t)
	id := s.split("res-pane", "echo resource-text; exec sleep 600")
	s.waitText(id, "resource-text")
	c := connect(t, s.env, s.sock, legacy)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()

	tpl, err := c.ListResourceTemplates(ctx, nil)
	if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != "pane://{name}/content" {
		t.Fatalf("templates: %v %+v", err, tpl)
	}
	if got, want := uris(t, c), []string{"pane://res-pane/content", "pane://shell/content"}; !slices.Equal(got, want) {
		t.Fatalf("resources %v, want %v", got, want)
	}
	for _, uri := range []string{"pane://res-pane/content", "pane://RES/content"} { // listed, and through the template
		res, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("read %s: %v %+v", uri, err, res)
		}
		rc := res.Contents[0]
		attrs, _, body := unfence(t, rc.Text)
		if rc.URI != uri || rc.MIMEType != "text/plain" || !strings.Contains(body, "resource-text") || !strings.HasPrefix(attrs, ` source="`) {
			t.Errorf("read %s: %+v", uri, rc)
		}
	}
	for uri, want := range map[string]string{
		"pane://nope/content": "no surface matches 'nope'",
		"pane:///content":     "",
		"pane://x/other":      "",
	} {
		_, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || (want != "" && (we.Code != -32002 || !strings.Contains(we.Message, want))) {
			t.Errorf("read %s: %v, want an error %q", uri, err, want)
		}
	}

	// Panes appearing and closing change the list and say so.
	id2 := s.split("late", "exec sleep 600")
	waitEvent(t, c.ev.listed, "list_changed after a split")
	for !slices.Contains(uris(t, c), "pane://late/content") {
		waitEvent(t, c.ev.listed, "list_changed listing the new pane")
	}
	s.rpc("surface.close", map[string]any{"surface_id": id2}, nil)
	for slices.Contains(uris(t, c), "pane://late/content") {
		waitEvent(t, c.ev.listed, "list_changed after a close")
	}
}

func TestSubscribe(t *testing.T) {
	for _, version := range []string{legacy, ""} {
		t.Run("protocol="+version, func(t *testing.T) {
			s := startServer(t)
			id := s.split("echoer", "exec cat")
			c := connect(t, s.env, s.sock, version)
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			const uri = "pane://echoer/content"
			if err := c.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			// On the 2026-07-28 protocol the SDK's Subscribe returns once
			// its subscriptions/listen request is sent, before the server
			// registered it: wait for the SDK's own trace of that.
			waitStderr(t, c, "resource subscribed")
			s.send(id, "first line\n")
			if got := waitEvent(t, c.ev.updated, "resources/updated"); got != uri {
				t.Fatalf("updated %q, want %q", got, uri)
			}
			s.waitText(id, "first line")
			res, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
			if err != nil || !strings.Contains(res.Contents[0].Text, "first line") {
				t.Fatalf("read after update: %v %+v", err, res)
			}
			// Output after the first notification is reported too (the
			// trailing notification of a burst, or a fresh one).
			for len(c.ev.updated) > 0 {
				<-c.ev.updated
			}
			s.send(id, "second line\n")
			if got := waitEvent(t, c.ev.updated, "resources/updated for more output"); got != uri {
				t.Fatalf("updated %q", got)
			}
			if err := c.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			if err := c.Subscribe(ctx, &sdk.SubscribeParams{URI: "pane://absent/content"}); version == legacy && (err == nil || !strings.Contains(err.Error(), "no surface matches 'absent'")) {
				t.Errorf("subscribing to no pane: %v", err)
			}
		})
	}
}

func TestWaitFor(t *testing.T) {
	s := startServer(t)
	id := s.split("waiter", "exec cat")
	c := connect(t, s.env, s.sock, legacy)

	type result struct {
		text  string
		isErr bool
		err   error
	}
	start := func(ctx context.Context, args map[string]any) <-chan result {
		ch := make(chan result, 1)
		params := &sdk.CallToolParams{Name: "wait_for", Arguments: args}
		params.SetProgressToken("tok-1")
		go func() {
			res, err := c.CallTool(ctx, params)
			if err != nil {
				ch <- result{err: err}
				return
			}
			ch <- result{text: res.Content[0].(*sdk.TextContent).Text, isErr: res.IsError}
		}()
		return ch
	}

	// A pattern: progress arrives while waiting, the match ends it.
	done := start(context.Background(), map[string]any{"target": "waiter", "pattern": `ready-\d+`, "timeout_seconds": 120})
	p := waitEvent(t, c.ev.progress, "a progress notification")
	if p.ProgressToken != "tok-1" || p.Total != 120 || !strings.Contains(p.Message, "waiting on surface") {
		t.Errorf("progress %+v", p)
	}
	// The wait sees output printed after Paneflow received it, which the
	// test cannot observe: it prints a matching line after each progress
	// notification that reports output, until the wait returns.
	var r result
	for i := 0; r.text == "" && r.err == nil; i++ {
		s.send(id, fmt.Sprintf("ready-%d\n", i))
		select {
		case r = <-done:
		case <-c.ev.progress: // output reported while waiting
		}
	}
	if r.err != nil || r.isErr {
		t.Fatalf("wait_for: %+v", r)
	}
	head, fenced, _ := strings.Cut(r.text, "\n")
	var hv map[string]any
	if err := json.Unmarshal([]byte(head), &hv); err != nil || hv["matched"] != true || hv["timed_out"] != false {
		t.Errorf("wait_for head %q: %v", head, err)
	}
	if _, _, body := unfence(t, fenced); !regexp.MustCompile(`ready-\d+`).MatchString(body) {
		t.Errorf("matched lines %q", body)
	}

	// Idle.
	r = waitEvent(t, start(context.Background(), map[string]any{"target": id, "idle_seconds": 0.2}), "idle result")
	if r.err != nil || r.isErr || !strings.Contains(r.text, `"idle": true`) {
		t.Errorf("idle: %+v", r)
	}
	// Timeout: an answer, not an error.
	r = waitEvent(t, start(context.Background(), map[string]any{"target": id, "pattern": "never-printed", "timeout_seconds": 0.2}), "timeout result")
	if r.err != nil || r.isErr || !strings.Contains(r.text, `"timed_out": true`) {
		t.Errorf("timeout: %+v", r)
	}
	// Bad arguments.
	for _, args := range []map[string]any{
		{"target": id},
		{"target": id, "idle_seconds": 0},
		{"target": id, "idle_seconds": "5"},
		{"target": id, "pattern": 5},
		{"target": id, "pattern": "x", "timeout_seconds": -1},
		{"target": id, "pattern": "("},
	} {
		if text, isErr := c.call(t, "wait_for", args); !isErr || text == "" {
			t.Errorf("wait_for %v: %v %q", args, isErr, text)
		}
	}

	// Cancellation: the client gives up; the bridge drops the wait and
	// keeps serving.
	for len(c.ev.progress) > 0 {
		<-c.ev.progress
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = start(ctx, map[string]any{"target": id, "pattern": "never-printed", "timeout_seconds": 600})
	waitEvent(t, c.ev.progress, "progress before cancelling")
	// Output while waiting is reported as progress (printed until a
	// notification counts it: the bridge's event stream may start late).
	for i := 0; ; i++ {
		s.send(id, fmt.Sprintf("noise-%d\n", i))
		p := waitEvent(t, c.ev.progress, "progress")
		if !strings.HasSuffix(p.Message, " 0 output updates so far") {
			break
		}
	}
	cancel()
	if r := waitEvent(t, done, "the cancelled call's return"); !errors.Is(r.err, context.Canceled) {
		t.Errorf("cancelled wait_for returned %+v", r)
	}
	waitStderr(t, c, "wait_for on surface")
	if !strings.Contains(c.stderr.String(), "cancelled by the client") {
		t.Errorf("stderr: %s", c.stderr.String())
	}
	c.mustCall(t, "list_panes", nil)
}
