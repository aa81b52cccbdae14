package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/ipc"
)

// codeResourceError is the JSON-RPC error code of a failed resources/read
// (spec mcp-bridge.md §2).
const codeResourceError = -32002

// paneURI returns the resource URI of the pane called name.
func paneURI(name string) string { return "pane://" + name + "/content" }

// uriName returns the pane name in a pane://<name>/content URI.
func uriName(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "pane://")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, "/content")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// resourceError is a resources/read or subscribe failure.
func resourceError(msg string) error {
	return &jsonrpc.Error{Code: codeResourceError, Message: msg}
}

// readResource serves resources/read for pane URIs: the pane's last 200
// lines, fenced.
func (b *Bridge) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := uriName(uri)
	if !ok {
		return nil, resourceError("unsupported resource uri '" + uri + "' (expected pane://<name>/content)")
	}
	id, err := b.resolve(ctx, Target{Name: name, ByName: true})
	if err != nil {
		return nil, resourceError(err.Error())
	}
	var r readResult
	if err := b.call(ctx, nil, "surface.read", map[string]any{"surface_id": id, "fenced": false}, &r); err != nil {
		return nil, resourceError(err.Error())
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: fenceRead(name, r)}}}, nil
}

// subscribe records a resources/subscribe: the URI's pane is resolved
// now, and its output is reported until the client unsubscribes.
func (b *Bridge) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	name, ok := uriName(uri)
	if !ok {
		return resourceError("unsupported resource uri '" + uri + "' (expected pane://<name>/content)")
	}
	id, err := b.resolve(ctx, Target{Name: name, ByName: true})
	if err != nil {
		return resourceError(err.Error())
	}
	// Output printed once the client has its answer must be reported:
	// wait for the event stream (it is opened at start-up).
	b.mu.Lock()
	live := b.live
	b.mu.Unlock()
	select {
	case <-live:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(ipc.DefaultCallTimeout):
		return resourceError("Paneflow's event stream is not available; try again")
	}
	b.mu.Lock()
	b.subs[uri] = id
	b.mu.Unlock()
	return nil
}

// unsubscribe forgets a subscription.
func (b *Bridge) unsubscribe(_ context.Context, req *sdk.UnsubscribeRequest) error {
	b.mu.Lock()
	delete(b.subs, req.Params.URI)
	if l := b.limiters[req.Params.URI]; l != nil && l.timer != nil {
		l.timer.Stop()
	}
	delete(b.limiters, req.Params.URI)
	b.mu.Unlock()
	return nil
}

// limiter spaces one URI's resources/updated notifications.
type limiter struct {
	last  time.Time
	timer *time.Timer // a trailing notification is scheduled
}

// outputIn reports new output in surface id to the subscriptions on it.
func (b *Bridge) outputIn(id uint64) {
	b.mu.Lock()
	var now []string
	for uri, sid := range b.subs {
		if sid != id {
			continue
		}
		l := b.limiters[uri]
		if l == nil {
			l = &limiter{}
			b.limiters[uri] = l
		}
		switch since := time.Since(l.last); {
		case l.timer != nil:
			// A trailing notification will cover this output.
		case since >= UpdateInterval:
			l.last = time.Now()
			now = append(now, uri)
		default:
			l.timer = time.AfterFunc(UpdateInterval-since, func() { b.trailing(uri, l) })
		}
	}
	b.mu.Unlock()
	for _, uri := range now {
		b.updated(uri)
	}
}

// trailing sends the notification a limiter scheduled.
func (b *Bridge) trailing(uri string, l *limiter) {
	b.mu.Lock()
	if b.limiters[uri] != l {
		b.mu.Unlock()
		return // unsubscribed meanwhile
	}
	l.timer, l.last = nil, time.Now()
	b.mu.Unlock()
	b.updated(uri)
}

// updated sends notifications/resources/updated for uri.
func (b *Bridge) updated(uri string) {
	if err := b.srv.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		b.o.Logf("paneflow-mcp: resources/updated %s: %v", uri, err)
	}
}

// watchTypes are the events the watcher follows.
var watchTypes = []string{"surface_changed", "surface_created", "surface_closed", "surface_renamed"}

// reconnectDelay is how long the watcher waits before trying Paneflow's
// socket again after it could not subscribe.
const reconnectDelay = 2 * time.Second

// watch keeps the resource list current and turns output into
// resources/updated, from one events.subscribe stream, until ctx ends.
// When Paneflow is not reachable it tries again every reconnectDelay.
func (b *Bridge) watch(ctx context.Context) {
	for ctx.Err() == nil {
		st, err := b.client.Subscribe(ctx, "events.subscribe", map[string]any{"types": watchTypes})
		if err != nil {
			b.refresh(ctx) // empties the list while Paneflow is away
			b.gate(ctx)
			select {
			case <-ctx.Done():
			case <-time.After(reconnectDelay):
			}
			continue
		}
		b.refresh(ctx) // after subscribing: no pane can be missed in between
		b.gate(ctx)    // Paneflow may have restarted with another gate
		b.mu.Lock()
		close(b.live)
		b.mu.Unlock()
		refresh := make(chan struct{}, 1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-ctx.Done():
					return
				case _, ok := <-refresh:
					if !ok {
						return
					}
					b.refresh(ctx)
				}
			}
		}()
		for {
			f, err := st.Next()
			if err != nil {
				break
			}
			var ev struct {
				Type      string `json:"type"`
				SurfaceID uint64 `json:"surface_id"`
			}
			if json.Unmarshal(f, &ev) != nil {
				continue
			}
			switch ev.Type {
			case "surface_changed":
				b.outputIn(ev.SurfaceID)
			case "surface_created", "surface_closed", "surface_renamed", "dropped":
				b.invalidatePanes()
				select {
				case refresh <- struct{}{}:
				default:
				}
			}
		}
		st.Close()
		close(refresh)
		<-done
		b.mu.Lock()
		b.live = make(chan struct{})
		b.mu.Unlock()
		b.invalidatePanes()
	}
}

// refresh makes the registered pane resources those of the live panes
// (the SDK sends list_changed for each change).
func (b *Bridge) refresh(ctx context.Context) {
	b.refreshMu.Lock()
	defer b.refreshMu.Unlock()
	panes, err := b.listCached(ctx)
	if err != nil {
		panes = nil
	}
	want := map[string]uint64{}
	for _, p := range panes {
		uri := paneURI(p.Name)
		if u, err := url.Parse(uri); err != nil || !u.IsAbs() {
			continue // a name no URI can carry: the template still reads it
		}
		if _, ok := uriName(uri); ok {
			want[uri] = p.ID
		}
	}
	b.mu.Lock()
	var gone []string
	for uri := range b.resources {
		if _, ok := want[uri]; !ok {
			gone = append(gone, uri)
			delete(b.resources, uri)
		}
	}
	type added struct {
		uri, name string
	}
	var fresh []added
	for uri, id := range want {
		if _, ok := b.resources[uri]; !ok {
			name, _ := uriName(uri)
			fresh = append(fresh, added{uri, name})
		}
		b.resources[uri] = id
	}
	b.mu.Unlock()
	if len(gone) > 0 {
		b.srv.RemoveResources(gone...)
	}
	for _, a := range fresh {
		// A name holds a cwd a program may have set: shown escaped.
		name := vis.String(a.name)
		b.srv.AddResource(&sdk.Resource{URI: a.uri, Name: name, MIMEType: "text/plain",
			Description: "Scrollback of Paneflow pane " + name + " (untrusted terminal output)"}, b.readResource)
	}
}
