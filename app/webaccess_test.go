//go:build !windows

package app

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/web"
)

// TestWebAccessPairsAndRevokes: the web view of a window attached to a
// server with a web client pairs a browser (the link on the clipboard and
// as a QR code, the link usable once), lists the paired browser and
// revokes it from its row.
func TestWebAccessPairsAndRevokes(t *testing.T) {
	state := t.TempDir()
	h := startHarnessCore(t, nil, true, func(o *core.Options) {
		o.Web = web.Listen{Addr: "127.0.0.1:0"}
		o.Getenv = func(k string) string {
			switch k {
			case "PANEFLOW_IPC_SCRIPTING":
				return "1"
			case "XDG_STATE_HOME":
				return filepath.Join(state, "state")
			}
			return ""
		}
	})
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() { h.s.runActionLocked(keymap.OpenWebAccess) })
	var status string
	h.waitFor("the web client's address", func() bool {
		status = shownPanelAs[*webView](h.s).status.Text
		return strings.HasPrefix(status, "The web client is on http://127.0.0.1:")
	})
	if !strings.Contains(status, "0 browsers are paired") {
		t.Errorf("status %q, want no browser paired yet", status)
	}

	shownPanelAs[*webView](h.s).list.activate(webRowPair)
	var link string
	h.waitFor("the pairing link", func() bool {
		link = h.s.a.Clipboard().Content()
		return strings.Contains(link, "/pair#")
	})
	h.s.guard(func() {
		if shownPanelAs[*webView](h.s).link.Text != link || !strings.Contains(shownPanelAs[*webView](h.s).note.Text, "on the clipboard") || !shownPanelAs[*webView](h.s).qr.Visible() || shownPanelAs[*webView](h.s).qr.Image == nil {
			t.Errorf("after pairing: link %q, note %q, QR shown %v; want the link, where it is and its QR code", shownPanelAs[*webView](h.s).link.Text, shownPanelAs[*webView](h.s).note.Text, shownPanelAs[*webView](h.s).qr.Visible())
		}
	})

	// Pair as a browser would: POST the link's token to /pair.
	base, tok, _ := strings.Cut(link, "/pair#")
	req, _ := http.NewRequest(http.MethodPost, base+"/pair", strings.NewReader(url.Values{"token": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("User-Agent", "TestPhone/1.0")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("pairing with the view's link: %s, %d cookies; want 303 with the session cookie", resp.Status, len(resp.Cookies()))
	}

	// The open view lists it (it reads the list again every 2 s).
	h.waitFor("the paired browser's row", func() bool {
		return shownPanelAs[*webView](h.s).list.n == webFixedRows+1
	})
	h.s.guard(func() {
		if title := webRowTitle(shownPanelAs[*webView](h.s), webFixedRows); !strings.HasPrefix(title, "Revoke ") || !strings.Contains(title, "TestPhone/1.0") {
			t.Errorf("the browser's row reads %q, want Revoke with its User-Agent", title)
		}
	})
	shownPanelAs[*webView](h.s).list.activate(webFixedRows)
	h.waitFor("the revocation", func() bool {
		return shownPanelAs[*webView](h.s).list.n == webFixedRows && strings.HasPrefix(shownPanelAs[*webView](h.s).note.Text, "Revoked ")
	})
	res, err := proto.Client{Caller: h.s.b.Caller(0)}.WebList(context.Background())
	if err != nil || len(res.Browsers) != 0 {
		t.Errorf("web.list after the revocation: %+v, %v; want none paired", res, err)
	}
}

// TestWebAccessWithoutWebClient: a server without a web client is said
// to have none, with how to start one; pairing says the same.
func TestWebAccessWithoutWebClient(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "paneflow.toml")
	if err := os.WriteFile(cfgPath, []byte("# mine\ntheme = \"light\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(o *Options) { o.ConfigPath = cfgPath })
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() { h.s.runActionLocked(keymap.OpenWebAccess) })
	var status string
	h.waitFor("the status", func() bool {
		status = shownPanelAs[*webView](h.s).status.Text
		return !strings.HasPrefix(status, "reading")
	})
	if !strings.Contains(status, "serves no web client") || !strings.Contains(status, "paneflow serve --web") {
		t.Errorf("status %q, want no web client and how to start one", status)
	}
	shownPanelAs[*webView](h.s).list.activate(webRowPair)
	h.waitFor("pairing's answer", func() bool {
		return strings.Contains(shownPanelAs[*webView](h.s).note.Text, "serves no web client")
	})

	// "Turn web access on" saves [web] for the server's next start,
	// keeping the file's own lines.
	h.waitFor("the turn-on row", func() bool { return shownPanelAs[*webView](h.s).list.n == webFixedRows+1 })
	shownPanelAs[*webView](h.s).list.activate(webRowTurnOn)
	h.waitFor("the saved note", func() bool { return strings.HasPrefix(shownPanelAs[*webView](h.s).note.Text, "Saved in "+cfgPath) })
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# mine\ntheme = \"light\"\n\n[web]\nlisten = \"127.0.0.1:8714\"\n"; string(b) != want {
		t.Errorf("paneflow.toml:\n%s\nwant:\n%s", b, want)
	}
	if c, warns := config.Parse(b); c.Web.Listen != webDefaultListen || len(warns) != 0 {
		t.Errorf("the saved file reads web.listen %q with warnings %v", c.Web.Listen, warns)
	}
	h.s.guard(func() { h.s.escapeLocked() })
	h.s.guard(func() {
		if shownPanelAs[*webView](h.s) != nil {
			t.Errorf("Escape left the web view open")
		}
	})
}
