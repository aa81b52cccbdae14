// Package goldenpng compares images with PNG golden files in tests: each
// golden lives at <dir>/<name>.png, is rewritten when the test runs with
// its -update flag, and a mismatching image is written to
// <dir>/failed/<name>.png so it can be looked at.
//
// It is used only by tests; its functions are safe for concurrent use.
package goldenpng

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// Diff describes how got differs from want ("" when they match): a
// different size, or how many pixels have a channel further apart than
// tolerance (in 8-bit levels) and where the first one is.
func Diff(want, got image.Image, tolerance uint8) string {
	wb, gb := want.Bounds(), got.Bounds()
	if wb.Size() != gb.Size() {
		return "size " + wb.Size().String() + " vs " + gb.Size().String()
	}
	tol := uint32(tolerance) << 8
	far := func(u, v uint32) bool { return u > v+tol || v > u+tol }
	n := 0
	var first image.Point
	for y := 0; y < wb.Dy(); y++ {
		for x := 0; x < wb.Dx(); x++ {
			r1, g1, b1, a1 := want.At(wb.Min.X+x, wb.Min.Y+y).RGBA()
			r2, g2, b2, a2 := got.At(gb.Min.X+x, gb.Min.Y+y).RGBA()
			if far(r1&^0xff, r2&^0xff) || far(g1&^0xff, g2&^0xff) || far(b1&^0xff, b2&^0xff) || far(a1&^0xff, a2&^0xff) {
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

// Check compares img with dir/name.png (with tolerance as in Diff), or
// rewrites that file when update is set. A mismatch fails the test and
// writes img to dir/failed/name.png.
func Check(t testing.TB, dir, name string, img image.Image, update bool, tolerance uint8) {
	t.Helper()
	path := filepath.Join(dir, name+".png")
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
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
	if diff := Diff(want, img, tolerance); diff != "" {
		failed := filepath.Join(dir, "failed", name+".png")
		_ = os.MkdirAll(filepath.Dir(failed), 0o755)
		_ = os.WriteFile(failed, buf.Bytes(), 0o644)
		t.Errorf("%s differs from its golden %s: %s; got written to %s", name, path, diff, failed)
	}
}
