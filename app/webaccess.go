package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/internal/qrtext"
	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// webCallTimeout bounds one web.* call of the web view.
const webCallTimeout = 5 * time.Second

// webView is the "Web access" view, a panel: the server's web client
// (its address, or how to start one), pairing a browser (the one-time
// link as text, on the clipboard and as a QR code) and the paired
// browsers, each row revoking one. Its widgets are used holding the
// shell's lock (host.guard, host.do); the socket calls run on goroutines
// of their own, one at a time (run), and post their outcome back.
type webView struct {
	widget.BaseWidget
	host     panelHost
	list     *pickList
	status   *widget.Label // the web client's address, or why there is none
	note     *widget.Label // the outcome of the last action
	link     *widget.Label // the last pairing link
	qr       *canvas.Image // that link's QR code; hidden until a pairing
	browsers []proto.WebBrowser
	off      bool // the server serves no web client: the turn-on row shows
	body     fyne.CanvasObject
	run      sync.Mutex // held while a call runs
}

var _ panel = (*webView)(nil)

// The view's fixed rows, above one row per paired browser (or, on a server
// without a web client, the row that turns it on).
const (
	webRowPair = iota
	webRowPairReadOnly
	webFixedRows
	webRowTurnOn = webFixedRows
)

// webDefaultListen is the address "Turn web access on" saves.
const webDefaultListen = "127.0.0.1:8714"

// newWebView builds the web view over h and starts following the paired
// browsers.
func newWebView(h panelHost) *webView {
	v := &webView{host: h, list: newPickList("Enter pairs a browser or revokes the selected one; Escape closes", h.guard)}
	v.ExtendBaseWidget(v)
	v.status = widget.NewLabel("reading the web client's state…")
	v.status.Wrapping = fyne.TextWrapWord
	v.note = widget.NewLabel("")
	v.note.Wrapping = fyne.TextWrapWord
	v.link = widget.NewLabel("")
	v.link.Wrapping = fyne.TextWrapBreak
	v.link.TextStyle = fyne.TextStyle{Monospace: true}
	v.qr = canvas.NewImageFromImage(nil)
	v.qr.FillMode = canvas.ImageFillContain
	v.qr.ScaleMode = canvas.ImageScalePixels
	v.qr.SetMinSize(fyne.NewSize(200, 200))
	v.qr.Hide()
	fg := theme.Color(theme.ColorNameForeground)
	v.list.build = func(i int) fyne.CanvasObject {
		t := canvas.NewText(webRowTitle(v, i), fg)
		t.TextSize = nameSize + 1
		return t
	}
	v.list.activate = func(i int) {
		h.guard(func() {
			if !h.shown(v) {
				return
			}
			switch {
			case i == webRowPair || i == webRowPairReadOnly:
				v.setNote("asking the server for a link…")
				go v.pair(i == webRowPairReadOnly)
			case v.off && i == webRowTurnOn:
				v.setNote("saving…")
				go v.turnOn()
			case i-webFixedRows < len(v.browsers):
				b := v.browsers[i-webFixedRows]
				v.setNote("revoking " + b.ID + "…")
				go v.revoke(b.ID)
			}
		})
	}
	v.list.dismiss = func() { h.closePanel(v) }
	v.list.setRows(webFixedRows, 0)
	fitScroll(v.list.scroll, 240)
	header := widget.NewLabelWithStyle("Web access: the agents in a browser or on a phone", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(header, v.status, v.list.query, v.list.scroll)
	v.body = container.NewBorder(top, nil, nil, container.NewCenter(v.qr), container.NewVScroll(container.NewVBox(v.note, v.link)))
	go v.follow()
	return v
}

// CreateRenderer draws the view.
func (v *webView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.body) }

// focusTarget is the list's field.
func (v *webView) focusTarget() fyne.Focusable { return v.list.query }

// webListEvery is how often the open web view reads the paired browsers
// again (a phone pairs with the link while it is open).
const webListEvery = 2 * time.Second

// follow reads the web client's state into v now and then every
// webListEvery until v is closed.
func (v *webView) follow() {
	t := time.NewTicker(webListEvery)
	defer t.Stop()
	for {
		v.refresh("")
		<-t.C
		open := false
		v.host.guard(func() { open = v.host.shown(v) })
		if !open {
			return
		}
	}
}

// webRowTitle is row i's text.
func webRowTitle(v *webView, i int) string {
	switch i {
	case webRowPair:
		return "Pair a browser (it can watch and type into panes)"
	case webRowPairReadOnly:
		return "Pair a browser read-only (it can watch, not type)"
	}
	if v.off && i == webRowTurnOn {
		return "Turn web access on at " + webDefaultListen + " (saved in paneflow.toml; from the server's next start)"
	}
	if i-webFixedRows >= len(v.browsers) {
		return ""
	}
	b := v.browsers[i-webFixedRows]
	mode := ""
	if b.ReadOnly {
		mode = " (read-only)"
	}
	seen := "never seen"
	if b.LastSeen != "" {
		seen = "seen " + b.LastSeen
	}
	open := count(b.Connections, "page", "pages") + " open"
	return fmt.Sprintf("Revoke %s%s: %s · paired %s · %s · %s", b.ID, mode, shortAgent(vis.String(b.UserAgent)), b.PairedAt, seen, open)
}

