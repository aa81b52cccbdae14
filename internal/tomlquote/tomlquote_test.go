package tomlquote

import (
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`C:\bin\paneflow-mcp.exe`, `"C:\\bin\\paneflow-mcp.exe"`},
		{`say "hi"`, `"say \"hi\""`},
		{"a\nb\tc\x1b\x7f", `"a\u000Ab\u0009c\u001B\u007F"`},
		{"héllo ✓", `"héllo ✓"`},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzString checks that a TOML reader gives back exactly the input.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "é✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // TOML documents are UTF-8; String writes invalid bytes as they are
		}
		var v struct{ K string }
		if _, err := toml.Decode("K = "+String(s), &v); err != nil {
			t.Fatalf("decoding K = %s: %v", String(s), err)
		}
		if v.K != s {
			t.Fatalf("round trip of %q gave %q", s, v.K)
		}
	})
}
