//go:build !nogui && !client

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/paneflow-go/paneflow/app"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/internal/clocale"
	"github.com/paneflow-go/paneflow/internal/userdir"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/remote"
	"github.com/paneflow-go/paneflow/session"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/version"
)

// init gives back the LANGUAGE variable that clocale set for Fyne's
// initialisation (LANG=C.UTF-8), before anything reads the environment.
func init() { clocale.Restore() }

// runGUI opens the desktop app: a window attached to the user's server,
// started first when none answers (or, --embedded, the core in-process
// with the window over it). It returns when the app quits (the window
// closed, the quit action, or SIGINT/SIGTERM through ctx).
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
	var backend app.Backend
	var restart func(context.Context) error
	var notices []string
	// The window keeps a session file only when it hosts the panes; a
	// server keeps its own.
	sessionPath := ""
	switch {
	case g.host != "":
		// Another host's server over the user's ssh: one ssh for the
		// window (dialed again at the next call if it drops). Attach
		// only: nothing is started there, and a lost server is not
		// restarted from here.
		o := app.AttachOptions{}
		h, err := remote.ParseHost(g.host)
		if err != nil {
			return &exitError{Code: exitUsage, Err: err}
		}
		rd := &remote.Redialer{Host: h, Env: remote.Env{Getenv: inv.getenv}}
		defer rd.Close()
		o.Path, o.Dial = h.String(), rd.Open
		if backend, err = app.Attach(ctx, o); err != nil {
			if re := remote.AsError(err); re != nil {
				err = re
			}
			return fmt.Errorf("attach to %s: %w", o.Path, err)
		}
	case g.embedded:
		if sessionPath, err = session.Path(inv.getenv, inv.goos); err != nil {
			logf("paneflow: session: %v; the session will not be kept", err)
			sessionPath = ""
		}
		// A processor beyond what pane output may occupy keeps requests
		// (and the window) responsive while many panes flood output.
		terminal.SpareProcessor()
		c, err := core.New(core.Options{
			SocketPath: g.socket, Getenv: inv.getenv, Logf: logf, NoInitialWorkspace: true, Config: &cfg,
		})
		if err != nil {
			return err
		}
		// system.shutdown (paneflow kill-server) quits the app, which
		// then shuts the core down.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-c.Stopping():
				cancel()
			case <-ctx.Done():
			}
		}()
		backend = app.NewLocal(c)
	default:
		path := g.socket
		if path == "" {
			if path, err = ipc.ClientSocketPath(inv.getenv); err != nil {
				return err
			}
		}
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		find := findServer{Socket: path, Exe: exe, Getenv: inv.getenv, GOOS: inv.goos}
		restart = func(ctx context.Context) error {
			found, err := find.run(ctx)
			if err == nil && found.Started {
				logf("paneflow: started the server (pid %d) on %s; its log: %s", found.PID, path, found.Log)
			}
			return err
		}
		if !g.attach {
			if err := restart(ctx); err != nil {
				return err
			}
		}
		if backend, err = app.Attach(ctx, app.AttachOptions{Path: path}); err != nil {
			return fmt.Errorf("attach to %s: %w", path, err)
		}
		// A server started by an earlier build (make run after a rebuild)
		// goes on running that build's code until it is stopped.
		if id, err := identify(ctx, path); err == nil && id.Version != version.String() {
			msg := fmt.Sprintf("The server on %s runs Paneflow %s, this window %s: quit with \"Stop everything\" "+
				"(or run `paneflow kill-server`) and open the window again to run this version's server; its session is kept.",
				path, id.Version, version.String())
			logf("paneflow: %s", msg)
			notices = append(notices, msg)
		}
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
	var hosts app.HostConnector
	if !g.embedded {
		// The config's other hosts, and those added in the window, over
		// the user's ssh (an embedded window is the tests' baseline).
		hosts = app.SSHHosts(inv.getenv)
	}
	hintPath := ""
	if base, err := userdir.Base(userdir.State, inv.getenv, inv.goos); err == nil {
		hintPath = filepath.Join(base, "paneflow", app.HintFileName)
	}
	a, waitNotifications := guiApp(fyneapp.NewWithID(app.ID), logf)
	defer waitNotifications()
	return app.Run(a, app.Options{
		Backend: backend, Config: cfg, ConfigWarnings: warns, ConfigPath: cfgPath, SessionPath: sessionPath, Context: ctx, Logf: logf, Events: eventWaiter(),
		RestartServer: restart, Notices: notices, Hosts: hosts, HintPath: hintPath,
	})
}
