package ipc

import (
	"encoding/json"
	"testing"
)

// TestAppendParams checks appendParams against json.Marshal on the shapes
// the CLI sends, and that it declines what it does not know.
func TestAppendParams(t *testing.T) {
	for _, m := range []map[string]any{
		{},
		{"surface_id": uint64(7), "lines": 200, "fenced": false},
		{"text": "echo <a> & \"b\" \\ \n\t\r\b\f\x01\x7f é \u2028\u2029 \xff", "submit": true},
		{"env": []string{"A=1", "<B>=2"}, "none": []string(nil), "n": int64(-3), "x": nil},
		{"layout": map[string]any{"type": "split", "ratio_pct": 50, "children": map[string]any(nil)}},
	} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendParams(nil, m)
		if !ok || string(got) != string(want) {
			t.Errorf("appendParams(%v) = %s, %v; want %s", m, got, ok, want)
		}
	}
	for _, m := range []map[string]any{{"f": 1.5}, {"s": struct{}{}}, {"deep": map[string]any{"f": []int{1}}}} {
		if got, ok := appendParams([]byte("x"), m); ok || string(got) != "x" {
			t.Errorf("appendParams(%v) = %q, %v; want it declined with dst unchanged", m, got, ok)
		}
	}
}

// FuzzAppendParams holds appendParams to json.Marshal for arbitrary keys,
// strings and numbers.
func FuzzAppendParams(f *testing.F) {
	f.Add("text", "<x> & \"y\"\n", int64(-1), uint64(1), true)
	f.Add("", "\xff\xfe\u2028", int64(0), uint64(0), false)
	f.Fuzz(func(t *testing.T, key, s string, n int64, u uint64, b bool) {
		m := map[string]any{key: s, key + "n": n, key + "u": u, key + "b": b,
			key + "l": []string{s, key}, key + "m": map[string]any{s: int(n)}}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendParams(nil, m)
		if !ok || string(got) != string(want) {
			t.Fatalf("appendParams(%q) = %s, %v; want %s", m, got, ok, want)
		}
	})
}

// TestEncodeRequestParams checks that a request's params come out as
// json.Marshal makes them whether or not appendParams handles them.
func TestEncodeRequestParams(t *testing.T) {
	for _, params := range []any{
		nil, map[string]any(nil), map[string]any{}, map[string]any{"lines": 200, "surface_id": uint64(3)},
		map[string]any{"ratio": 0.5}, struct{ A int }{1},
	} {
		line, err := encodeRequest(7, "surface.read", params)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"jsonrpc":"2.0","id":7,"method":"surface.read"}` + "\n"
		if params != nil {
			p, err := json.Marshal(params)
			if err != nil {
				t.Fatal(err)
			}
			want = `{"jsonrpc":"2.0","id":7,"method":"surface.read","params":` + string(p) + "}\n"
		}
		if string(line) != want {
			t.Errorf("encodeRequest(%#v) = %s, want %s", params, line, want)
		}
	}
}
