package qrtext

import (
	"image/color"
	"strings"
	"testing"

	qrcode "github.com/skip2/go-qrcode"
)

// TestLinesMatchTheBitmap decodes the drawn lines back into modules and
// compares them with the encoder's bitmap: every half block must say
// what its two modules are.
func TestLinesMatchTheBitmap(t *testing.T) {
	const link = "http://127.0.0.1:8714/pair#3q2-7ZKc0a9wVnYxT1bLmE4rUu8sQpFhGj"
	lines, err := Lines(link)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := qrcode.New(link, qrcode.Medium)
	bm := q.Bitmap()
	if len(lines) != (len(bm)+1)/2 {
		t.Fatalf("%d lines for %d module rows", len(lines), len(bm))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "\x1b[30;47m") || !strings.HasSuffix(l, "\x1b[0m") {
			t.Fatalf("line %d is not black on white and reset: %q", i, l)
		}
		cells := []rune(strings.TrimSuffix(strings.TrimPrefix(l, "\x1b[30;47m"), "\x1b[0m"))
		if len(cells) != len(bm[0]) {
			t.Fatalf("line %d: %d cells, want %d", i, len(cells), len(bm[0]))
		}
		for x, r := range cells {
			top, bottom := r == '█' || r == '▀', r == '█' || r == '▄'
			wantBottom := 2*i+1 < len(bm) && bm[2*i+1][x]
			if top != bm[2*i][x] || bottom != wantBottom {
				t.Fatalf("line %d cell %d is %q, want modules %v/%v", i, x, r, bm[2*i][x], wantBottom)
			}
		}
	}
	// The quiet zone: the first line is all light.
	if strings.ContainsAny(lines[0], "█▀▄") {
		t.Errorf("the first line has dark modules: no quiet zone")
	}
}

func TestImageAndLimits(t *testing.T) {
	img, err := Image("http://example.test/pair#x", 256)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 256 {
		t.Errorf("image is %v, want 256×256", b)
	}
	if r, g, b, _ := img.At(0, 0).RGBA(); color.Gray16Model.Convert(color.RGBA64{uint16(r), uint16(g), uint16(b), 0xffff}).(color.Gray16).Y < 0x8000 {
		t.Errorf("the corner (quiet zone) is dark")
	}
	if _, err := Lines(strings.Repeat("x", maxText+1)); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("an over-long text: err = %v, want too long", err)
	}
}
