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

// webView is the open "Web access" view: the server's web client (its
// address, or how to start one), pairing a browser (the one-time link as
// text, on the clipboard and as a QR code) and the paired browsers, each
// row revoking one. Its widgets are used holding the shell's lock; the
// socket calls run on goroutines of their own, one at a time (run), and
// post their outcome back. nil when closed.
type webView struct {
	list     *pickList
	status   *widget.Label // the web client's address, or why there is none
	note     *widget.Label // the outcome of the last action
	link     *widget.Label // the last pairing link
	qr       *canvas.Image // that link's QR code; hidden until a pairing
	browsers []proto.WebBrowser
	off      bool // the server serves no web client: the turn-on row shows
	pop      *popup
	run      sync.Mutex // held while a call runs
}

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

// openWebLocked opens the web view (or closes it when open) and reads the
// paired browsers.
func (s *shell) openWebLocked() {
	if shownAs[*webView](s) != nil {
		s.closeOverlayLocked()
		return
	}
	s.closeOverlaysLocked()
	v := &webView{list: newPickList("Enter pairs a browser or revokes the selected one; Escape closes", s.guard)}
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
		s.guard(func() {
			if s.top != v {
				return
			}
			switch {
			case i == webRowPair || i == webRowPairReadOnly:
				v.setNote("asking the server for a link…")
				go s.webPair(v, i == webRowPairReadOnly)
			case v.off && i == webRowTurnOn:
				v.setNote("saving…")
				go s.webTurnOn(v)
			case i-webFixedRows < len(v.browsers):
				b := v.browsers[i-webFixedRows]
				v.setNote("revoking " + b.ID + "…")
				go s.webRevoke(v, b.ID)
			}
		})
	}
	v.list.dismiss = func() { s.guard(func() { closeShownLocked[*webView](s) }) }
	v.list.setRows(webFixedRows, 0)
	fitScroll(v.list.scroll, 240)
	header := widget.NewLabelWithStyle("Web access: the agents in a browser or on a phone", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(header, v.status, v.list.query, v.list.scroll)
	body := container.NewBorder(top, nil, nil, container.NewCenter(v.qr), container.NewVScroll(container.NewVBox(v.note, v.link)))
	s.top = v
	v.pop = s.showPopupLocked(body, fyne.NewSize(780, 560), v.list.query)
	go s.webFollow(v)
}

// webListEvery is how often the open web view reads the paired browsers
// again (a phone pairs with the link while it is open).
const webListEvery = 2 * time.Second

// webFollow reads the web client's state into v now and then every
// webListEvery until v is closed.
func (s *shell) webFollow(v *webView) {
	t := time.NewTicker(webListEvery)
	defer t.Stop()
	for {
		s.webRefresh(v, "")
		<-t.C
		open := false
		s.guard(func() { open = s.top == v })
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

// webRefresh reads the web client's address and paired browsers and shows
// them in v, with note (the outcome of the last action, "" for none) under
// the list.
func (s *shell) webRefresh(v *webView, note string) {
	v.run.Lock()
	defer v.run.Unlock()
	s.webRefreshHeld(v, note)
}

// webRefreshHeld is webRefresh with v.run held.
func (s *shell) webRefreshHeld(v *webView, note string) {
	ctx, cancel := context.WithTimeout(context.Background(), webCallTimeout)
	defer cancel()
	res, err := proto.Client{Caller: s.b.Caller(webCallTimeout)}.WebList(ctx)
	s.do(func() {
		if s.top != v {
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

// webPair asks for a pairing link and shows it in v: as text, on the
// clipboard, and as a QR code.
func (s *shell) webPair(v *webView, readOnly bool) {
	v.run.Lock()
	defer v.run.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), webCallTimeout)
	defer cancel()
	res, err := proto.Client{Caller: s.b.Caller(webCallTimeout)}.WebPair(ctx, proto.WebPairParams{ReadOnly: readOnly})
	if err != nil {
		s.do(func() {
			if s.top == v {
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
	s.do(func() {
		if s.top != v {
			return
		}
		s.a.Clipboard().SetContent(res.URL)
		v.setNote(text)
		v.link.SetText(res.URL)
		if qerr == nil {
			v.qr.Image = img
			v.qr.Show()
			v.qr.Refresh()
		}
	})
}

// webTurnOn saves [web] listen = webDefaultListen in the configuration
// file (appended, the rest kept byte for byte) and says when it applies:
// the web client is the server's, which reads it when it starts.
func (s *shell) webTurnOn(v *webView) {
	v.run.Lock()
	defer v.run.Unlock()
	path := s.o.ConfigPath
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
	s.do(func() {
		if s.top == v {
			v.setNote(note)
		}
	})
}

// webRevoke revokes browser id and shows the list again.
func (s *shell) webRevoke(v *webView, id string) {
	v.run.Lock()
	defer v.run.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), webCallTimeout)
	defer cancel()
	res, err := proto.Client{Caller: s.b.Caller(webCallTimeout)}.WebRevoke(ctx, proto.WebRevokeParams{ID: id})
	note := fmt.Sprintf("Revoked %s (%s closed).", id, count(res.Closed, "page", "pages"))
	if err != nil {
		note = "Revoking " + id + " failed: " + err.Error()
	}
	s.webRefreshHeld(v, note)
}

// setNote shows what the last action did, and hides the link and QR code
// of an earlier pairing.
func (v *webView) setNote(text string) {
	v.note.SetText(text)
	v.link.SetText("")
	v.qr.Hide()
}
