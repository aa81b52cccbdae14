package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// thinMachO returns a minimal 64-bit Mach-O executable header for cpu with
// no load commands, followed by payload: enough for debug/macho.
func thinMachO(cpu macho.Cpu, payload string) []byte {
	le := binary.LittleEndian
	var b []byte
	for _, v := range []uint32{macho.Magic64, uint32(cpu), 3, uint32(macho.TypeExec), 0, 0, 0, 0} {
		b = le.AppendUint32(b, v)
	}
	return append(b, payload...)
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUniversalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	arm := thinMachO(macho.CpuArm64, "arm payload")
	amd := thinMachO(macho.CpuAmd64, "amd payload, longer")
	// Given in either order, the output is the same file.
	var outs [][]byte
	for i, ins := range [][]string{{"arm", "amd"}, {"amd", "arm"}} {
		paths := map[string]string{"arm": write(t, dir, "arm", arm), "amd": write(t, dir, "amd", amd)}
		out := filepath.Join(dir, "fat"+string(rune('0'+i)))
		if err := writeUniversal(out, []string{paths[ins[0]], paths[ins[1]]}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, data)

		got, err := checkUniversal(out, []string{"x86_64", "arm64"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != "x86_64,arm64" {
			t.Errorf("architectures %v, want x86_64 then arm64 (by CPU type)", got)
		}
		ff, err := macho.OpenFat(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range ff.Arches {
			want := map[macho.Cpu][]byte{macho.CpuArm64: arm, macho.CpuAmd64: amd}[a.Cpu]
			if !bytes.Equal(data[a.Offset:a.Offset+a.Size], want) {
				t.Errorf("%v slice is not the thin file byte for byte", a.Cpu)
			}
			if a.Offset%(1<<fatAlign) != 0 || a.Align != fatAlign {
				t.Errorf("%v slice at offset %d, align %d: not aligned to 2^%d", a.Cpu, a.Offset, a.Align, fatAlign)
			}
		}
		ff.Close()
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("the output depends on the order of the inputs")
	}
}

func TestUniversalErrors(t *testing.T) {
	dir := t.TempDir()
	arm := write(t, dir, "arm", thinMachO(macho.CpuArm64, ""))
	arm2 := write(t, dir, "arm2", thinMachO(macho.CpuArm64, "x"))
	elf := write(t, dir, "elf", []byte("\x7fELF not mach-o at all"))
	for _, tt := range []struct {
		ins  []string
		want string
	}{
		{[]string{arm, arm2}, "are both arm64"},
		{[]string{arm, elf}, "not a thin Mach-O"},
		{[]string{arm, filepath.Join(dir, "missing")}, "no such file"},
	} {
		out := filepath.Join(dir, "out")
		err := writeUniversal(out, tt.ins)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("writeUniversal(%v) = %v, want an error containing %q", tt.ins, err, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("writeUniversal(%v) failed but left %s", tt.ins, out)
		}
	}
	// A fat file missing an architecture, and a thin file, fail the check.
	fat := filepath.Join(dir, "fat")
	if err := writeUniversal(fat, []string{arm}); err != nil {
		t.Fatal(err)
	}
	if _, err := checkUniversal(fat, []string{"arm64", "x86_64"}); err == nil || !strings.Contains(err.Error(), "want [arm64 x86_64]") {
		t.Errorf("checkUniversal of an arm64-only file = %v, want a missing-architecture error", err)
	}
	if _, err := checkUniversal(arm, []string{"arm64"}); err == nil || !strings.Contains(err.Error(), "not a universal") {
		t.Errorf("checkUniversal of a thin file = %v, want a not-universal error", err)
	}
}

func pngOf(t *testing.T, dir string, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return write(t, dir, "i"+string(rune('a'+w%26))+string(rune('a'+h%26))+".png", b.Bytes())
}

func TestICO(t *testing.T) {
	dir := t.TempDir()
	p16, p256 := pngOf(t, dir, 16, 16), pngOf(t, dir, 256, 256)
	out := filepath.Join(dir, "app.ico")
	if err := writeICO(out, []string{p16, p256}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if le.Uint16(data[0:]) != 0 || le.Uint16(data[2:]) != 1 || le.Uint16(data[4:]) != 2 {
		t.Fatalf("header % x, want reserved 0, type 1, count 2", data[:6])
	}
	for i, p := range []string{p16, p256} {
		e := data[6+16*i:]
		side := map[int]byte{0: 16, 1: 0}[i]
		if e[0] != side || e[1] != side {
			t.Errorf("entry %d is %dx%d, want %d (0 means 256)", i, e[0], e[1], side)
		}
		size, off := le.Uint32(e[8:]), le.Uint32(e[12:])
		want, _ := os.ReadFile(p)
		if !bytes.Equal(data[off:off+size], want) {
			t.Errorf("entry %d does not point at its PNG", i)
		}
		if _, err := png.Decode(bytes.NewReader(data[off : off+size])); err != nil {
			t.Errorf("entry %d: %v", i, err)
		}
	}
	for _, bad := range []string{pngOf(t, dir, 16, 32), pngOf(t, dir, 300, 300)} {
		if err := writeICO(filepath.Join(dir, "bad.ico"), []string{bad}); err == nil {
			t.Errorf("writeICO accepted %s", bad)
		}
	}
}

func TestRunUsage(t *testing.T) {
	var out, errb bytes.Buffer
	for _, args := range [][]string{nil, {"nope"}, {"universal", "x"}, {"ico", "-x", "a", "b"}, {"check-universal", "f"}} {
		out.Reset()
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage:") {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and the usage", args, code, errb.String())
		}
	}
	if code := run([]string{"check-universal", filepath.Join(t.TempDir(), "none"), "arm64"}, &out, &errb); code != 1 {
		t.Errorf("check-universal of a missing file exited %d, want 1", code)
	}
}
