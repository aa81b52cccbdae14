package notify

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Osascript shows notifications with macOS's osascript and AppleScript's
// `display notification`; the title and body are passed as arguments,
// never spliced into the script. It is safe for concurrent use.
type Osascript struct{}

// Desktop returns this system's notifier: [Osascript].
func Desktop() (Notifier, error) { return Osascript{}, nil }

// Notify runs osascript and waits for it.
func (Osascript) Notify(ctx context.Context, title, body string) error {
	cmd := exec.CommandContext(ctx, "osascript",
		"-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run",
		title, body)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("notify: osascript: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
