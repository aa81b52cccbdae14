//go:build !client

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/paneflow-go/paneflow/autostart"
)

// serviceCommand is `paneflow service`, carried out by package autostart.
func serviceCommand() command {
	return command{name: "service", summary: serviceSummary, help: func() string { return serviceUsage }, run: runService}
}

const serviceUsage = `usage: paneflow service install [--socket PATH] | uninstall | status

Runs the Paneflow server as a per-user service that starts at login, so
agents keep running with no window open and a window attaches at once:
a systemd user unit on Linux ($XDG_CONFIG_HOME/systemd/user/paneflow.service),
a launchd agent on macOS (~/Library/LaunchAgents/dev.paneflow.server.plist).
The service runs this program with "serve".

  install    write the file (atomically; an older install of ours is
             updated) and print the command that starts the service now
             and at each login. A file of the same name that Paneflow did
             not write is left alone: exit 1.
  uninstall  remove our file (stop the service first with the command
             "status" prints). The user's own file is left alone: exit 1.
  status     say whether it is installed, and the commands to start and
             stop it.

Nothing is started or stopped by these commands themselves.
`

func runService(_ context.Context, inv *invocation, args []string) error {
	if len(args) == 0 {
		return usageErrorf("service: want install, uninstall or status\n%s", serviceUsage)
	}
	fs := flag.NewFlagSet("service "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "the socket the server listens on")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		return usageErrorf("service %s: bad arguments %q\n%s", args[0], args[1:], serviceUsage)
	}
	if *socket != "" && args[0] != "install" {
		return usageErrorf("service %s: --socket goes with install only", args[0])
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("service: this program's path: %w", err)
	}
	if *socket != "" {
		if *socket, err = filepath.Abs(*socket); err != nil {
			return fmt.Errorf("service: %w", err)
		}
	}
	cfgHome := inv.getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(cfgHome) {
		cfgHome = "" // the XDG spec: a relative path is ignored
	}
	s, err := autostart.For(autostart.Options{Exe: exe, Socket: *socket, Home: inv.getenv("HOME"), ConfigHome: cfgHome, GOOS: inv.goos})
	if err != nil {
		return err
	}
	switch args[0] {
	case "install":
		changed, err := s.Install()
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(inv.stdout, "installed %s\n", s.Path)
		} else {
			fmt.Fprintf(inv.stdout, "already installed: %s\n", s.Path)
		}
		fmt.Fprintf(inv.stdout, "to start it now and at each login: %s\n", s.Enable)
	case "uninstall":
		removed, err := s.Uninstall()
		if err != nil {
			return err
		}
		if !removed {
			fmt.Fprintf(inv.stdout, "not installed: %s\n", s.Path)
			return nil
		}
		fmt.Fprintf(inv.stdout, "removed %s\n", s.Path)
	case "status":
		ours, err := s.Installed()
		if err != nil && !errors.Is(err, autostart.ErrNotOurs) {
			return err
		}
		switch {
		case err != nil:
			fmt.Fprintf(inv.stdout, "not installed: %v\n", err)
		case ours:
			fmt.Fprintf(inv.stdout, "installed: %s\nstart: %s\nstop: %s\n", s.Path, s.Enable, s.Disable)
		default:
			fmt.Fprintf(inv.stdout, "not installed: %s\n", s.Path)
		}
	default:
		return usageErrorf("service: unknown command %q: want install, uninstall or status", args[0])
	}
	return nil
}
