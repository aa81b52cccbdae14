//go:build !windows

package core

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// TestWebFromConfig: the [web] table serves the web client when no --web
// was given; one that cannot be served (a non-loopback address without
// TLS, a port already taken) is logged and the server runs without it.
func TestWebFromConfig(t *testing.T) {
	state := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return filepath.Join(state, "state")
		}
		return ""
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct {
		name, listen string
		serves       bool
		log          string
	}{
		{"loopback", "127.0.0.1:0", true, "web client on http://127.0.0.1:"},
		{"not loopback without TLS", "192.0.2.1:8714", false, "web.listen"},
		{"a taken port", taken.Addr().String(), false, "no web client"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var logs strings.Builder
			cfg := config.Default()
			cfg.DefaultShell = "/bin/sh"
			cfg.Web.Listen = c.listen
			_, cl, _ := startCoreStop(t, func(o *Options) {
				o.Config, o.Getenv = &cfg, getenv
				o.Logf = func(f string, a ...any) {
					mu.Lock()
					defer mu.Unlock()
					fmt.Fprintf(&logs, f+"\n", a...)
				}
			})
			res, err := proto.Client{Caller: cl}.WebList(context.Background())
			var ie *ipc.Error
			switch {
			case c.serves && (err != nil || !strings.HasPrefix(res.URL, "http://127.0.0.1:")):
				t.Errorf("web.list = %+v, %v; want the web client's address", res, err)
			case !c.serves && (!errors.As(err, &ie) || ie.Message != proto.MsgWebOff):
				t.Errorf("web.list = %+v, %v; want %q", res, err, proto.MsgWebOff)
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(logs.String(), c.log) {
				t.Errorf("log lacks %q:\n%s", c.log, logs.String())
			}
		})
	}
}
