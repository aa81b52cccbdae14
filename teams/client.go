package teams

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/paneflow-go/paneflow/ipc"
)

// BackendClient is a Go client of the CustomPaneBackend protocol, for
// orchestrators written in Go and for Paneflow's own tests: one
// connection, requests answered in any order, notifications delivered on
// [BackendClient.Notifications]. Create it with [DialBackend]; its
// methods are safe for concurrent use.
type BackendClient struct {
	nc   net.Conn
	wmu  sync.Mutex
	mu   sync.Mutex
	next int
	wait map[string]chan backendReply
	err  error
	// notes receives pushed notifications; closed when the connection ends.
	notes chan Notification
	done  chan struct{}
}

// Notification is a pushed message (context_exited, context_output).
type Notification struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type backendReply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// BackendError is an error response.
type BackendError struct {
	Code    int
	Message string
}

func (e *BackendError) Error() string { return fmt.Sprintf("backend: %s (%d)", e.Message, e.Code) }

// DialBackend connects to the backend socket at path and sends
// initialize with sessionHint (the CLAUDE_PANE_BACKEND_SESSION_ID of the
// caller, "" for none). It returns the client and self_context_id.
//
// Pass capability "output" in caps to get context_output notifications
// for the contexts this connection spawns.
func DialBackend(ctx context.Context, path, sessionHint string, caps ...string) (*BackendClient, string, error) {
	nc, err := ipc.DialSide(ctx, path)
	if err != nil {
		return nil, "", err
	}
	c := &BackendClient{nc: nc, wait: map[string]chan backendReply{}, notes: make(chan Notification, 1024), done: make(chan struct{})}
	go c.read()
	params := map[string]any{"protocol_version": BackendProtocol, "capabilities": append([]string{"events"}, caps...)}
	if sessionHint != "" {
		params["session_hint"] = sessionHint
	}
	var res struct {
		Self string `json:"self_context_id"`
	}
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		nc.Close()
		return nil, "", err
	}
	return c, res.Self, nil
}

// Notifications returns the channel of pushed notifications (buffered;
// when the reader is slower than 1024 of them, the connection waits).
func (c *BackendClient) Notifications() <-chan Notification { return c.notes }

// Close closes the connection.
func (c *BackendClient) Close() error { return c.nc.Close() }

func (c *BackendClient) read() {
	defer close(c.notes)
	defer close(c.done)
	sc := bufio.NewScanner(c.nc)
	sc.Buffer(make([]byte, 64<<10), maxBackendLine)
	for sc.Scan() {
		var m backendReply
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.Method != "" && (len(m.ID) == 0 || string(m.ID) == "null") {
			c.notes <- Notification{Method: m.Method, Params: m.Params}
			continue
		}
		var id string
		if json.Unmarshal(m.ID, &id) != nil {
			continue
		}
		c.mu.Lock()
		ch := c.wait[id]
		delete(c.wait, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
	c.mu.Lock()
	c.err = errors.New("backend: connection closed")
	if err := sc.Err(); err != nil {
		c.err = fmt.Errorf("backend: %w", err)
	}
	c.mu.Unlock()
}

// Call sends one request and decodes its result into result (nil skips).
func (c *BackendClient) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan backendReply, 1)
	c.wait[id] = ch
	c.mu.Unlock()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	c.wmu.Lock()
	_, err = c.nc.Write(append(line, '\n'))
	c.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("backend: %w", err)
	}
	var m backendReply
	select {
	case m = <-ch:
	case <-c.done:
		select {
		case m = <-ch: // answered just before the end
		default:
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.err
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	if m.Error != nil {
		return &BackendError{Code: m.Error.Code, Message: m.Error.Message}
	}
	if result != nil {
		return json.Unmarshal(m.Result, result)
	}
	return nil
}
