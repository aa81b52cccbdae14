//go:build !client

package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestWebPairQR: on a terminal `web pair` draws the link's QR code under
// the link; piped, or with --no-qr, it prints the link only.
func TestWebPairQR(t *testing.T) {
	const link = "http://127.0.0.1:8714/pair#tok3n"
	f := &fakeServer{t: t, handlers: map[string]func(map[string]any) (any, error){
		"web.pair": func(map[string]any) (any, error) {
			return map[string]any{"url": link, "expires_in_ms": 600000, "read_only": false}, nil
		},
	}}
	run := func(tty bool, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		s := newSession(f, &out, &errb)
		s.isTerminal = func(any) bool { return tty }
		return s.run(context.Background(), args), out.String(), errb.String()
	}
	code, out, stderr := run(true, "web", "pair")
	if code != 0 || !strings.Contains(out, "  "+link+"\n") || !strings.Contains(out, "or scan it:") || strings.Count(out, "\x1b[30;47m") < 10 {
		t.Errorf("on a terminal: exit %d, stdout %q, stderr %q; want the link and a QR code under it", code, out, stderr)
	}
	for _, c := range []struct {
		tty  bool
		args []string
	}{{false, []string{"web", "pair"}}, {true, []string{"web", "pair", "--no-qr"}}} {
		code, out, stderr := run(c.tty, c.args...)
		if code != 0 || !strings.Contains(out, link) || strings.Contains(out, "\x1b") || strings.Contains(out, "scan") {
			t.Errorf("tty %v %v: exit %d, stdout %q, stderr %q; want the link only", c.tty, c.args, code, out, stderr)
		}
	}
	if code, _, stderr := run(true, "web", "list", "--no-qr"); code != ExitUsage || !strings.Contains(stderr, "--no-qr is for pair") {
		t.Errorf("list --no-qr: exit %d, %q; want a usage error", code, stderr)
	}
}
