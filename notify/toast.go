package notify

import (
	"context"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode/utf16"
)

// Toast shows notifications as Windows toasts, through Windows
// PowerShell 5.1 and the WinRT ToastNotificationManager (Windows 10 and
// later; PowerShell 7 cannot load WinRT types). The script is a constant
// passed as -EncodedCommand; the notification's text reaches it only as
// toast XML in the environment variable [ToastEnv] ([ToastXML] escapes
// it), so no pane or agent text is ever part of a command line or of
// PowerShell source. The toast is shown as the Start menu's Paneflow
// (the installers' shortcut to paneflow-gui.exe, found with
// Get-StartApps) or, without it, as Windows PowerShell, whose app id is
// always registered (an unregistered one shows nothing). It is safe for
// concurrent use; the zero value runs the system's powershell.exe.
type Toast struct {
	// PowerShell is the program run; "" is
	// %SystemRoot%\System32\WindowsPowerShell\v1.0\powershell.exe.
	PowerShell string
}

// ToastEnv is the environment variable that carries the toast's XML to
// the script.
const ToastEnv = "PANEFLOW_TOAST_XML"

// Bounds of a toast's text, in runes (Windows shows about two lines of
// title and four of body; the rest is cut there anyway).
const (
	toastTitleMax = 256
	toastBodyMax  = 1024
)

// powershellAppID is Windows PowerShell's application user model id
// (FOLDERID_System's GUID, then the path below it).
const powershellAppID = `{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\WindowsPowerShell\v1.0\powershell.exe`

// toastScript shows the toast in $env:PANEFLOW_TOAST_XML. It holds no
// data of the notification's: TestToastScriptIsConstant checks it.
const toastScript = `$ErrorActionPreference = 'Stop'
$null = [Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime]
$null = [Windows.Data.Xml.Dom.XmlDocument, Windows.Data.Xml.Dom.XmlDocument, ContentType = WindowsRuntime]
$doc = New-Object Windows.Data.Xml.Dom.XmlDocument
$doc.LoadXml($env:` + ToastEnv + `)
$app = $null
try {
  $app = Get-StartApps | Where-Object { $_.AppID -like '*\paneflow-gui.exe' } | Select-Object -First 1 -ExpandProperty AppID
} catch { $app = $null }
if (-not $app) { $app = '` + powershellAppID + `' }
[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier($app).Show([Windows.UI.Notifications.ToastNotification]::new($doc))
`

// ToastXML returns the toast's XML: the generic template's two text
// lines, title and body, each escaped (characters XML cannot hold become
// U+FFFD) and cut to its bound.
func ToastXML(title, body string) string {
	var b strings.Builder
	b.WriteString(`<toast><visual><binding template="ToastGeneric"><text>`)
	xml.EscapeText(&b, []byte(cut(title, toastTitleMax)))
	b.WriteString(`</text><text>`)
	xml.EscapeText(&b, []byte(cut(body, toastBodyMax)))
	b.WriteString(`</text></binding></visual></toast>`)
	return b.String()
}

// cut is s cut to max runes, the last an ellipsis when cut.
func cut(s string, max int) string {
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// ToastArgs are powershell.exe's arguments: no profile, no prompt, and
// the constant script encoded as PowerShell wants (base64 of UTF-16LE).
func ToastArgs() []string {
	u := utf16.Encode([]rune(toastScript))
	b := make([]byte, 0, 2*len(u))
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	return []string{"-NoProfile", "-NonInteractive", "-WindowStyle", "Hidden", "-EncodedCommand", base64.StdEncoding.EncodeToString(b)}
}

// Notify runs PowerShell with no console window and waits for it; its
// message is the error when it fails.
func (t Toast) Notify(ctx context.Context, title, body string) error {
	ps := t.PowerShell
	if ps == "" {
		root := os.Getenv("SystemRoot")
		if root == "" {
			root = `C:\Windows`
		}
		ps = root + `\System32\WindowsPowerShell\v1.0\powershell.exe`
	}
	cmd := exec.CommandContext(ctx, ps, ToastArgs()...)
	cmd.Env = append(os.Environ(), ToastEnv+"="+ToastXML(title, body))
	hideConsole(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("notify: powershell toast: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
