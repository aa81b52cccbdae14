package goldenpng

import (
	"image"
	"image/color"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 4, 3))
	b := image.NewRGBA(image.Rect(10, 10, 14, 13)) // same size, other origin
	if d := Diff(a, b, 0); d != "" {
		t.Fatalf("equal images: %q", d)
	}
	b.Set(12, 11, color.RGBA{R: 10, A: 0})
	if d := Diff(a, b, 24); d != "" {
		t.Errorf("a 10-level change within tolerance 24: %q", d)
	}
	if d := Diff(a, b, 0); !strings.Contains(d, "1 pixels differ, first at (2,1)") {
		t.Errorf("a 10-level change with tolerance 0: %q", d)
	}
	if d := Diff(a, image.NewRGBA(image.Rect(0, 0, 4, 4)), 0); !strings.HasPrefix(d, "size") {
		t.Errorf("different sizes: %q", d)
	}
}
