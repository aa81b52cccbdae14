package tomledit

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

var setTests = []struct {
	name  string
	doc   string
	key   string
	value any
	want  string
}{
	{
		name: "value replaced, comments and layout kept",
		doc: "# my settings\n" +
			"theme   = \"dark\"   # the dark one\n" +
			"\n" +
			"font_size = 13 # points\n",
		key: "font_size", value: 15.5,
		want: "# my settings\n" +
			"theme   = \"dark\"   # the dark one\n" +
			"\n" +
			"font_size = 15.5 # points\n",
	},
	{
		name: "a key in its table", doc: "theme = \"dark\"\n\n[terminal] # term\n# lines kept\nscrollback_lines = 10000\ncursor_shape = 'beam'\n",
		key: "terminal.scrollback_lines", value: int64(50000),
		want: "theme = \"dark\"\n\n[terminal] # term\n# lines kept\nscrollback_lines = 50000\ncursor_shape = 'beam'\n",
	},
	{
		name: "a new key after its table's last key", doc: "[terminal]\ncursor_shape = \"beam\"\n\n# about usage\n[usage]\n",
		key: "terminal.scrollback_lines", value: 500,
		want: "[terminal]\ncursor_shape = \"beam\"\nscrollback_lines = 500\n\n# about usage\n[usage]\n",
	},
	{
		name: "a new top-level key after the last one", doc: "# top\ntheme = \"light\"\n\n[terminal]\ncursor_shape = \"beam\"\n",
		key: "font_family", value: "JetBrains Mono",
		want: "# top\ntheme = \"light\"\nfont_family = \"JetBrains Mono\"\n\n[terminal]\ncursor_shape = \"beam\"\n",
	},
	{
		name: "a new top-level key above the first table and its comment", doc: "# the terminal\n[terminal]\ncursor_shape = \"beam\"\n",
		key: "theme", value: "light",
		want: "theme = \"light\"\n\n# the terminal\n[terminal]\ncursor_shape = \"beam\"\n",
	},
	{
		name: "a new table at the end", doc: "theme = \"light\" # no newline at the end",
		key: "terminal.cursor_blink", value: "on",
		want: "theme = \"light\" # no newline at the end\n\n[terminal]\ncursor_blink = \"on\"\n",
	},
	{
		name: "an empty file", doc: "",
		key: "ai_unrestricted", value: true,
		want: "ai_unrestricted = true\n",
	},
	{
		name: "a dotted key beside dotted keys", doc: "terminal.env.FOO = \"1\"\n",
		key: "terminal.scrollback_lines", value: 200,
		want: "terminal.env.FOO = \"1\"\nterminal.scrollback_lines = 200\n",
	},
	{
		name: "a dotted key replaced", doc: "terminal.scrollback_lines = 100 # few\n",
		key: "terminal.scrollback_lines", value: 200,
		want: "terminal.scrollback_lines = 200 # few\n",
	},
	{
		name: "multi-line values are skipped, not read as headers",
		doc:  "default_shell = \"\"\"\n[terminal]\nx = 1\n\"\"\"\nhosts = [\n  \"a\", # [terminal]\n  \"b\",\n]\n[terminal]\nscrollback_lines = 1000\n",
		key:  "terminal.scrollback_lines", value: 2000,
		want: "default_shell = \"\"\"\n[terminal]\nx = 1\n\"\"\"\nhosts = [\n  \"a\", # [terminal]\n  \"b\",\n]\n[terminal]\nscrollback_lines = 2000\n",
	},
	{
		name: "a multi-line value replaced whole", doc: "default_shell = '''\n/bin/zsh'''\ntheme = \"dark\"\n",
		key: "default_shell", value: "/bin/bash",
		want: "default_shell = \"/bin/bash\"\ntheme = \"dark\"\n",
	},
	{
		name: "a quoted key, CRLF line ends", doc: "\"theme\" = \"dark\"\r\n[\"terminal\"]\r\n\"cursor_shape\" = \"beam\"\r\n",
		key: "terminal.cursor_blink", value: "off",
		want: "\"theme\" = \"dark\"\r\n[\"terminal\"]\r\n\"cursor_shape\" = \"beam\"\r\ncursor_blink = \"off\"\r\n",
	},
	{
		name: "a string needing escapes", doc: "default_shell = \"/bin/sh\"\n",
		key: "default_shell", value: `C:\Program Files\"sh"`,
		want: "default_shell = \"C:\\\\Program Files\\\\\\\"sh\\\"\"\n",
	},
	{
		name: "an integral float keeps its point", doc: "font_size = 13\n",
		key: "font_size", value: 14.0,
		want: "font_size = 14.0\n",
	},
	{
		name: "a table after its sub-table", doc: "[usage.daily_budget]\ntokens = 5\n",
		key: "usage.extra", value: 1,
		want: "[usage.daily_budget]\ntokens = 5\n\n[usage]\nextra = 1\n",
	},
	{
		name: "inline table and array of tables elsewhere are left alone",
		doc:  "web = { listen = \"127.0.0.1:1\", tls_cert = '' }\n[[hosts]]\naddress = \"ssh://a\"\n",
		key:  "theme", value: "light",
		want: "web = { listen = \"127.0.0.1:1\", tls_cert = '' }\ntheme = \"light\"\n[[hosts]]\naddress = \"ssh://a\"\n",
	},
}

