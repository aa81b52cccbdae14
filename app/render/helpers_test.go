package render_test

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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

// golden compares img with testdata/name.png (rewriting it with -update);
// a mismatch is written to testdata/failed/name.png.
func golden(t *testing.T, name string, img *image.RGBA) {
	t.Helper()
	path := filepath.Join("testdata", name+".png")
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run with -update to create it)", path, err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if diff := imageDiff(want, img); diff != "" {
		failed := filepath.Join("testdata", "failed", name+".png")
		_ = os.MkdirAll(filepath.Dir(failed), 0o755)
		_ = os.WriteFile(failed, buf.Bytes(), 0o644)
		t.Errorf("%s differs from its golden: %s; got written to %s", name, diff, failed)
	}
}

// imageDiff describes how a and b differ ("" when equal).
func imageDiff(a image.Image, b *image.RGBA) string {
	if a.Bounds() != b.Bounds() {
		return "bounds " + a.Bounds().String() + " vs " + b.Bounds().String()
	}
	// Anti-aliased edges may differ by a few levels between CPU
	// architectures (fused multiply-add in the rasteriser); a real change
	// moves a pixel much further.
	const tolerance = 24 << 8
	far := func(u, v uint32) bool { return u > v+tolerance || v > u+tolerance }
	n := 0
	var first image.Point
	for y := b.Rect.Min.Y; y < b.Rect.Max.Y; y++ {
		for x := b.Rect.Min.X; x < b.Rect.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if far(r1, r2) || far(g1, g2) || far(b1, b2) || far(a1, a2) {
				if n == 0 {
					first = image.Pt(x, y)
				}
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d pixels differ, first at %v", n, first)
}
