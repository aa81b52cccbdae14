package shim

import (
	"path/filepath"
	"testing"
)

// TestProjectLeftover: only a project hook file holding nothing but what
// a launch wrote counts as a leftover.
func TestProjectLeftover(t *testing.T) {
	l := launchFor(t, "gemini")
	Inject(l) // never cleaned up
	gemini := filepath.Join(l.Dir, ".gemini", "settings.json")
	plugin := filepath.Join(l.Dir, ".opencode", "plugins", opencodePluginName)
	writeFile(t, plugin, OpencodePlugin("/opt/pf/paneflow-ai-hook"))
	other := filepath.Join(l.Dir, "settings.json")
	writeFile(t, other, readFile(t, gemini)) // ours, but not where a launch writes
	for path, want := range map[string]bool{gemini: true, plugin: true, other: false, filepath.Join(l.Dir, "missing.json"): false} {
		if got := ProjectLeftover(path); got != want {
			t.Errorf("ProjectLeftover(%s) = %v, want %v", path, got, want)
		}
	}
	writeFile(t, plugin, OpencodePlugin("/opt/pf/paneflow-ai-hook")+"// mine\n")
	data := readFile(t, gemini)
	writeFile(t, gemini, `{"model":"x",`+data[1:])
	for _, path := range []string{gemini, plugin} {
		if ProjectLeftover(path) {
			t.Errorf("ProjectLeftover(%s) with the user's content = true", path)
		}
	}
}
