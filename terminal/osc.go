package terminal

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

func (e *Emulator) handleOSC(cmd int, data []byte) {
	// data is the whole string, "<cmd>;<payload>".
	_, payload, _ := bytes.Cut(data, []byte{';'})
	switch cmd {
	case 0:
		e.title = sanitizeTitle(payload)
		e.iconTitle = e.title
	case 1:
		e.iconTitle = sanitizeTitle(payload)
	case 2:
		e.title = sanitizeTitle(payload)
	case 4:
		e.oscPalette(payload)
	case 7:
		e.setCwd(payload)
	case 8:
		e.setLink(payload)
	case 10, 11, 12, 13, 14, 15, 16, 17, 18, 19:
		e.oscDynamic(cmd, payload)
	case 104:
		e.oscResetPalette(payload)
	case 110, 111, 112, 113, 114, 115, 116, 117, 118, 119:
		e.oscResetDynamic(cmd)
	case 52:
		e.oscClipboard(payload)
	}
}

// sanitizeTitle keeps titles printable and bounded.
func sanitizeTitle(p []byte) string {
	if len(p) > maxTitleLen {
		p = p[:maxTitleLen]
	}
	s := strings.ToValidUTF8(string(p), "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

// setCwd handles OSC 7: file://host/path, percent-encoded. It is taken
// only when it names this machine (host empty, "localhost", or this
// host's name, see [LocalHost]), the path is absolute, valid UTF-8 of at
// most 4096 bytes and holds no control or bidirectional-text character
// once decoded; otherwise the pane keeps the directory it had. (A program
// can print any OSC 7; the app acts on the directory, so a path on
// another machine or one that hides characters is not one.)
func (e *Emulator) setCwd(p []byte) {
	u, err := url.Parse(string(p))
	if err != nil || u.Scheme != "file" || !strings.HasPrefix(u.Path, "/") || len(u.Path) > 4096 ||
		!utf8.ValidString(u.Path) || !LocalHost(u.Host) || strings.ContainsFunc(u.Path, hiddenRune) {
		return
	}
	e.cwd = u.Path
}

// hostname is this machine's name (os.Hostname), "" when unknown.
var hostname = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return h
})

// LocalHost reports whether host (a file URL's, possibly with a port)
// names this machine: "", "localhost", or this host's name or its first
// label (shells print either), ASCII case ignored. OSC 7 is taken, and
// the app opens file:// links, only for such a host.
func LocalHost(host string) bool {
	if host == "" || strings.EqualFold(host, "localhost") {
		return true
	}
	h := hostname()
	short, _, _ := strings.Cut(h, ".")
	return h != "" && (strings.EqualFold(host, h) || strings.EqualFold(host, short))
}

// hiddenRune reports the characters a directory shown to the user or
// handed to a program must not hold: C0 and C1 controls, DEL, and the
// bidirectional-text controls that reorder what a reader sees.
func hiddenRune(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true
	}
	return false
}

// setLink handles OSC 8: "params;URI" starts a hyperlink, an empty URI ends it.
func (e *Emulator) setLink(p []byte) {
	_, uri, ok := bytes.Cut(p, []byte{';'})
	if !ok || len(uri) == 0 || len(uri) > 2048 {
		e.pen.Link = 0
		return
	}
	s := string(uri)
	if id, ok := e.linkID[s]; ok {
		e.pen.Link = id
		return
	}
	if len(e.links) >= maxLinks {
		e.pen.Link = 0
		return
	}
	if e.linkID == nil {
		e.linkID = make(map[string]uint16)
	}
	e.links = append(e.links, s)
	id := uint16(len(e.links))
	e.linkID[s] = id
	e.pen.Link = id
}

// oscClipboard handles OSC 52 "selection;base64". It only acts when the
// embedder allowed it; queries ("?") are never answered so programs cannot
// read the clipboard.
func (e *Emulator) oscClipboard(p []byte) {
	if !e.opts.AllowOSC52 {
		return
	}
	sel, data, ok := bytes.Cut(p, []byte{';'})
	if !ok || string(data) == "?" {
		return
	}
	dec, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return
	}
	if len(sel) == 0 {
		sel = []byte("c")
	}
	e.clipSel, e.clipData, e.clipSet = string(sel), dec, true
}

// reply queues bytes for the program; they are delivered after the lock is
// released (see Write).
func (e *Emulator) reply(s string) {
	if n := len(e.replies); n < 1<<16 {
		e.replies = append(e.replies, s...)
		e.replyC1(n)
	}
}

func (e *Emulator) replyf(format string, args ...any) {
	if n := len(e.replies); n < 1<<16 {
		e.replies = fmt.Appendf(e.replies, format, args...)
		e.replyC1(n)
	}
}

// xtermPalette returns the RGB value xterm uses for palette index n.
func xtermPalette(n uint8) (r, g, b uint8) {
	base := [16][3]uint8{
		{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0},
		{0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
		{127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0},
		{92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
	}
	switch {
	case n < 16:
		c := base[n]
		return c[0], c[1], c[2]
	case n < 232:
		n -= 16
		lvl := func(v uint8) uint8 {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return lvl(n / 36), lvl(n / 6 % 6), lvl(n % 6)
	default:
		v := 8 + 10*(n-232)
		return v, v, v
	}
}
