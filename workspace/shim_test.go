package workspace

import (
	"os"
	"slices"
	"testing"
)

func TestWithShimDir(t *testing.T) {
	sep := string(os.PathListSeparator)
	tests := []struct {
		name string
		env  []string
		dir  string
		want []string
	}{
		{"none", []string{"PATH=/usr/bin"}, "", []string{"PATH=/usr/bin"}},
		{"prepended", []string{"A=1", "PATH=/usr/bin" + sep + "/bin"}, "/s",
			[]string{"A=1", "PATH=/s" + sep + "/usr/bin" + sep + "/bin", EnvBinDir + "=/s"}},
		{"moved to the front once", []string{"PATH=/usr/bin" + sep + "/s/" + sep + "/bin"}, "/s",
			[]string{"PATH=/s" + sep + "/usr/bin" + sep + "/bin", EnvBinDir + "=/s"}},
		{"no PATH", []string{"A=1"}, "/s", []string{"A=1", "PATH=/s", EnvBinDir + "=/s"}},
	}
	for _, tt := range tests {
		if got := withShimDir(tt.env, tt.dir); !slices.Equal(got, tt.want) {
			t.Errorf("%s: withShimDir = %q; want %q", tt.name, got, tt.want)
		}
	}
}
