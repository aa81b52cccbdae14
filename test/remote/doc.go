// Package remote tests `paneflow --host` end to end (issue 30): a real
// sshd on loopback (test/internal/sshdtest) whose sessions reach a
// separate `paneflow serve` (the "remote" host: its own HOME, XDG
// directories and socket), the real ssh client with a test ssh_config, and
// the built binaries: every CLI verb through --host, up and flow run on
// the host, the errors for a host without paneflow or with another
// version, `paneflow host install`, and paneflow-mcp --host.
package remote
