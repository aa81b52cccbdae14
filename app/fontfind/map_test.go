package fontfind

import (
	"bytes"
	"path/filepath"
	"runtime"
	"testing"
)

// heapAlloc returns the bytes of live heap objects after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMapFace checks that MapFace returns the same bytes ReadFace does,
// for a single font, a collection's face and a missing file, and that on
// Linux and macOS a single font's bytes are not copied into the Go heap.
func TestMapFace(t *testing.T) {
	dir := fontDir(t)
	single := filepath.Join(dir, "truetype", "noto", "NotoSans-Regular.ttf")
	want := readFont(t, single)

	before := heapAlloc()
	got, err := MapFace(single, 0)
	grew := int64(heapAlloc()) - int64(before)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("MapFace returned %d bytes that differ from the file's %d", len(got), len(want))
	}
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		// ReadFace's copy would grow the heap by the file's size
		// (~450 kB); a mapping by nothing of that order.
		if grew > int64(len(want))/4 {
			t.Errorf("MapFace grew the Go heap by %d bytes for a %d-byte font: the file was copied, not mapped", grew, len(want))
		}
	}
	runtime.KeepAlive(got)

	coll := filepath.Join(t.TempDir(), "pair.ttc")
	writeFile(t, coll, buildCollection(t, want, readFont(t, filepath.Join(dir, "truetype", "noto", "NotoSans-Bold.ttf"))))
	for i, name := range []string{"Noto Sans Regular", "Noto Sans Bold"} {
		b, err := MapFace(coll, i)
		if err != nil {
			t.Fatalf("collection face %d: %v", i, err)
		}
		if n := nameOf(t, b); n != name {
			t.Errorf("collection face %d is %q, want %q", i, n, name)
		}
	}
	if _, err := MapFace(filepath.Join(dir, "broken.ttf"), 0); err == nil {
		t.Error("MapFace of a file that is not a font: no error")
	}
	if _, err := MapFace(filepath.Join(dir, "missing.ttf"), 0); err == nil {
		t.Error("MapFace of a missing file: no error")
	}
}
