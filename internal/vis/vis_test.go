package vis

import (
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		"plain text é 日本 \\n": "plain text é 日本 \\n",
		"\x1b[2Kfake\r":       `\x1b[2Kfake\x0d`,
		"bell\a del\x7f":      `bell\x07 del\x7f`,
		"c1 \u009b31m":        `c1 \x9b31m`,
		"bad \xff byte":       `bad \xff byte`,
		"a\tb\nc":             `a\x09b\x0ac`,
		"evil\u202egnp.exe":   `evil\u202egnp.exe`,
		"iso\u2066x\u2069":    `iso\u2066x\u2069`,
		"mark\u200f\u061c":    `mark\u200f\u061c`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if Safe(in) != (String(in) == in) {
			t.Errorf("Safe(%q) = %v, disagrees with String", in, Safe(in))
		}
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"a\tb\nc":           "a\tb\nc",
		"line\r\nnext\x1b]": `line\x0d` + "\n" + `next\x1b]`,
		"rtl\u202e\n":       `rtl\u202e` + "\n",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStringNoAlloc(t *testing.T) {
	s := "an ordinary pane title — ünïcode 日本"
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Errorf("String of safe text allocated %v times", n)
	}
}

func FuzzString(f *testing.F) {
	f.Add("\x1b[31mred\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{String(s), Text(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("escape of %q is not UTF-8: %q", s, out)
			}
		}
		if !Safe(String(s)) {
			t.Fatalf("String(%q) = %q still holds something to escape", s, String(s))
		}
	})
}
