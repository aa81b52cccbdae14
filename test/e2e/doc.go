// Package e2e runs the built paneflow binary end to end: a headless server
// (`paneflow serve`) on a temporary socket, driven by the CLI verbs and by
// raw socket clients, as a user or script would.
package e2e
