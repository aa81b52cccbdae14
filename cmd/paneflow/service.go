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
	"github.com/paneflow-go/paneflow/ipc"
)

// serviceCommand is `paneflow service`, carried out by package autostart.
func serviceCommand() command {
	return command{name: "service", summary: serviceSummary, help: func() string { return serviceUsage }, run: runService}
}

const serviceUsage = `usage: paneflow service install|uninstall|status [--socket PATH]

Runs the Paneflow server as a per-user service that starts at login, so
agents keep running with no window open and a window attaches at once:
a systemd user unit on Linux ($XDG_CONFIG_HOME/systemd/user/paneflow.service),
a launchd agent on macOS (~/Library/LaunchAgents/dev.paneflow.server.plist),
a Task Scheduler logon task on Windows ("Paneflow server <your SID>", for
you only, no administrator needed; it runs paneflow-gui.exe serve when
that is installed beside this program, so no console window stays open).
The service runs this program with "serve".

  install    write the unit, agent or task (an older install of ours is
             updated) and enable it: it starts at each login, and now
             unless a server already answers on the socket (that server
             keeps its agents; the service runs from the next login).
             One of the same name that Paneflow did not write is left
             alone: exit 1. A failing systemctl, launchctl or schtasks
             is exit 1 too, quoted with its message.
  uninstall  disable it and remove it. A server it runs now keeps
             running (paneflow kill-server stops it). The user's own
             file or task is left alone: exit 1.
  status     say whether it is installed, what the service manager makes
             of it (enabled or disabled, loaded or not), whether a server
             answers, and the commands that start and stop it.

  --socket PATH  install: the socket the service's server listens on;
                 all three: where to look for a running server (default:
                 the usual socket).
`

func runService(ctx context.Context, inv *invocation, args []string) error {
	if len(args) == 0 {
		return usageErrorf("service: want install, uninstall or status\n%s", serviceUsage)
	}
	fs := flag.NewFlagSet("service "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "the socket the server listens on")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		return usageErrorf("service %s: bad arguments %q\n%s", args[0], args[1:], serviceUsage)
	}
	switch args[0] {
	case "install", "uninstall", "status":
	default:
		return usageErrorf("service: unknown command %q: want install, uninstall or status", args[0])
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
	home := inv.getenv("HOME")
	var user, logPath string
	if inv.goos == "windows" {
		home = inv.getenv("USERPROFILE")
		if user, err = serviceUser(); err != nil {
			return fmt.Errorf("service: %w", err)
		}
		// The task's server writes where a detached one does.
		if logPath, err = serverLogPath(inv.getenv, inv.goos); err != nil {
			return fmt.Errorf("service: %w", err)
		}
	}
	s, err := autostart.For(autostart.Options{Exe: serviceProgram(exe, inv.goos), Socket: *socket, Log: logPath, Home: home, ConfigHome: cfgHome,
		GOOS: inv.goos, UID: os.Getuid(), User: user, Run: inv.runProgram})
	if err != nil {
		return err
	}
	// The socket the service's server listens on, to tell whether a
	// server already answers there.
	listen := *socket
	if listen == "" {
		if listen, err = ipc.ServerSocketPath(inv.getenv); err != nil {
			return fmt.Errorf("service: %w", err)
		}
	}
	switch args[0] {
	case "install":
		changed, err := s.Install(ctx)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(inv.stdout, "installed %s\n", s.Where())
		} else {
			fmt.Fprintf(inv.stdout, "already installed: %s\n", s.Where())
		}
		running := ping(ctx, listen) == nil
		ran, err := s.Enable(ctx, !running)
		for _, c := range ran {
			fmt.Fprintf(inv.stdout, "ran: %s\n", c)
		}
		if err != nil {
			return fmt.Errorf("%w\nthe service is installed but not enabled; once that is fixed, run `paneflow service install` again", err)
		}
		if running {
			fmt.Fprintf(inv.stdout, "it starts at each login; a server already answers on %s and keeps running (the service runs from the next login, or after `paneflow kill-server`: %s)\n",
				listen, s.StartCommand())
		} else {
			fmt.Fprintf(inv.stdout, "it starts at each login, and was started now\n")
		}
	case "uninstall":
		removed, err := s.Uninstall(ctx)
		if err != nil {
			return err
		}
		if !removed {
			fmt.Fprintf(inv.stdout, "not installed: %s\n", s.Where())
			return nil
		}
		fmt.Fprintf(inv.stdout, "removed %s\n", s.Where())
		if ping(ctx, listen) == nil {
			fmt.Fprintf(inv.stdout, "the server on %s keeps running; `paneflow kill-server` stops it\n", listen)
		}
	case "status":
		ours, err := s.Installed(ctx)
		if err != nil && !errors.Is(err, autostart.ErrNotOurs) {
			return err
		}
		switch {
		case err != nil:
			fmt.Fprintf(inv.stdout, "not installed: %v\n", err)
		case ours:
			state, err := s.State(ctx)
			if err != nil {
				state = "unknown (" + err.Error() + ")"
			}
			fmt.Fprintf(inv.stdout, "installed: %s\nstate: %s\nstart: %s\nstop: %s\n", s.Where(), state, s.StartCommand(), s.StopCommand())
		default:
			fmt.Fprintf(inv.stdout, "not installed: %s\n", s.Where())
		}
		if ping(ctx, listen) == nil {
			fmt.Fprintf(inv.stdout, "a server answers on %s\n", listen)
		} else {
			fmt.Fprintf(inv.stdout, "no server answers on %s\n", listen)
		}
	}
	return nil
}
