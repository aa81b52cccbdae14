package notify

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestToastScriptParses: Windows PowerShell's own parser finds no error
// in the toast script (given through the environment, like the toast).
func TestToastScriptParses(t *testing.T) {
	ps := os.Getenv("SystemRoot") + `\System32\WindowsPowerShell\v1.0\powershell.exe`
	if _, err := os.Stat(ps); err != nil {
		t.Skipf("no Windows PowerShell: %v", err)
	}
	check := `$errs = $null; $null = [System.Management.Automation.Language.Parser]::ParseInput($env:PANEFLOW_TEST_SCRIPT, [ref]$null, [ref]$errs); if ($errs) { $errs | ForEach-Object { $_.ToString() }; exit 1 }`
	cmd := exec.Command(ps, "-NoProfile", "-NonInteractive", "-Command", check)
	cmd.Env = append(os.Environ(), "PANEFLOW_TEST_SCRIPT="+toastScript)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("PowerShell's parser: %v\n%s", err, out)
	}
}

// TestToastShows shows a real toast with hostile text; it is on the
// screen of whoever runs it, so it runs only with PANEFLOW_TEST_TOAST=1.
func TestToastShows(t *testing.T) {
	if os.Getenv("PANEFLOW_TEST_TOAST") != "1" {
		t.Skip("set PANEFLOW_TEST_TOAST=1 to show a real toast")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Desktop()
	if err != nil {
		t.Fatal(err)
	}
	h := hostile[0]
	if err := n.Notify(ctx, h.title, h.body+" "+strings.Repeat("x", 10)); err != nil {
		t.Fatal(err)
	}
}
