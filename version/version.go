// Package version reports which Paneflow build is running.
//
// It is a leaf package: it imports only the standard library, so every binary
// (the app, the MCP bridge, the hook) can print the same version without
// linking anything else of ours.
package version

import "runtime/debug"

// Version is the release version of this build, set at link time:
//
//	go build -ldflags "-X github.com/paneflow-go/paneflow/version.Version=v1.2.3" ./cmd/...
//
// The Makefile sets it from `git describe`. Empty means it was not set, and
// [String] falls back to what the go command recorded. Treat it as read-only
// at run time.
var Version string

// String returns the version to show users: [Version] when it was set at link
// time, else the main module version the go command recorded in the binary (a
// tag or pseudo-version when built inside a git checkout, or the version given
// to `go install module@version`), else "dev".
func String() string {
	info, ok := debug.ReadBuildInfo()
	return resolve(Version, info, ok)
}

// resolve picks the version string from the link-time value and the build
// information; it is separate from [String] so tests can feed it both.
func resolve(linked string, info *debug.BuildInfo, ok bool) string {
	if linked != "" {
		return linked
	}
	if ok && info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
