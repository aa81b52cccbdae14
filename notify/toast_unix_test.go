//go:build !windows

package notify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToastNotify runs Toast against a fake powershell.exe (a shell
// script recording its arguments and environment): the arguments are
// exactly ToastArgs, with none of the notification's text; the text
// arrives as toast XML in PANEFLOW_TOAST_XML; a failing powershell is an
// error quoting what it printed.
func TestToastNotify(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "powershell.exe")
	script := `#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done >"$0.args"
printf '%s' "$PANEFLOW_TOAST_XML" >"$0.xml"
if [ -n "$FAIL_TOAST" ]; then echo "Exception calling LoadXml" >&2; exit 1; fi
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, h := range hostile[:3] {
		if err := (Toast{PowerShell: fake}).Notify(ctx, h.title, h.body); err != nil {
			t.Fatal(err)
		}
		args, _ := os.ReadFile(fake + ".args")
		if want := strings.Join(ToastArgs(), "\n") + "\n"; string(args) != want {
			t.Errorf("powershell's arguments:\n%s\nwant:\n%s", args, want)
		}
		got, _ := os.ReadFile(fake + ".xml")
		if want := ToastXML(h.title, h.body); string(got) != want {
			t.Errorf("%s = %s, want %s", ToastEnv, got, want)
		}
	}
	t.Setenv("FAIL_TOAST", "1")
	err := (Toast{PowerShell: fake}).Notify(ctx, "t", "b")
	if err == nil || !strings.Contains(err.Error(), "Exception calling LoadXml") {
		t.Errorf("a failing powershell: %v", err)
	}
	if err := (Toast{PowerShell: filepath.Join(dir, "none.exe")}).Notify(ctx, "t", "b"); err == nil {
		t.Error("a missing powershell succeeded")
	}
}
