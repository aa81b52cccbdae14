package tmuxtest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestUnescapeOutput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "plain", in: "hello", want: "hello"},
		{name: "crlf", in: `first\015\012`, want: "first\r\n"},
		{name: "backslash", in: `a\134b`, want: `a\b`},
		{name: "escape sequence", in: `\033[1mX`, want: "\x1b[1mX"},
		{name: "short escape kept", in: `a\01`, want: `a\01`},
		{name: "not octal kept", in: `\x41`, want: `\x41`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(unescapeOutput(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// outputLog collects %output data per pane.
type outputLog struct {
	mu   sync.Mutex
	data map[string]*bytes.Buffer
}

func (l *outputLog) add(pane string, data []byte, _ time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.data[pane] == nil {
		l.data[pane] = new(bytes.Buffer)
	}
	l.data[pane].Write(data)
}

func (l *outputLog) has(pane, text string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.data[pane] != nil && strings.Contains(l.data[pane].String(), text)
}

func TestControl(t *testing.T) {
	s := New(t, Options{})
	if _, err := s.NewPane(PaneOptions{Argv: []string{"sh", "-c", "exec sleep 100000"}, Session: "ctl"}); err != nil {
		t.Fatal(err)
	}
	log := &outputLog{data: map[string]*bytes.Buffer{}}
	c, err := s.Control(ControlOptions{Session: "ctl", Output: log.add})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	t.Run("command output", func(t *testing.T) {
		got, err := c.Command(ctx, "display-message -p 'one two'")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"one two"}; len(got) != 1 || got[0] != want[0] {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("command error", func(t *testing.T) {
		if _, err := c.Command(ctx, "no-such-command"); err == nil {
			t.Error("got no error for an unknown command, want one")
		}
		// The client stays usable.
		if _, err := c.Command(ctx, "display-message -p ok"); err != nil {
			t.Errorf("after an error: %v", err)
		}
	})
	t.Run("line break refused", func(t *testing.T) {
		if _, err := c.Command(ctx, "display-message -p a\nkill-server"); err == nil {
			t.Error("got no error for a command with a newline, want one")
		}
	})
	t.Run("output of a new pane", func(t *testing.T) {
		out, err := c.Command(ctx, `split-window -d -P -F '#{pane_id}' -t ctl: 'printf "x\\\\y\\n"; exec sleep 100000'`)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || !strings.HasPrefix(out[0], "%") {
			t.Fatalf("split-window -P: got %q, want one pane id", out)
		}
		pane := out[0]
		deadline := time.Now().Add(20 * time.Second)
		for !log.has(pane, "x\\y\r\n") {
			if time.Now().After(deadline) {
				t.Fatalf("no output %q from %s within 20s", "x\\y\r\n", pane)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	t.Run("closed", func(t *testing.T) {
		c.Close()
		c.Close()
		if _, err := c.Command(ctx, "display-message -p x"); !errors.Is(err, ErrControlClosed) {
			t.Errorf("after Close: got %v, want ErrControlClosed", err)
		}
	})
}
