//go:build nogui || client

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// guiBinary is the desktop app's binary, installed next to the nogui
// `paneflow`: the static CLI binary starts in about a millisecond, while a
// cgo binary linking OpenGL takes over ten on every CLI call, so the window
// lives in its own binary and `paneflow` with no verb hands over to it.
const guiBinary = "paneflow-gui"

// runGUI hands over to the desktop app's binary next to this one (the
// process is replaced on Unix; on Windows it runs and its exit code is
// passed on). Without one it explains that this binary has no window.
func runGUI(_ context.Context, inv *invocation, args []string) error {
	if _, err := parseGUIArgs(args); err != nil {
		return err
	}
	if path, ok := sibling(guiBinary, inv.goos); ok {
		code, err := handOff(path, args, os.Environ())
		if err != nil {
			return fmt.Errorf("starting the desktop app %s: %w", path, err)
		}
		if code != 0 {
			return &exitError{Code: code}
		}
		return nil
	}
	fmt.Fprintln(inv.stderr, noGUIMessage)
	return &exitError{Code: exitUsage}
}

// sibling finds the program name (the desktop app's binary, or the
// server's for the client build) in this executable's directory (symlinks
// resolved, so a `paneflow` linked into PATH still finds it).
func sibling(name, goos string) (string, bool) {
	self, err := os.Executable()
	if err != nil {
		return "", false
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	if goos == "windows" || runtime.GOOS == "windows" {
		name += ".exe"
	}
	path := filepath.Join(filepath.Dir(self), name)
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return "", false
	}
	return path, true
}