// shortAgent cuts a User-Agent header to what fits a row.
func shortAgent(ua string) string {
	if ua == "" {
		return "unknown browser"
	}
	if r := []rune(ua); len(r) > 48 {
		return string(r[:47]) + "…"
	}
	return ua
}

// webErrText says what a web.* error means to the user: a server without
// a web client is told how to start one.
func webErrText(err error) string {
	var e *ipc.Error
	if errors.As(err, &e) && e.Message == proto.MsgWebOff {
		return "This server serves no web client. \"Turn web access on\" below saves it in paneflow.toml for the server's next start; or start the server with `paneflow serve --web 127.0.0.1:8714` (a Tailscale or VPN address needs --web-tls-cert and --web-tls-key)."
	}
	return "The web client could not be reached: " + err.Error()
}

// refresh reads the web client's address and paired browsers and shows
// them, with note (the outcome of the last action, "" for none) under the
// list.
func (v *webView) refresh(note string) {
	v.run.Lock()
	defer v.run.Unlock()
	v.refreshHeld(note)
}

// refreshHeld is refresh with v.run held.
func (v *webView) refreshHeld(note string) {
	ctx, cancel := context.WithTimeout(context.Background(), webCallTimeout)
	defer cancel()
	res, err := proto.Client{Caller: v.host.caller(webCallTimeout)}.WebList(ctx)
	v.host.do(func() {
		if !v.host.shown(v) {
			return
		}
		var ie *ipc.Error
		v.off = errors.As(err, &ie) && ie.Message == proto.MsgWebOff
		if err != nil {
			v.browsers = nil
			v.status.SetText(webErrText(err))
		} else {
			v.browsers = res.Browsers
			v.status.SetText(fmt.Sprintf("The web client is on %s; %s paired.", res.URL, count(len(res.Browsers), "browser is", "browsers are")))
		}
		n := webFixedRows + len(v.browsers)
		if v.off {
			n++
		}
		v.list.setRows(n, min(v.list.cursor, n-1))
		if note != "" {
			v.setNote(note)
		}
	})
}

// pair asks for a pairing link and shows it: as text, on the clipboard,
// and as a QR code.
func (v *webView) pair(readOnly bool) {
	v.run.Lock()
	defer v.run.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), webCallTimeout)
	defer cancel()
	res, err := proto.Client{Caller: v.host.caller(webCallTimeout)}.WebPair(ctx, proto.WebPairParams{ReadOnly: readOnly})
	if err != nil {
		v.host.do(func() {
			if v.host.shown(v) {
				v.setNote(webErrText(err))
			}
		})
		return
	}
	img, qerr := qrtext.Image(res.URL, 400)
	mode := "it can watch and type into panes"
	if res.ReadOnly {
		mode = "read-only: it can watch, not type"
	}
	text := "Open this link in the browser to pair (once, within " + (time.Duration(res.ExpiresInMS) * time.Millisecond).String() + "; " + mode + "), or scan the code with the phone. The link is on the clipboard."
	v.host.do(func() {
		if !v.host.shown(v) {
			return
		}
		v.host.clipboard().SetContent(res.URL)
		v.setNote(text)
		v.link.SetText(res.URL)
		if qerr == nil {
			v.qr.Image = img
			v.qr.Show()
			v.qr.Refresh()
		}
	})
}

// turnOn saves [web] listen = webDefaultListen in the configuration file
// (appended, the rest kept byte for byte) and says when it applies: the
// web client is the server's, which reads it when it starts.
func (v *webView) turnOn() {
	v.run.Lock()
	defer v.run.Unlock()
	path := v.host.configPath()
	note := "This window has no configuration file to save it in: start the server with `paneflow serve --web " + webDefaultListen + "`."
	if path != "" {
		err := config.Append(path, "[web]\nlisten = \""+webDefaultListen+"\"\n",
			func(c config.Config) bool { return c.Web.Listen != "" },
			"add [web] with listen = \""+webDefaultListen+"\" yourself")
		note = "Saved in " + path + ": the server serves the web client from its next start (Stop everything, or `paneflow kill-server`, then open Paneflow again; the agents' session is restored)."
		if err != nil {
			note = "Not saved: " + err.Error()
		}
	}
	v.host.do(func() {
		if v.host.shown(v) {
			v.setNote(note)
		}
	})
}

// revoke revokes browser id and shows the list again.
func (v *webView) revoke(id string) {
	v.run.Lock()
	defer v.run.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), webCallTimeout)
	defer cancel()
	res, err := proto.Client{Caller: v.host.caller(webCallTimeout)}.WebRevoke(ctx, proto.WebRevokeParams{ID: id})
	note := fmt.Sprintf("Revoked %s (%s closed).", id, count(res.Closed, "page", "pages"))
	if err != nil {
		note = "Revoking " + id + " failed: " + err.Error()
	}
	v.refreshHeld(note)
}

// setNote shows what the last action did, and hides the link and QR code
// of an earlier pairing.
func (v *webView) setNote(text string) {
	v.note.SetText(text)
	v.link.SetText("")
	v.qr.Hide()
}