func TestSet(t *testing.T) {
	for _, tt := range setTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Set([]byte(tt.doc), strings.Split(tt.key, "."), tt.value)
			if err != nil {
				t.Fatalf("Set: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Set(%s = %v):\n got %q\nwant %q", tt.key, tt.value, got, tt.want)
			}
			// The result reads back with the value set.
			var m map[string]any
			if _, err := toml.Decode(string(got), &m); err != nil {
				t.Fatalf("result does not parse: %v", err)
			}
		})
	}
}

func TestSetRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, doc, key string
		value          any
		want           string
	}{
		{"a file that does not parse", "theme = \n", "theme", "dark", "tomledit:"},
		{"a key in an inline table", "terminal = { cursor_shape = \"beam\" }\n", "terminal.scrollback_lines", 10, "cannot be set"},
		{"a key in an array of tables", "[[hosts]]\naddress = \"a\"\n", "hosts.address", "b", "cannot be set"},
		{"a key under a value", "theme = \"dark\"\n", "theme.x", 1, "cannot be set"},
		{"an unsupported type", "", "theme", []string{"a"}, "cannot write"},
		{"NaN", "", "font_size", nanValue(), "not a number"},
		{"an empty key part", "", "terminal..x", 1, "empty part"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Set([]byte(tt.doc), strings.Split(tt.key, "."), tt.value)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Set = %q, %v; want an error containing %q", got, err, tt.want)
			}
			if got != nil {
				t.Errorf("Set returned %q with its error", got)
			}
		})
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want string
	}{
		{"a\"b", `"a\"b"`}, {true, "true"}, {7, "7"}, {int64(-3), "-3"}, {13.0, "13.0"}, {0.1, "0.1"}, {1e21, "1e+21"},
	} {
		got, err := Format(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Format(%v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzSet checks, on any document that parses, that Set either refuses
// or returns a document that reads as the original with the one value
// set (Set checks that itself; the fuzzer looks for panics and for
// results it returned that do not parse).
func FuzzSet(f *testing.F) {
	for _, tt := range setTests {
		f.Add(tt.doc, tt.key, "value")
	}
	f.Fuzz(func(t *testing.T, doc, key, value string) {
		var m map[string]any
		if _, err := toml.Decode(doc, &m); err != nil {
			return
		}
		got, err := Set([]byte(doc), strings.Split(key, "."), value)
		if err != nil {
			return
		}
		var after map[string]any
		if _, err := toml.Decode(string(got), &after); err != nil {
			t.Fatalf("Set(%q, %q) = %q, which does not parse: %v", doc, key, got, err)
		}
	})
}
