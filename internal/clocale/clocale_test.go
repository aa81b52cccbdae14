package clocale

import "testing"

func TestNeedsFallback(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"LANG": "C.UTF-8"}, true},
		{map[string]string{"LANG": "C.utf8"}, true},
		{map[string]string{"LC_ALL": "POSIX.UTF-8", "LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LC_MESSAGES": "C@euro"}, true},
		{map[string]string{"LANG": "C"}, false},     // go-locale knows it
		{map[string]string{"LANG": "POSIX"}, false}, // go-locale knows it
		{map[string]string{"LANG": "en_US.UTF-8"}, false},
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "de"}, false}, // go-locale reads LANGUAGE
		{map[string]string{"LC_ALL": "de_DE.UTF-8", "LANG": "C.UTF-8"}, false},
		{map[string]string{}, false},
		{map[string]string{"LANG": "Cx.UTF-8"}, false},
	} {
		getenv := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		if got := needsFallback(getenv); got != tc.want {
			t.Errorf("needsFallback(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}
