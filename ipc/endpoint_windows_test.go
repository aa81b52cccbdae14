//go:build windows

package ipc_test

import (
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
)

func TestSocketPath(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"default pipe", map[string]string{"TMPDIR": `C:\tmp`}, `\\.\pipe\paneflow`},
		{"absolute override", map[string]string{"PANEFLOW_SOCKET_PATH": `\\.\pipe\custom`}, `\\.\pipe\custom`},
		{"relative override ignored", map[string]string{"PANEFLOW_SOCKET_PATH": `custom`}, `\\.\pipe\paneflow`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			for name, f := range map[string]func(func(string) string) (string, error){
				"ServerSocketPath": ipc.ServerSocketPath, "ClientSocketPath": ipc.ClientSocketPath,
			} {
				if got, err := f(getenv); err != nil || got != tt.want {
					t.Errorf("%s = %q, %v; want %q", name, got, err, tt.want)
				}
			}
		})
	}
}
