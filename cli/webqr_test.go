//go:build !client

package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/qrtext"
)

// TestWebPairQR: on a terminal `web pair` asks the server for the link's
// QR code and draws it under the link; piped, with --no-qr or --json it
// asks for none and prints the link only (--json: the result as it is).
func TestWebPairQR(t *testing.T) {
	const link = "http://127.0.0.1:8714/pair#tok3n"
	modules, err := qrtext.Modules(link)
	if err != nil {
		t.Fatal(err)
	}
	var asked []any // each call's "qr" param (nil: absent)
	serverQR := func(qr []string) *fakeServer {
		asked = nil
		return &fakeServer{t: t, handlers: map[string]func(map[string]any) (any, error){
			"web.pair": func(p map[string]any) (any, error) {
				asked = append(asked, p["qr"])
				res := map[string]any{"url": link, "expires_in_ms": 600000, "read_only": false}
				if p["qr"] == true && qr != nil {
					res["qr"] = qr
				}
				return res, nil
			},
		}}
	}
	run := func(f *fakeServer, tty bool, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		s := newSession(f, &out, &errb)
		s.isTerminal = func(any) bool { return tty }
		return s.run(context.Background(), args), out.String(), errb.String()
	}
	code, out, stderr := run(serverQR(modules), true, "web", "pair")
	if code != 0 || !strings.Contains(out, "  "+link+"\n") || !strings.Contains(out, "or scan it:") || strings.Count(out, "\x1b[30;47m") < 10 {
		t.Errorf("on a terminal: exit %d, stdout %q, stderr %q; want the link and a QR code under it", code, out, stderr)
	}
	if len(asked) != 1 || asked[0] != true {
		t.Errorf("on a terminal: web.pair's qr params %v, want [true]", asked)
	}
	_, drawn, _ := strings.Cut(out, "or scan it:\n\n")
	var lines []string
	for l := range strings.Lines(drawn) {
		lines = append(lines, strings.TrimPrefix(strings.TrimSuffix(l, "\n"), "  "))
	}
	checkDrawn(t, lines, modules)

	for _, c := range []struct {
		tty  bool
		args []string
	}{{false, []string{"web", "pair"}}, {true, []string{"web", "pair", "--no-qr"}}, {true, []string{"web", "pair", "--json"}}} {
		code, out, stderr := run(serverQR(modules), c.tty, c.args...)
		if code != 0 || !strings.Contains(out, link) || strings.Contains(out, "\x1b") || strings.Contains(out, "scan") || strings.Contains(out, `"qr"`) {
			t.Errorf("tty %v %v: exit %d, stdout %q, stderr %q; want the link only", c.tty, c.args, code, out, stderr)
		}
		if len(asked) != 1 || asked[0] != nil {
			t.Errorf("tty %v %v: web.pair's qr params %v, want it absent", c.tty, c.args, asked)
		}
	}
	// A server that sends no code (an older one), or rows that are not a
	// square of 0s and 1s: the link only.
	for _, qr := range [][]string{nil, {"01", "10", "11"}, {"0\x1b", "01"}, {"012", "010", "000"}} {
		code, out, stderr := run(serverQR(qr), true, "web", "pair")
		if code != 0 || !strings.Contains(out, link) || strings.Contains(out, "\x1b") || strings.Contains(out, "scan") {
			t.Errorf("server's qr %q: exit %d, stdout %q, stderr %q; want the link only", qr, code, out, stderr)
		}
	}
	if code, _, stderr := run(serverQR(modules), true, "web", "list", "--no-qr"); code != ExitUsage || !strings.Contains(stderr, "--no-qr is for pair") {
		t.Errorf("list --no-qr: exit %d, %q; want a usage error", code, stderr)
	}
}

// TestDrawQR decodes drawQR's lines back into modules: every half block
// must say what its two modules are, for an even and an odd count.
func TestDrawQR(t *testing.T) {
	for _, link := range []string{"http://127.0.0.1:8714/pair#3q2-7ZKc0a9wVnYxT1bLmE4rUu8sQpFhGj", "x"} {
		modules, err := qrtext.Modules(link)
		if err != nil {
			t.Fatal(err)
		}
		lines, ok := drawQR(modules)
		if !ok {
			t.Fatalf("drawQR refused %d rows", len(modules))
		}
		checkDrawn(t, lines, modules)
	}
	odd := []string{"101", "010", "111"}
	lines, ok := drawQR(odd)
	if !ok || len(lines) != 2 {
		t.Fatalf("3x3: %q, %v", lines, ok)
	}
	checkDrawn(t, lines, odd)
	if _, ok := drawQR([]string{strings.Repeat("0", maxQRModules+1)}); ok {
		t.Errorf("a row too long for a QR code was drawn")
	}
}

// checkDrawn checks that lines draw modules, two rows per line, black on
// white and reset.
func checkDrawn(t *testing.T, lines, modules []string) {
	t.Helper()
	if len(lines) != (len(modules)+1)/2 {
		t.Fatalf("%d lines for %d module rows", len(lines), len(modules))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "\x1b[30;47m") || !strings.HasSuffix(l, "\x1b[0m") {
			t.Fatalf("line %d is not black on white and reset: %q", i, l)
		}
		cells := []rune(strings.TrimSuffix(strings.TrimPrefix(l, "\x1b[30;47m"), "\x1b[0m"))
		if len(cells) != len(modules[0]) {
			t.Fatalf("line %d: %d cells, want %d", i, len(cells), len(modules[0]))
		}
		for x, r := range cells {
			top, bottom := r == '█' || r == '▀', r == '█' || r == '▄'
			wantTop := modules[2*i][x] == '1'
			wantBottom := 2*i+1 < len(modules) && modules[2*i+1][x] == '1'
			if top != wantTop || bottom != wantBottom {
				t.Fatalf("line %d cell %d is %q, want modules %v/%v", i, x, r, wantTop, wantBottom)
			}
		}
	}
}
