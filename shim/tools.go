package shim

import (
	"path/filepath"
	"slices"
	"strings"
)

// Tools are the agent binary names the shim stands in for (spec
// conductor.md §1), in the conductor's display order. Each is also the
// wire "tool" id the agent's frames carry.
var Tools = []string{
	"claude", "codex", "opencode", "pi", "hermes", "grok", "amp", "cursor-agent",
	"gemini", "kiro-cli", "agy", "copilot", "codebuddy", "droid", "qodercli", "openclaw",
}

// Program names of the two binaries the shim directory holds, without the
// Windows ".exe".
const (
	ShimBinary = "paneflow-shim"
	HookBinary = "paneflow-ai-hook"
)

// markerFile is the file that marks a directory as a shim directory. A
// shim skips every PATH entry holding one when it looks for the real
// binary, so shims of another version never run each other.
const markerFile = ".paneflow-shim-dir"

// IsTool reports whether name is one of [Tools].
func IsTool(name string) bool { return slices.Contains(Tools, name) }

// ToolOf returns the tool a program path names: its base name (Unix or
// Windows separators), without a ".exe" suffix (any case), when that is
// one of [Tools].
func ToolOf(path string) (string, bool) {
	base := path
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if strings.HasSuffix(strings.ToLower(base), ".exe") {
		base = base[:len(base)-4]
	}
	if IsTool(base) {
		return base, true
	}
	return "", false
}

// exeName returns name with the executable suffix of goos.
func exeName(name, goos string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

// canonicalDir returns dir made absolute and with symlinks resolved, or
// just cleaned when it cannot be resolved.
func canonicalDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}
