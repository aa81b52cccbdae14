//go:build client

package cli

import "testing"

// TestWaitNeedsServer: the client hands every `wait` that may carry
// --pattern to the server binary, and keeps the others.
func TestWaitNeedsServer(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--match", "1", "--pattern", "DONE"}, true},
		{[]string{"--match", "1", "--pattern=DONE"}, true},
		{[]string{"--match", "1", "--pattern="}, true},
		{[]string{"--pattern", "(", "--match", "1"}, true},
		{[]string{"--match", "1", "--idle"}, false},
		{[]string{"--match", "1", "--idle", "--", "--pattern"}, false},
		{nil, false},
	} {
		if got := waitNeedsServer(tc.args, nil); got != tc.want {
			t.Errorf("waitNeedsServer(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
