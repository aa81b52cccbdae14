package qrtext

import (
	"image/color"
	"strings"
	"testing"

	qrcode "github.com/skip2/go-qrcode"
)

// TestModulesMatchTheBitmap compares the rows with the encoder's bitmap,
// module by module, and checks the quiet zone.
func TestModulesMatchTheBitmap(t *testing.T) {
	const link = "http://127.0.0.1:8714/pair#3q2-7ZKc0a9wVnYxT1bLmE4rUu8sQpFhGj"
	rows, err := Modules(link)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := qrcode.New(link, qrcode.Medium)
	bm := q.Bitmap()
	if len(rows) != len(bm) {
		t.Fatalf("%d rows for %d module rows", len(rows), len(bm))
	}
	for y, row := range rows {
		if len(row) != len(bm[y]) || len(row) != len(rows) {
			t.Fatalf("row %d has %d modules, want %d (square)", y, len(row), len(bm[y]))
		}
		for x, c := range []byte(row) {
			if want := map[bool]byte{true: '1', false: '0'}[bm[y][x]]; c != want {
				t.Fatalf("row %d module %d is %q, want %q", y, x, c, want)
			}
		}
	}
	if strings.Contains(rows[0], "1") {
		t.Errorf("the first row has dark modules: no quiet zone")
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
	if _, err := Modules(strings.Repeat("x", maxText+1)); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("an over-long text: err = %v, want too long", err)
	}
}
