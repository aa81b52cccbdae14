//go:build unix

package ipc_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
)

func TestSocketPath(t *testing.T) {
	long := "/" + strings.Repeat("d", ipc.MaxSocketPath) // any path under it is too long
	cacheRun := "/home/u/.cache/run/paneflow/paneflow.sock"
	xdgCacheRun := "/xdg/cache/run/paneflow/paneflow.sock"
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		cacheRun = "/home/u/Library/Caches/run/paneflow/paneflow.sock"
		xdgCacheRun = cacheRun // macOS ignores XDG_CACHE_HOME
	}
	tests := []struct {
		name       string
		env        map[string]string
		wantServer string // "" with wantServerErr
		wantClient string
		serverErr  string // substring of the server's error
	}{
		{
			name:       "absolute override wins",
			env:        map[string]string{"PANEFLOW_SOCKET_PATH": "/custom/pf.sock", "XDG_RUNTIME_DIR": "/run/user/1000", "TMPDIR": "/tmp"},
			wantServer: "/custom/pf.sock", wantClient: "/custom/pf.sock",
		},
		{
			name:       "relative override is ignored",
			env:        map[string]string{"PANEFLOW_SOCKET_PATH": "rel/pf.sock", "XDG_RUNTIME_DIR": "/run/user/1000"},
			wantServer: "/run/user/1000/paneflow/paneflow.sock", wantClient: "/run/user/1000/paneflow/paneflow.sock",
		},
		{
			name:       "XDG_RUNTIME_DIR",
			env:        map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "TMPDIR": "/tmp", "HOME": "/home/u"},
			wantServer: "/run/user/1000/paneflow/paneflow.sock", wantClient: "/run/user/1000/paneflow/paneflow.sock",
		},
		{
			name:       "TMPDIR",
			env:        map[string]string{"TMPDIR": "/var/folders/xy/T/", "HOME": "/home/u"},
			wantServer: "/var/folders/xy/T/paneflow/paneflow.sock", wantClient: "/var/folders/xy/T/paneflow/paneflow.sock",
		},
		{
			name:       "relative XDG_RUNTIME_DIR is ignored",
			env:        map[string]string{"XDG_RUNTIME_DIR": "run", "TMPDIR": "/tmp"},
			wantServer: "/tmp/paneflow/paneflow.sock", wantClient: "/tmp/paneflow/paneflow.sock",
		},
		{
			name:       "cache dir from HOME",
			env:        map[string]string{"HOME": "/home/u"},
			wantServer: cacheRun, wantClient: cacheRun,
		},
		{
			name:       "cache dir from XDG_CACHE_HOME",
			env:        map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/xdg/cache"},
			wantServer: xdgCacheRun, wantClient: xdgCacheRun,
		},
		{
			name:      "nothing resolvable",
			env:       map[string]string{},
			serverErr: "no socket path",
		},
		{
			name:       "too long for the server, fine for the client",
			env:        map[string]string{"XDG_RUNTIME_DIR": long},
			wantClient: long + "/paneflow/paneflow.sock",
			serverErr:  "must be under 104",
		},
		{
			name:       "long override is refused too",
			env:        map[string]string{"PANEFLOW_SOCKET_PATH": long + ".sock"},
			wantClient: long + ".sock",
			serverErr:  "must be under 104",
		},
		{
			name:       "103 bytes is allowed",
			env:        map[string]string{"PANEFLOW_SOCKET_PATH": "/" + strings.Repeat("s", 102)},
			wantServer: "/" + strings.Repeat("s", 102), wantClient: "/" + strings.Repeat("s", 102),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			got, err := ipc.ServerSocketPath(getenv)
			switch {
			case tt.serverErr != "" && (err == nil || !strings.Contains(err.Error(), tt.serverErr)):
				t.Errorf("ServerSocketPath = %q, %v; want an error containing %q", got, err, tt.serverErr)
			case tt.serverErr == "" && (err != nil || got != tt.wantServer):
				t.Errorf("ServerSocketPath = %q, %v; want %q", got, err, tt.wantServer)
			}
			got, err = ipc.ClientSocketPath(getenv)
			switch {
			case tt.wantClient == "" && !errors.Is(err, ipc.ErrNoSocketPath):
				t.Errorf("ClientSocketPath = %q, %v; want %v", got, err, ipc.ErrNoSocketPath)
			case tt.wantClient != "" && (err != nil || got != tt.wantClient):
				t.Errorf("ClientSocketPath = %q, %v; want %q", got, err, tt.wantClient)
			}
		})
	}
}
