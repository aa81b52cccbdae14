//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNoVerbHandsOverToTheDesktopApp checks that the static `paneflow`
// client with no verb runs the desktop app's binary installed next to it
// (through a symlink too), passing its arguments and exit code, and
// explains itself when there is none; and the same for serve and the
// server's binary.
func TestNoVerbHandsOverToTheDesktopApp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pf := filepath.Join(dir, "paneflow")
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	writeExecutable(t, pf, raw)
	run := func(path string, args ...string) (string, string, int) {
		t.Helper()
		var out, errb bytes.Buffer
		cmd := exec.Command(path, args...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=en_US.UTF-8", "HOME=" + dir}
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return out.String(), errb.String(), ee.ExitCode()
		case err != nil:
			t.Fatal(err)
		}
		return out.String(), errb.String(), 0
	}

	// No desktop app installed: the message, exit 2.
	_, stderr, code := run(pf, "--socket", filepath.Join(dir, "s.sock"))
	if code != 2 || !strings.Contains(stderr, "paneflow serve") {
		t.Fatalf("without paneflow-gui: exit %d, stderr %q; want 2 and a pointer to paneflow serve", code, stderr)
	}

	// A stand-in desktop app: it gets the arguments, its exit code comes back.
	gui := "#!/bin/sh\necho \"GUI $*\"\nexit 7\n"
	writeExecutable(t, filepath.Join(dir, "paneflow-gui"), []byte(gui))
	sock := filepath.Join(dir, "s.sock")
	stdout, stderr, code := run(pf, "--socket", sock)
	if code != 7 || strings.TrimSpace(stdout) != "GUI --socket "+sock {
		t.Fatalf("hand-off: exit %d, stdout %q, stderr %q; want 7 and the arguments passed on", code, stdout, stderr)
	}

	// Through a symlink elsewhere (how `paneflow` is often put on PATH).
	link := filepath.Join(t.TempDir(), "paneflow")
	if err := os.Symlink(pf, link); err != nil {
		t.Fatal(err)
	}
	if stdout, _, code := run(link); code != 7 || strings.TrimSpace(stdout) != "GUI" {
		t.Errorf("hand-off through a symlink: exit %d, stdout %q", code, stdout)
	}

	// A verb never hands over.
	if stdout, _, code := run(pf, "version"); code != 0 || strings.Contains(stdout, "GUI") {
		t.Errorf("paneflow version: exit %d, stdout %q; want the CLI's own answer", code, stdout)
	}

	// The client build hands serve over to paneflow-server, and says so
	// when there is none. (The GUI stand-in above does not speak serve;
	// paneflow-server is looked for first.)
	if err := os.Remove(filepath.Join(dir, "paneflow-gui")); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(pf, "serve", "--socket", sock); code != 1 || !strings.Contains(stderr, "paneflow-server") {
		t.Errorf("serve without paneflow-server: exit %d, stderr %q; want 1 and the missing server named", code, stderr)
	}
	server := "#!/bin/sh\necho \"SERVER $*\"\nexit 5\n"
	writeExecutable(t, filepath.Join(dir, "paneflow-server"), []byte(server))
	if stdout, stderr, code := run(link, "serve", "--socket", sock); code != 5 || strings.TrimSpace(stdout) != "SERVER serve --socket "+sock {
		t.Errorf("serve hand-off: exit %d, stdout %q, stderr %q; want 5 and the arguments passed on", code, stdout, stderr)
	}
}

// writeExecutable writes an executable file while no goroutine of this
// process can fork. Parallel tests fork all the time, and a child forked
// while the file is open for writing holds that descriptor until it execs
// (golang.org/issue/22315): running the file meanwhile fails with "text
// file busy", here or in the paneflow that hands over to it. A fork takes
// syscall.ForkLock for writing, so holding it for reading keeps them out.
func writeExecutable(t *testing.T, path string, data []byte) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, data, 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}
