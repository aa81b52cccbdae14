package jsonscan

import (
	"encoding/json"
	"testing"
)

// FuzzAppendQuoted holds AppendQuoted to json.Marshal of a string.
func FuzzAppendQuoted(f *testing.F) {
	for _, s := range []string{"", "plain", "<a> & \"b\" \\ \n\t\r\b\f\x01\x7f é \u2028\u2029 \xff", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendQuoted([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendQuoted(%q) = %s, want x%s", s, got, want)
		}
	})
}
