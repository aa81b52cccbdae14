//go:build !client

package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestCheckPatternIsRegexpCompile: wait's check of --pattern fails exactly
// when regexp.Compile does, with the same error.
func TestCheckPatternIsRegexpCompile(t *testing.T) {
	for _, p := range []string{
		"^DONE", "x", "a|b", `(?m)^\s*$`, `\p{Greek}+`, `(?P<name>x)`, `[[:alpha:]]`, "é+",
		"(", "(unclosed", "[a", "a**", "x{2,1}", `\p{Nope}`, `\8`, "(?P<n>a)(?P<n>b)", "\xff",
		"a{1001}", strings.Repeat("(", 1001) + strings.Repeat(")", 1001), `[z-a]`, `(?i`,
	} {
		_, want := regexp.Compile(p)
		got := checkPattern(p)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%.20q: checkPattern says %v, regexp.Compile %v", p, got, want)
		}
	}
}
