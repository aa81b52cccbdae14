//go:build !windows && !darwin

package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// DBus is the freedesktop.org Notifications service
// (org.freedesktop.Notifications, what notification daemons and desktop
// shells implement, and what Fyne's window uses on these systems) on a
// session bus. The zero value uses the user's session bus
// ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus; never an
// autolaunched one); each Notify connects, calls and
// disconnects (notifications are rare), so it is safe for concurrent use
// and keeps nothing open between them.
type DBus struct {
	// Address is the bus's address; "" is the session bus.
	Address string
}

// sessionBusAddress is the user's session bus: $DBUS_SESSION_BUS_ADDRESS,
// else $XDG_RUNTIME_DIR/bus when that socket exists (systemd's user bus).
// Unlike godbus's own lookup it never autolaunches a bus (dbus-launch
// would leave a daemon behind a server that has no desktop).
func sessionBusAddress(getenv func(string) string) (string, error) {
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a, nil
	}
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" {
		p := filepath.Join(dir, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, nil
		}
	}
	return "", errors.New("notify: no session bus (neither $DBUS_SESSION_BUS_ADDRESS nor $XDG_RUNTIME_DIR/bus)")
}

// Desktop returns this system's notifier: [DBus] on the session bus.
func Desktop() (Notifier, error) { return DBus{}, nil }

// Notify calls org.freedesktop.Notifications.Notify with title as its
// summary and body as its body, no actions and the server's default
// timeout.
func (d DBus) Notify(ctx context.Context, title, body string) error {
	addr := d.Address
	if addr == "" {
		var err error
		if addr, err = sessionBusAddress(os.Getenv); err != nil {
			return err
		}
	}
	conn, err := dbus.Dial(addr, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("notify: session bus: %w", err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return fmt.Errorf("notify: session bus: %w", err)
	}
	if err := conn.Hello(); err != nil {
		return fmt.Errorf("notify: session bus: %w", err)
	}
	obj := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
	call := obj.CallWithContext(ctx, "org.freedesktop.Notifications.Notify", 0,
		appName, uint32(0), "", title, body, []string{}, map[string]dbus.Variant{}, int32(-1))
	if call.Err != nil {
		return fmt.Errorf("notify: org.freedesktop.Notifications: %w", call.Err)
	}
	return nil
}
