package notify

import (
	"encoding/base64"
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf16"
)

// hostile is notification text that would break out of a naively built
// toast or PowerShell command: markup, quotes, PowerShell's $() and
// backtick, a NUL and another control character, and non-ASCII text.
var hostile = []struct{ title, body string }{
	{"Claude Code needs input in api", "Allow Bash: rm -rf \"$(Get-Location)\"; `calc`"},
	{`</text></binding><binding template="x"><text>`, "a & b < c > d ' \" ]]> <!-- -->"},
	{"nul\x00 and bell\x07", "line one\nline two\r\n\ttabbed ünïcödé 😀"},
	{"", ""},
}

// toastTexts parses toast XML and returns its text elements.
func toastTexts(t *testing.T, s string) []string {
	t.Helper()
	var doc struct {
		XMLName xml.Name `xml:"toast"`
		Binding []struct {
			Template string   `xml:"template,attr"`
			Texts    []string `xml:"text"`
		} `xml:"visual>binding"`
	}
	if err := xml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, s)
	}
	if len(doc.Binding) != 1 || doc.Binding[0].Template != "ToastGeneric" {
		t.Fatalf("bindings %+v, want one ToastGeneric", doc.Binding)
	}
	return doc.Binding[0].Texts
}

// TestToastXML: the title and body come back from the toast's XML as
// they were (markup escaped; characters XML cannot hold as U+FFFD), as
// its only two text lines; long text is cut, ending in an ellipsis.
func TestToastXML(t *testing.T) {
	for _, h := range hostile {
		got := toastTexts(t, ToastXML(h.title, h.body))
		want := []string{xmlSafe(h.title), xmlSafe(h.body)}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("ToastXML(%q, %q) reads back as %q, want %q", h.title, h.body, got, want)
		}
	}
	long := strings.Repeat("é", 5000)
	got := toastTexts(t, ToastXML(long, long))
	if r := []rune(got[0]); len(r) != toastTitleMax || r[len(r)-1] != '…' {
		t.Errorf("a long title is %d runes", len(r))
	}
	if r := []rune(got[1]); len(r) != toastBodyMax || r[len(r)-1] != '…' {
		t.Errorf("a long body is %d runes", len(r))
	}
}

// xmlSafe is s with what XML 1.0 cannot hold replaced by U+FFFD, and
// "\r\n" read back as "\n" (XML's line-end handling; escaped it stays).
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r != 0xfffe && r != 0xffff {
			return r
		}
		return '\uFFFD'
	}, s)
}

// TestToastArgs: powershell.exe gets no profile and no prompt, and the
// script as -EncodedCommand (base64 of UTF-16LE) decodes to the constant
// script, which reads the toast from the environment and holds no text of
// any notification.
func TestToastArgs(t *testing.T) {
	args := ToastArgs()
	if len(args) != 6 || args[0] != "-NoProfile" || args[1] != "-NonInteractive" || args[4] != "-EncodedCommand" {
		t.Fatalf("args %q", args)
	}
	raw, err := base64.StdEncoding.DecodeString(args[5])
	if err != nil || len(raw)%2 != 0 {
		t.Fatalf("-EncodedCommand is not base64 of UTF-16: %v", err)
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	script := string(utf16.Decode(u))
	if script != toastScript {
		t.Errorf("decoded script:\n%s\nwant:\n%s", script, toastScript)
	}
	for _, want := range []string{"$doc.LoadXml($env:" + ToastEnv + ")", "ToastNotificationManager]::CreateToastNotifier($app).Show(", powershellAppID} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q", want)
		}
	}
}
