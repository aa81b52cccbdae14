package remote

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/paneflow-go/paneflow/version"
)

// InstallNames are the programs `paneflow host install` copies, those of
// them found beside this one: the CLI (required; it runs the bridge), the
// headless server, the MCP bridge, the hook and the launch shim.
var InstallNames = []string{"paneflow", "paneflow-server", "paneflow-mcp", "paneflow-ai-hook", "paneflow-shim"}

// installScript unpacks the tar on stdin into ~/.local/bin, each file
// replacing the old one by rename (a running paneflow keeps its file),
// and prints the directory.
const installScript = `set -e; d="$HOME/.local/bin"; mkdir -p "$d"; t=$(mktemp -d "$d/.paneflow-install.XXXXXX"); trap 'rm -rf "$t"' EXIT; tar -xf - -C "$t"; for f in "$t"/*; do chmod 755 "$f"; mv -f "$f" "$d/"; done; printf '%s\n' "$d"`

// whichScript prints which paneflow the bridge would run and its version.
const whichScript = `p=$(command -v paneflow 2>/dev/null) || p="$HOME/.local/bin/paneflow"; printf '%s\n' "$p"; "$p" version`

// Install is `paneflow host install HOST`: it asks h for its system
// (uname), refuses one this build is not for, then copies the programs of
// [InstallNames] found in binDir to ~/.local/bin on h over ssh (tar on
// the host's side) and checks that paneflow there now answers with this
// version. Progress and advice go to out.
func Install(ctx context.Context, h Host, e Env, binDir string, out io.Writer) error {
	uname, err := output(ctx, h, e, nil, "uname -s; uname -m")
	if err != nil {
		return fmt.Errorf("asking %s for its system: %w", h, err)
	}
	goos, goarch, ok := platform(uname)
	if !ok {
		return fmt.Errorf("%s runs %q, a system this paneflow has no build for; host install copies only this build", h, strings.Join(strings.Fields(uname), " "))
	}
	if goos != runtime.GOOS || goarch != runtime.GOARCH {
		return fmt.Errorf("%s is %s/%s and this paneflow is a %s/%s build; host install copies only this build: build for %s/%s (GOOS=%s GOARCH=%s make build) and copy bin/ to ~/.local/bin there",
			h, goos, goarch, runtime.GOOS, runtime.GOARCH, goos, goarch, goos, goarch)
	}
	var files []string
	for _, name := range InstallNames {
		p := filepath.Join(binDir, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			if name == "paneflow" {
				return fmt.Errorf("no paneflow in %s to copy", binDir)
			}
			continue
		}
		if err := checkStatic(p); err != nil {
			return err
		}
		files = append(files, p)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeTar(pw, files)) }()
	dir, err := output(ctx, h, e, pr, installScript)
	pr.Close()
	if err != nil {
		return fmt.Errorf("copying to %s: %w", h, err)
	}
	dir = strings.TrimSpace(dir)
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	fmt.Fprintf(out, "installed %s %s on %s in %s\n", strings.Join(names, ", "), version.String(), h, dir)
	which, err := output(ctx, h, e, nil, whichScript)
	if err != nil {
		return fmt.Errorf("running the installed paneflow on %s: %w", h, err)
	}
	lines := strings.Split(strings.TrimSpace(which), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[1]) != "paneflow "+version.String() {
		return fmt.Errorf("on %s the bridge would run %s, which says %q, not paneflow %s: remove it or put %s first in PATH there",
			h, lines[0], strings.Join(lines[1:], " "), version.String(), dir)
	}
	return nil
}

// platform maps `uname -s; uname -m` to GOOS and GOARCH.
func platform(uname string) (goos, goarch string, ok bool) {
	f := strings.Fields(uname)
	if len(f) != 2 {
		return "", "", false
	}
	switch f[0] {
	case "Linux":
		goos = "linux"
	case "Darwin":
		goos = "darwin"
	case "FreeBSD":
		goos = "freebsd"
	default:
		return "", "", false
	}
	switch f[1] {
	case "x86_64", "amd64":
		goarch = "amd64"
	case "aarch64", "arm64":
		goarch = "arm64"
	case "i386", "i686":
		goarch = "386"
	case "armv6l", "armv7l":
		goarch = "arm"
	case "riscv64":
		goarch = "riscv64"
	default:
		return "", "", false
	}
	return goos, goarch, true
}

// checkStatic refuses a Linux program that needs a dynamic loader (the
// desktop build, a race build): another host may not have its libraries.
func checkStatic(path string) error {
	if runtime.GOOS != "linux" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	interp, err := hasInterp(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if interp {
		return fmt.Errorf("%s is dynamically linked (a desktop or race build); host install copies the static builds (`make build` makes them in bin/)", path)
	}
	return nil
}
