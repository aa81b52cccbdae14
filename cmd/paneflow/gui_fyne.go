//go:build !nogui && !client

package main

import (
	"context"
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/paneflow-go/paneflow/app"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/remote"
	"github.com/paneflow-go/paneflow/session"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/version"
)

// runGUI opens the desktop app: the headless core with a window over it.
// It returns when the app quits (the window closed, the quit action, or
// SIGINT/SIGTERM through ctx).
func runGUI(ctx context.Context, inv *invocation, args []string) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	g, err := parseGUIArgs(args)
	if err != nil {
		return err
	}
	if !hasDisplay(inv.getenv, inv.goos) {
		fmt.Fprintln(inv.stderr, noDisplayMessage)
		return &exitError{Code: exitUsage}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(inv.stderr, format+"\n", args...) }
	cfg := config.Default()
	cfgPath := ""
	var warns []string
	if dir, err := config.Dir(inv.getenv, inv.goos); err != nil {
		logf("paneflow: %v; using the default configuration", err)
	} else {
		cfgPath = filepath.Join(dir, config.FileName)
		cfg, warns = config.Load(cfgPath) // the window shows the warnings
	}
	sessionPath, err := session.Path(inv.getenv, inv.goos)
	if err != nil {
		logf("paneflow: session: %v; the session will not be kept", err)
		sessionPath = ""
	}
	var backend app.Backend
	if g.attach {
		// The server owns the panes and the session: the window restores
		// and saves none.
		sessionPath = ""
		o := app.AttachOptions{Path: g.socket}
		if g.host != "" {
			// Another host's server over the user's ssh: one ssh for the
			// window (dialed again at the next call if it drops).
			h, err := remote.ParseHost(g.host)
			if err != nil {
				return &exitError{Code: exitUsage, Err: err}
			}
			rd := &remote.Redialer{Host: h, Env: remote.Env{Getenv: inv.getenv}}
			defer rd.Close()
			o.Path, o.Dial = h.String(), rd.Open
		} else if o.Path == "" {
			if o.Path, err = ipc.ClientSocketPath(inv.getenv); err != nil {
				return err
			}
		}
		if backend, err = app.Attach(ctx, o); err != nil {
			if re := remote.AsError(err); re != nil {
				err = re
			}
			return fmt.Errorf("attach to %s: %w", o.Path, err)
		}
	} else {
		// A processor beyond what pane output may occupy keeps requests
		// (and the window) responsive while many panes flood output.
		terminal.SpareProcessor()
		c, err := core.New(core.Options{
			SocketPath: g.socket, Getenv: inv.getenv, Logf: logf, NoInitialWorkspace: true, Config: &cfg,
		})
		if err != nil {
			return err
		}
		backend = app.NewLocal(c)
	}
	// The app calls Fyne only on its goroutine (shell.post, fyne.Do), so
	// it declares the fyne.Do migration done: otherwise Fyne checks the
	// goroutine on every canvas refresh by formatting a stack trace
	// (runtime.Stack), which was a fifth of the process's CPU with the
	// agents overview open during a flood (perf, issue 19).
	fyneapp.SetMetadata(fyne.AppMetadata{
		ID: app.ID, Version: version.Version, Build: 1,
		Migrations: map[string]bool{"fyneDo": true},
	})
	a := fyneapp.NewWithID(app.ID)
	return app.Run(a, app.Options{
		Backend: backend, Config: cfg, ConfigWarnings: warns, ConfigPath: cfgPath, SessionPath: sessionPath, Context: ctx, Logf: logf, Events: eventWaiter(),
	})
}
