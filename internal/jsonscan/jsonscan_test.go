package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"strings"
	"testing"
)

// seeds are documents of every shape both fuzz targets start from.
var seeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":"b","c":[1,2,{"d":null}],"e":true,"f":false}`,
	`{"jsonrpc":"2.0","result":{"text":"\u003cx\u003e\nline\ttab \"q\" \\ \/","lines":2},"id":7}`,
	`{"a":1,"a":2}`, `{"A":1}`, `{"k\u00e9y":"v"}`, `{"\ud83d\ude00":"\ud83d\ude00"}`,
	`{"x":"\ud83d"}`, `{"x":"\ude00\ud83d"}`, `{"x":"\ud83d\u0041"}`, "{\"x\":\"\xff\xfe\"}",
	"{\"x\":\"caf\xc3\xa9\"}", `{"n":-0.5e+10,"m":0,"o":1E3}`, `[1,2]`, `"s"`, `"a\"b"`, `"\\"`,
	`3`, `null`, `{"a":}`, `{"a" 1}`, `{a:1}`, `{"a":1,}`, `[1,]`, `{"a":01}`, `{"a":1.}`,
	`{"a":-}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `{"a":tru}`, `{"a":nul}`,
	`{"a":1} x`, `{"a":[}`, `{"a":{]}`, `{"a":"b"`, `{"a":"b`, `{`, ``, `   `, `{"":""}`,
	`{"a":[[[[]]]],"b":{"c":{"d":{}}}}`, `{"t":"\\\\\""}`,
}

func TestMembers(t *testing.T) {
	var got []string
	err := Members([]byte(" {\"a\" : 1 ,\"b\":{\"c\":[1, \"}\"]},\"k\\u00e9\":\"x\\\"y\"\n, \"d\":null} \n"), func(k string, v []byte) {
		got = append(got, k+"="+string(v))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`a=1`, `b={"c":[1, "}"]}`, `ké="x\"y"`, `d=null`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("members = %q, want %q", got, want)
	}
}

// TestReadReply splits a real surface.read reply (200 lines of a pane) and
// decodes its text, checked against encoding/json.
func TestReadReply(t *testing.T) {
	frame, err := os.ReadFile("testdata/read_reply.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Result struct {
			Text string `json:"text"`
		} `json:"result"`
	}
	if err := json.Unmarshal(frame, &want); err != nil {
		t.Fatal(err)
	}
	var result []byte
	if err := Members(frame, func(k string, v []byte) {
		if k == "result" {
			result = v
		}
	}); err != nil {
		t.Fatal(err)
	}
	var text string
	if err := Members(result, func(k string, v []byte) {
		if k == "text" {
			text, err = String(v)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if text != want.Result.Text || !strings.Contains(text, "<untrusted_terminal_output") {
		t.Errorf("text = %.80q..., want %.80q...", text, want.Result.Text)
	}
}

// BenchmarkReadReply is the client's work on a `paneflow read --lines 200`
// reply: split the envelope, split the result, decode the text, against
// the two encoding/json Unmarshal calls it replaces.
func BenchmarkReadReply(b *testing.B) {
	frame, err := os.ReadFile("testdata/read_reply.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(frame)))
	b.Run("jsonscan", func(b *testing.B) {
		for b.Loop() {
			var result, text []byte
			if err := Members(frame, func(k string, v []byte) {
				if k == "result" {
					result = v
				}
			}); err != nil {
				b.Fatal(err)
			}
			if err := Members(result, func(k string, v []byte) {
				if k == "text" {
					text = v
				}
			}); err != nil {
				b.Fatal(err)
			}
			if _, err := String(text); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var env struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(frame, &env); err != nil {
				b.Fatal(err)
			}
			var res struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(env.Result, &res); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestMembersErrors(t *testing.T) {
	called := false
	fn := func(string, []byte) { called = true }
	for _, doc := range []string{`{"a":1} x`, `{"a":1,"b":}`, `{"a":"b`, ``, `{"a":1,}`} {
		var se *SyntaxError
		if err := Members([]byte(doc), fn); !errors.As(err, &se) {
			t.Errorf("Members(%q) = %v, want a *SyntaxError", doc, err)
		}
	}
	for _, doc := range []string{`[1]`, `"s"`, `3`, `null`} {
		if err := Members([]byte(doc), fn); !errors.Is(err, errNotObject) {
			t.Errorf("Members(%q) = %v, want errNotObject", doc, err)
		}
	}
	if called {
		t.Error("fn was called for an invalid document")
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if err := Members([]byte(`{"a":`+deep+`}`), fn); err == nil {
		t.Error("a document nested deeper than encoding/json allows was accepted")
	}
	ok := strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1)
	if err := Members([]byte(`{"a":`+ok+`}`), fn); err != nil {
		t.Errorf("nesting of %d levels: %v", maxDepth, err)
	}
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:                 "plain",
		` "a\nb\t\"c\"\\\/" `:     "a\nb\t\"c\"\\/",
		`"\u003cx\u003e"`:         "<x>",
		`"\ud83d\ude00"`:          "😀",
		`"\ud83d"`:                "\uFFFD",
		`"\ud83d\u0041"`:          "\uFFFDA",
		"\"\xff\"":                "\uFFFD",
		`"\b\f\r"`:                "\b\f\r",
		"\"caf\xc3\xa9 \\u00e9\"": "café é",
		`"\\u0041"`:               `\u0041`,
		`"tail\\"`:                `tail\`,
	} {
		got, err := String([]byte(in))
		if err != nil || got != want {
			t.Errorf("String(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`null`, `1`, `{}`, `"a" "b"`, `"a`, `"\q"`, ``} {
		if got, err := String([]byte(in)); err == nil {
			t.Errorf("String(%s) = %q, want an error", in, got)
		}
	}
}

// FuzzMembers holds Members to encoding/json: the same documents are
// valid, and a valid object yields the same members as decoding into a
// map of raw messages (the last of duplicate keys winning, as there).
func FuzzMembers(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := map[string]json.RawMessage{}
		err := Members(data, func(k string, v []byte) { got[k] = bytes.Clone(v) })
		valid := json.Valid(data)
		var want map[string]json.RawMessage
		werr := json.Unmarshal(data, &want)
		switch {
		case !valid:
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("invalid JSON %q: Members = %v, want a *SyntaxError", data, err)
			}
		case werr != nil || want == nil:
			// Valid, but not an object (a null decodes without error).
			if err == nil {
				t.Fatalf("%q is not an object but Members accepted it", data)
			}
		case err != nil:
			t.Fatalf("Members(%q) = %v, want success", data, err)
		case !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }):
			t.Fatalf("Members(%q) = %q, want %q", data, got, want)
		}
	})
}

func TestElements(t *testing.T) {
	var got []string
	err := Elements([]byte(" [ 1 , {\"a\":[2,\"]\"]},\"x\\\"y\"\n, null, [] ] \n"), func(v []byte) error {
		got = append(got, string(v))
		return nil
	})
	want := []string{`1`, `{"a":[2,"]"]}`, `"x\"y"`, `null`, `[]`}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("elements = %q, %v; want %q", got, err, want)
	}
	stop := errors.New("stop")
	n := 0
	if err := Elements([]byte(`[1,2,3]`), func([]byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("fn's error: %v after %d calls, want it after 1", err, n)
	}
	if err := Elements([]byte(`[]`), func([]byte) error { t.Error("fn called for []"); return nil }); err != nil {
		t.Error(err)
	}
	for _, doc := range []string{`[1,]`, `[1 2]`, `[`, ``, `[1] x`} {
		var se *SyntaxError
		if err := Elements([]byte(doc), func([]byte) error { t.Errorf("fn called for %q", doc); return nil }); !errors.As(err, &se) {
			t.Errorf("Elements(%q) = %v, want a *SyntaxError", doc, err)
		}
	}
	for _, doc := range []string{`{}`, `"s"`, `3`, `null`} {
		if err := Elements([]byte(doc), func([]byte) error { return nil }); !errors.Is(err, errNotArray) {
			t.Errorf("Elements(%q) = %v, want errNotArray", doc, err)
		}
	}
}

// FuzzElements holds Elements to encoding/json: the same documents are
// valid, and a valid array yields the elements decoding into a slice of
// raw messages gives.
func FuzzElements(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []json.RawMessage
		err := Elements(data, func(v []byte) error { got = append(got, bytes.Clone(v)); return nil })
		var want []json.RawMessage
		werr := json.Unmarshal(data, &want)
		switch {
		case !json.Valid(data):
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("invalid JSON %q: Elements = %v, want a *SyntaxError", data, err)
			}
		case werr != nil || want == nil:
			if err == nil {
				t.Fatalf("%q is not an array but Elements accepted it", data)
			}
		case err != nil:
			t.Fatalf("Elements(%q) = %v, want success", data, err)
		case len(got) != len(want):
			t.Fatalf("Elements(%q) = %q, want %q", data, got, want)
		default:
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("Elements(%q) = %q, want %q", data, got, want)
				}
			}
		}
	})
}

// FuzzString holds String to encoding/json: it decodes exactly the string
// literals encoding/json decodes into a string, to the same text.
func FuzzString(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := String(data)
		app, aerr := AppendString([]byte("pre"), data)
		if (aerr == nil) != (err == nil) || err == nil && string(app) != "pre"+got {
			t.Fatalf("AppendString(%q) = %q, %v; String = %q, %v", data, app, aerr, got, err)
		}
		var v any
		werr := json.Unmarshal(data, &v)
		want, isString := v.(string)
		switch {
		case werr != nil || !isString:
			if err == nil {
				t.Fatalf("String(%q) = %q, want an error (encoding/json: %v, %T)", data, got, werr, v)
			}
		case err != nil:
			t.Fatalf("String(%q) = %v, want %q", data, err, want)
		case got != want:
			t.Fatalf("String(%q) = %q, want %q", data, got, want)
		}
	})
}
