package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	withMain := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/paneflow-go/paneflow", Version: v}}
	}
	tests := []struct {
		name   string
		linked string
		info   *debug.BuildInfo
		ok     bool
		want   string
	}{
		{"link-time value wins", "v1.2.3", withMain("v0.0.1"), true, "v1.2.3"},
		{"module version from go install", "", withMain("v0.4.0"), true, "v0.4.0"},
		{"vcs pseudo-version", "", withMain("v0.0.0-20250101000000-abcdef123456+dirty"), true, "v0.0.0-20250101000000-abcdef123456+dirty"},
		{"devel build", "", withMain("(devel)"), true, "dev"},
		{"empty module version", "", withMain(""), true, "dev"},
		{"no build info", "", nil, false, "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.linked, tt.info, tt.ok); got != tt.want {
				t.Errorf("resolve(%q, ...) = %q, want %q", tt.linked, got, tt.want)
			}
		})
	}
}

func TestStringUsesLinkedVersion(t *testing.T) {
	old := Version
	t.Cleanup(func() { Version = old })
	Version = "v9.9.9-test"
	if got := String(); got != "v9.9.9-test" {
		t.Errorf("String() = %q, want %q", got, "v9.9.9-test")
	}
}
