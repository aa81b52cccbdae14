package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// webVerb is `paneflow web pair|list|revoke`: the browsers paired with
// the server's web client (`paneflow serve --web`).
func webVerb() verb {
	return verb{
		name: "web", synopsis: "pair [--read-only] | list | revoke <id> [--json]",
		summary: "pair a browser with the server's web client, list the paired ones, revoke one",
		params:  []string{"<action>"},
		rest:    true,
		flags: []flagSpec{
			{name: "read-only", kind: boolFlag, usage: "pair: the browser may watch but never type"},
			{name: "no-qr", kind: boolFlag, usage: "pair: print the link only, no QR code"},
			{name: "json", kind: boolFlag, usage: "print the server's result as JSON"},
		},
		details: "  paneflow web pair [--read-only]\n" +
			"  paneflow web list\n" +
			"  paneflow web revoke <id>\n\n" +
			"Needs a server started with `paneflow serve --web HOST:PORT`. pair prints a one-time link,\n" +
			"valid for 10 minutes: open it in the browser to pair (on a phone, through the SSH\n" +
			"forward, Tailscale or VPN that reaches HOST:PORT) and press \"Pair this browser\". On a\n" +
			"terminal a QR code of the link is drawn too, for a phone's camera (--no-qr: the link\n" +
			"only). list shows the paired browsers; revoke ends one's session and closes its open\n" +
			"pages at once.\n",
		run: runWeb,
	}
}

func runWeb(ctx context.Context, s *session, in *input) error {
	action, args := in.args[0], in.args[1:]
	want := map[string]int{"pair": 0, "list": 0, "revoke": 1}
	switch n, ok := want[action]; {
	case !ok:
		return in.verb.usageErrorf("unknown action '%s' (pair, list, revoke)", action)
	case len(args) != n:
		return in.verb.usageErrorf("%s takes %d arguments, got %d", action, n, len(args))
	case in.bool("read-only") && action != "pair":
		return in.verb.usageErrorf("--read-only is for pair")
	case in.bool("no-qr") && action != "pair":
		return in.verb.usageErrorf("--no-qr is for pair")
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	switch action {
	case "pair":
		// The server encodes the code (the client links no QR encoder),
		// only when it will be drawn: --json prints the result as it is.
		wantQR := !in.bool("json") && !in.bool("no-qr") && s.isTerminal(s.stdout)
		var res proto.WebPairResult
		raw, err := callInto(ctx, c, proto.MethodWebPair, proto.WebPairParams{ReadOnly: in.bool("read-only"), QR: wantQR}, &res)
		if err != nil || in.bool("json") {
			return s.printOr(raw, webErr(err))
		}
		mode := "can watch and type into panes"
		if res.ReadOnly {
			mode = "read-only: can watch, not type"
		}
		lines := []string{
			"Open this link in the browser to pair (once, within " + (time.Duration(res.ExpiresInMS) * time.Millisecond).String() + "; " + mode + "):",
			"",
			"  " + res.URL,
		}
		if err := writeLines(s.stdout, lines); err != nil || !wantQR {
			return err
		}
		// The code's own lines carry its colours (SGR), so they are written
		// as they are: they are drawn here from the server's modules, which
		// must be a square of 0s and 1s, not read from the server as text.
		qr, ok := drawQR(res.QR)
		if !ok {
			return nil // the link above is enough
		}
		_, err = io.WriteString(s.stdout, "\nor scan it:\n\n  "+strings.Join(qr, "\n  ")+"\n")
		return err
	case "list":
		var res proto.WebListResult
		raw, err := callInto(ctx, c, proto.MethodWebList, proto.NoParams{}, &res)
		if err != nil || in.bool("json") {
			return s.printOr(raw, webErr(err))
		}
		lines := []string{"web client: " + res.URL}
		if len(res.Browsers) == 0 {
			lines = append(lines, "no paired browsers (paneflow web pair)")
		}
		for _, b := range res.Browsers {
			ro := ""
			if b.ReadOnly {
				ro = " read-only"
			}
			seen := b.LastSeen
			if seen == "" {
				seen = "never"
			}
			lines = append(lines, fmt.Sprintf("%s%s  paired %s  seen %s  open %d  %s", b.ID, ro, b.PairedAt, seen, b.Connections, vis.String(b.UserAgent)))
		}
		return writeLines(s.stdout, lines)
	}
	var res proto.WebRevokeResult
	raw, err := callInto(ctx, c, proto.MethodWebRevoke, proto.WebRevokeParams{ID: args[0]}, &res)
	if err != nil || in.bool("json") {
		return s.printOr(raw, webErr(err))
	}
	return writeLines(s.stdout, []string{fmt.Sprintf("revoked %s (%d open pages closed)", args[0], res.Closed)})
}

// webErr words a server without web.* (older than the web client).
func webErr(err error) error {
	var e *ipc.Error
	if errors.As(err, &e) && e.Code == ipc.CodeMethodNotFound {
		return errors.New("this server has no web client (it is older than `paneflow serve --web`): restart it with the current version")
	}
	return err
}

// maxQRModules bounds the code drawn: the largest QR code (version 40)
// is 177 modules wide, 185 with its quiet zone.
const maxQRModules = 185

// drawQR draws a QR code given as rows of modules ('1' dark, '0' light;
// proto.WebPairResult.QR) for a terminal: two modules stacked per
// character (upper and lower half blocks), black on white by SGR (a
// code scans reliably only dark on light, whatever the user's theme),
// each line ending in a reset. It reports false for rows that are not a
// square of at most maxQRModules 0s and 1s (an old server sends none).
func drawQR(rows []string) ([]string, bool) {
	n := len(rows)
	if n == 0 || n > maxQRModules {
		return nil, false
	}
	for _, r := range rows {
		if len(r) != n || strings.Trim(r, "01") != "" {
			return nil, false
		}
	}
	var lines []string
	for y := 0; y < n; y += 2 {
		var b strings.Builder
		b.WriteString("\x1b[30;47m")
		for x := range n {
			top := rows[y][x] == '1'
			bottom := y+1 < n && rows[y+1][x] == '1'
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString("\x1b[0m")
		lines = append(lines, b.String())
	}
	return lines, true
}
