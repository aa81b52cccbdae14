package shim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
)

func TestToolsMatchConductor(t *testing.T) {
	var want []string
	for _, a := range proto.Agents() {
		want = append(want, a.Binary)
	}
	if !slices.Equal(Tools, want) {
		t.Errorf("Tools = %v; want the conductor's agents %v", Tools, want)
	}
}

// newInstaller returns an installer for a fresh directory, with source
// programs holding shim and hook.
func newInstaller(t *testing.T, goos, shim, hook string) *Installer {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "src")
	in := &Installer{
		Dir:     filepath.Join(root, "cache", "paneflow", "bin", "v1"),
		ShimBin: filepath.Join(src, ShimBinary),
		HookBin: filepath.Join(src, HookBinary),
		GOOS:    goos,
	}
	writeFile(t, in.ShimBin, shim)
	writeFile(t, in.HookBin, hook)
	os.Chmod(in.ShimBin, 0o755)
	os.Chmod(in.HookBin, 0o755)
	return in
}

// checkDir checks that in.Dir holds the shims of shim and the hook.
func checkDir(t *testing.T, in *Installer, shim, hook string) {
	t.Helper()
	for _, tool := range Tools {
		p := filepath.Join(in.Dir, exeName(tool, in.goos()))
		if in.goos() == "windows" {
			if got := readFile(t, p); got != shim {
				t.Errorf("%s = %q; want the shim's bytes", p, got)
			}
			continue
		}
		if target, err := os.Readlink(p); err != nil || target != ShimBinary {
			t.Errorf("%s: readlink = %q, %v; want %q", p, target, err, ShimBinary)
		}
	}
	for p, want := range map[string]string{in.shimPath(): shim, in.hookPath(): hook} {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, %v; want a regular file with mode 0755", p, fi, err)
			continue
		}
		if got := readFile(t, p); got != want {
			t.Errorf("%s = %q; want %q", p, got, want)
		}
	}
	if !exists(filepath.Join(in.Dir, markerFile)) {
		t.Errorf("no marker file in %s", in.Dir)
	}
	entries, _ := os.ReadDir(in.Dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left in %s", e.Name(), in.Dir)
		}
	}
}

func TestInstallerEnsure(t *testing.T) {
	for _, goos := range []string{"linux", "windows"} {
		t.Run(goos, func(t *testing.T) {
			in := newInstaller(t, goos, "shim v1", "hook v1")
			if changed, err := in.Ensure(); err != nil || !changed {
				t.Fatalf("first Ensure = %v, %v; want true, nil", changed, err)
			}
			checkDir(t, in, "shim v1", "hook v1")

			// Unchanged: nothing written, by the stamps or by the hashes.
			if changed, err := in.Ensure(); err != nil || changed {
				t.Fatalf("second Ensure = %v, %v; want false, nil", changed, err)
			}
			fresh := &Installer{Dir: in.Dir, ShimBin: in.ShimBin, HookBin: in.HookBin, GOOS: goos}
			before, _ := os.Lstat(in.shimPath())
			if changed, err := fresh.Ensure(); err != nil || changed {
				t.Fatalf("Ensure of a fresh installer = %v, %v; want false, nil (hashes match)", changed, err)
			}
			if after, _ := os.Lstat(in.shimPath()); !os.SameFile(before, after) {
				t.Errorf("%s was rewritten although its hash matched", in.shimPath())
			}

			// A new build of the shim replaces every copy.
			writeFile(t, in.ShimBin, "shim v2, longer")
			if changed, err := in.Ensure(); err != nil || !changed {
				t.Fatalf("Ensure after a rebuild = %v, %v; want true, nil", changed, err)
			}
			checkDir(t, in, "shim v2, longer", "hook v1")

			// Damage is repaired.
			codex := filepath.Join(in.Dir, exeName("codex", goos))
			os.Remove(codex)
			writeFile(t, codex, "not the shim")
			os.Remove(in.hookPath())
			if changed, err := in.Ensure(); err != nil || !changed {
				t.Fatalf("Ensure after damage = %v, %v; want true, nil", changed, err)
			}
			checkDir(t, in, "shim v2, longer", "hook v1")
		})
	}
}

func TestInstallerMissingSource(t *testing.T) {
	in := newInstaller(t, "linux", "s", "h")
	os.Remove(in.HookBin)
	if _, err := in.Ensure(); err == nil {
		t.Fatal("Ensure with no hook program succeeded")
	}
	if exists(filepath.Join(in.Dir, "codex")) {
		t.Error("Ensure failed but installed shims")
	}
}

func TestDefaultDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		goos, version string
		env           map[string]string
		want          string
	}{
		{"linux", "1.2.3", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "/c"}, "/c/paneflow/bin/1.2.3"},
		{"linux", "", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "rel"}, "/h/.cache/paneflow/bin/dev"},
		{"darwin", "v1/dirty build", map[string]string{"HOME": "/h"}, "/h/Library/Caches/paneflow/bin/v1_dirty_build"},
		{"linux", "..", map[string]string{"HOME": "/h"}, "/h/.cache/paneflow/bin/dev"},
	}
	for _, tt := range tests {
		got, err := DefaultDir(env(tt.env), tt.goos, tt.version)
		if err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("DefaultDir(%s, %q) = %q, %v; want %q", tt.goos, tt.version, got, err, tt.want)
		}
	}
	if _, err := DefaultDir(env(nil), "linux", "x"); err == nil {
		t.Error("DefaultDir with no HOME succeeded")
	}
}

func TestFindBinaries(t *testing.T) {
	dir := t.TempDir()
	exe := writeExec(t, dir, "paneflow", "")
	writeExec(t, dir, ShimBinary, "")
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if _, _, err := FindBinaries(exe, get(nil), "linux"); err == nil {
		t.Fatal("FindBinaries found a hook program that does not exist")
	}
	writeExec(t, dir, HookBinary, "")
	s, h, err := FindBinaries(exe, get(nil), "linux")
	if err != nil || s != filepath.Join(dir, ShimBinary) || h != filepath.Join(dir, HookBinary) {
		t.Fatalf("FindBinaries = %q, %q, %v", s, h, err)
	}
	other := writeExec(t, t.TempDir(), "my-shim", "")
	s, _, err = FindBinaries(exe, get(map[string]string{"PANEFLOW_SHIM_BIN": other}), "linux")
	if err != nil || s != other {
		t.Fatalf("FindBinaries with $PANEFLOW_SHIM_BIN = %q, %v; want %q", s, err, other)
	}
}

// BenchmarkEnsureCurrent measures the per-pane-start check of a current
// directory (stats only).
func BenchmarkEnsureCurrent(b *testing.B) {
	root := b.TempDir()
	in := &Installer{Dir: filepath.Join(root, "bin"), ShimBin: filepath.Join(root, ShimBinary), HookBin: filepath.Join(root, HookBinary)}
	big := strings.Repeat("x", 5<<20) // about the size of the real binaries
	os.WriteFile(in.ShimBin, []byte(big), 0o755)
	os.WriteFile(in.HookBin, []byte(big), 0o755)
	if _, err := in.Ensure(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if changed, err := in.Ensure(); err != nil || changed {
			b.Fatal(changed, err)
		}
	}
}
