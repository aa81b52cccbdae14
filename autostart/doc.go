// Package autostart installs and removes the per-user service that runs
// `paneflow serve` at login, so the server (and its agents) is there
// before any window and survives the window: a systemd user unit on
// Linux (paneflow.service in $XDG_CONFIG_HOME/systemd/user), a launchd
// agent on macOS (dev.paneflow.server.plist in ~/Library/LaunchAgents).
// `paneflow service install|uninstall|status` is its command.
//
// Files are written atomically (a temporary file renamed into place) and
// carry a marker line; a file at the same path without the marker is the
// user's own and is never replaced or removed.
//
// What the package does not do: it does not start, stop, enable or
// disable the service (it prints the systemctl or launchctl command that
// does, so nothing changes behind the user's back), and it has no
// Windows logon task yet ([ErrUnsupported]).
package autostart
