// Package autostart installs and removes the per-user service that runs
// `paneflow serve` at login, so the server (and its agents) is there
// before any window and survives the window: a systemd user unit on
// Linux (paneflow.service in $XDG_CONFIG_HOME/systemd/user), a launchd
// agent on macOS (dev.paneflow.server.plist in ~/Library/LaunchAgents), a
// Task Scheduler logon task on Windows ("Paneflow server <SID>", created
// with `schtasks /Create /XML`: a logon trigger for this user only, which
// needs no administrator, no time limit, not stopped on battery).
// `paneflow service install|uninstall|status` is its command.
//
// Files are written atomically (a temporary file renamed into place) and
// carry a marker line, as the task's description does; a file or task at
// the same place without the marker is the user's own and is never
// replaced or removed ([ErrNotOurs]).
//
// [Service.Install] writes; [Service.Enable] makes the service start at
// each login and, when asked, now (systemctl --user enable and start,
// launchctl bootstrap, schtasks /Run); [Service.Uninstall] disables and
// removes. The service manager's commands run through a [Runner], so
// tests see the exact argv.
//
// What the package does not do: it never stops a running server (after
// an uninstall the server keeps its agents until `paneflow kill-server`),
// and it does not find out whether a server already runs: the caller says
// whether to start one now.
package autostart
