//go:build !windows && !darwin

package notify

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// sessionBus starts a private dbus-daemon for the test and returns its
// address; the test is skipped where dbus-daemon is not installed.
func sessionBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon is not installed: the D-Bus notifier cannot be tested here")
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:dir="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// notifications is a fake org.freedesktop.Notifications service.
type notifications struct{ got chan []any }

func (n notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.got <- []any{app, replaces, icon, summary, body, len(actions), len(hints), timeout}
	return 7, nil
}

// TestDBusNotify: the notifier calls org.freedesktop.Notifications.Notify
// on the bus with the title as the summary and the body, as a
// notification daemon receives it; with no daemon on the bus it says so.
func TestDBusNotify(t *testing.T) {
	addr := sessionBus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := (DBus{Address: addr}).Notify(ctx, "t", "b"); err == nil || !strings.Contains(err.Error(), "org.freedesktop.Notifications") {
		t.Errorf("with no notification service: %v, want an error naming it", err)
	}

	conn, err := dbus.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	n := notifications{got: make(chan []any, 1)}
	if err := conn.Export(n, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("request name: %v %v", r, err)
	}
	if err := (DBus{Address: addr}).Notify(ctx, "Claude Code finished in api", "All tests pass"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-n.got:
		want := []any{"Paneflow", uint32(0), "", "Claude Code finished in api", "All tests pass", 0, 0, int32(-1)}
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("argument %d: got %#v, want %#v", i, got[i], want[i])
			}
		}
	default:
		t.Fatal("Notify returned before the service got the call")
	}
}

// TestSessionBusAddress: the environment's address first, then the
// user bus socket in the runtime directory, else an error (no autolaunch).
func TestSessionBusAddress(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_RUNTIME_DIR": dir}
	getenv := func(k string) string { return env[k] }
	if a, err := sessionBusAddress(getenv); err == nil {
		t.Errorf("no bus: got %q, want an error", a)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if a, err := sessionBusAddress(getenv); err != nil || a != "unix:path="+filepath.Join(dir, "bus") {
		t.Errorf("user bus: got %q, %v", a, err)
	}
	env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/x"
	if a, err := sessionBusAddress(getenv); err != nil || a != "unix:path=/x" {
		t.Errorf("from the environment: got %q, %v", a, err)
	}
}
