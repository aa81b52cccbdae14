//go:build linux

package web

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/webtest"
)

// TestPairFromTheQRCode runs `paneflow web pair` in a real pane (a
// terminal, so the QR code is drawn), reads the pane back, turns its half
// blocks into modules, has zbarimg decode the picture, and pairs the
// browser with the link it decoded: the code a phone's camera would read
// is the printed link, and it pairs.
func TestPairFromTheQRCode(t *testing.T) {
	zbar, err := exec.LookPath("zbarimg")
	if err != nil {
		t.Skip("zbarimg (Debian's zbar-tools, which scripts/deps.sh installs) is not installed")
	}
	ctx := webtest.Browser(t)
	s := startWeb(t, "100x50")
	id := strconv.FormatUint(s.firstPane(), 10)
	s.cli("send", id, "--submit", bin+" web pair")

	var link string
	var code []string
	deadline := time.Now().Add(webtest.PollTimeout)
	for {
		lines := s.serverRows(s.firstPane(), 50)
		var done bool
		link, code, done = qrFromPane(lines)
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no link and QR code in the pane:\n%s", strings.Join(lines, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	file := filepath.Join(t.TempDir(), "qr.png")
	writeModules(t, file, code)
	out, err := exec.Command(zbar, "--raw", "-q", file).Output()
	decoded := strings.TrimSpace(string(out))
	if err != nil || decoded != link {
		t.Fatalf("zbarimg read %q (%v); want the printed link %q\ncode:\n%s", decoded, err, link, strings.Join(code, "\n"))
	}
	webtest.Pair(t, ctx, decoded)
}

// qrFromPane finds the pairing link (the indented line after "Open this
// link") and the code's lines (after "or scan it:", up to the first line
// that is not the code) in a pane's text; done once the shell's prompt
// is back after them (the command ended: the code is whole).
func qrFromPane(lines []string) (link string, code []string, done bool) {
	for i, l := range lines {
		if len(code) > 0 && strings.HasPrefix(l, "#") {
			done = link != ""
		}
		// The shell's first prompt may come after the echo of the command
		// typed before it, so on the first line of its output.
		if strings.Contains(l, "Open this link") && i+2 < len(lines) {
			link = strings.TrimSpace(lines[i+2])
		}
		if l == "or scan it:" {
			// The quiet zone's rows read as empty lines.
			for _, c := range lines[i+1:] {
				c = strings.TrimPrefix(c, "  ")
				if c == "" && len(code) == 0 {
					continue
				}
				if c == "" || strings.ContainsFunc(c, func(r rune) bool { return !strings.ContainsRune(" █▀▄", r) }) {
					break
				}
				code = append(code, c)
			}
		}
	}
	return link, code, done
}

// writeModules draws the code's half-block lines (each character two
// modules, top and bottom; trailing light cells trimmed by the read)
// dark on light, 6 pixels a module, with a light border, as a PNG.
func writeModules(t *testing.T, file string, code []string) {
	t.Helper()
	const px, border = 6, 8
	w := 0
	for _, l := range code {
		w = max(w, len([]rune(l)))
	}
	img := image.NewGray(image.Rect(0, 0, (w+2*border)*px, (2*len(code)+2*border)*px))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y, l := range code {
		for x, r := range []rune(l) {
			for half, dark := range []bool{r == '█' || r == '▀', r == '█' || r == '▄'} {
				if !dark {
					continue
				}
				for dy := range px {
					for dx := range px {
						img.SetGray((x+border)*px+dx, (2*y+half+border)*px+dy, color.Gray{})
					}
				}
			}
		}
	}
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(fmt.Errorf("writing %s: %v", file, err))
	}
}
