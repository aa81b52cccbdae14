package render_test

import (
	"flag"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/app/internal/goldenpng"
	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/terminal"
)

var update = flag.Bool("update", false, "rewrite the golden PNGs in testdata/")

var (
	fontDirOnce sync.Once
	fontDir     string
	fontDirErr  error
)

// fyneFont reads a font bundled with Fyne from the module cache (the
// render package itself never imports Fyne).
func fyneFont(t testing.TB, name string) []byte {
	t.Helper()
	fontDirOnce.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "fyne.io/fyne/v2").Output()
		if err != nil {
			fontDirErr = err
			return
		}
		fontDir = filepath.Join(strings.TrimSpace(string(out)), "theme", "font")
	})
	if fontDirErr != nil {
		t.Fatalf("locating the fyne module: %v", fontDirErr)
	}
	b, err := os.ReadFile(filepath.Join(fontDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cjkFont returns a CJK-capable system font that this package can parse,
// or nil when none is installed (the CJK golden is skipped then).
func cjkFont(t testing.TB) []byte {
	for _, p := range []string{
		"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
		"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
		"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		c := render.DefaultFontConfig()
		c.Regular = fyneFont(t, "DejaVuSansMono-Powerline.ttf")
		c.Fallbacks = [][]byte{b}
		if _, err := render.NewFontSet(c); err != nil {
			t.Logf("skipping %s: %v", p, err)
			continue
		}
		return b
	}
	return nil
}

// testFonts is DejaVu Sans Mono at 13 pt with Noto Sans as a fallback.
func testFonts(t testing.TB) *render.FontSet {
	t.Helper()
	c := render.DefaultFontConfig()
	c.Regular = fyneFont(t, "DejaVuSansMono-Powerline.ttf")
	c.Fallbacks = [][]byte{fyneFont(t, "NotoSans-Regular.ttf"), fyneFont(t, "EmojiOneColor.otf")}
	f, err := render.NewFontSet(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// screen feeds in into a cols×rows emulator and returns its snapshot.
func screen(cols, rows int, in string) *terminal.Snapshot {
	e := terminal.NewEmulator(cols, rows, terminal.EmulatorOptions{})
	e.Write([]byte(in))
	var s terminal.Snapshot
	e.Snapshot(&s)
	return &s
}

// draw renders s with o into a new image sized for the grid.
func draw(t testing.TB, r *render.Renderer, s *terminal.Snapshot, o *render.Overlay) *image.RGBA {
	t.Helper()
	w, h := r.Size(s.Cols, s.Rows)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if n := r.Render(img, s, o); n != s.Rows {
		t.Fatalf("first Render drew %d rows, want all %d", n, s.Rows)
	}
	return img
}

// goldenTolerance allows anti-aliased edges to differ by a few levels
// between CPU architectures (fused multiply-add in the rasteriser); a
// real change moves a pixel much further.
const goldenTolerance = 24

// golden compares img with testdata/name.png (rewriting it with -update).
func golden(t *testing.T, name string, img *image.RGBA) {
	t.Helper()
	goldenpng.Check(t, "testdata", name, img, *update, goldenTolerance)
}

// imageDiff describes how a and b differ ("" when equal).
func imageDiff(a image.Image, b *image.RGBA) string { return goldenpng.Diff(a, b, goldenTolerance) }
