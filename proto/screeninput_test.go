package proto

import (
	"reflect"
	"testing"
)

// sameAsDecodeParams fails t unless DecodeScreenInputParams gives what
// DecodeParams gives for data: the same params, merged into the same
// starting value, and the same error.
func sameAsDecodeParams(t *testing.T, data []byte) {
	t.Helper()
	start := ScreenInputParams{Token: "old", SurfaceID: 3, Data: []byte("x")}
	want, got := start, start
	want.Data, got.Data = []byte("x"), []byte("x")
	wantErr := DecodeParams(data, &want)
	gotErr := DecodeScreenInputParams(data, &got)
	switch {
	case (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error():
		t.Fatalf("%q: DecodeScreenInputParams' error %v, DecodeParams' %v", data, gotErr, wantErr)
	case !reflect.DeepEqual(want, got):
		t.Fatalf("%q:\ndecoded %+v\nwant    %+v", data, got, want)
	}
}

// screenInputCases are the params a window sends and odd and broken ones.
func screenInputCases() []string {
	return []string{
		string(ScreenInputParams{Token: "t0k", SurfaceID: 7, Data: []byte("a")}.AppendJSON(nil)),
		string(ScreenInputParams{Token: "t", SurfaceID: 1 << 63, Data: []byte{}}.AppendJSON(nil)),
		string(ScreenInputParams{Token: "t\"é", Data: []byte("\x1b[A\r\n\x00\xff")}.AppendJSON(nil)),
		string(ScreenInputParams{}.AppendJSON(nil)),
		``, `null`, ` null `, `{}`, ` { "TOKEN" : "a" , "Surface_ID":2, "DATA":"YQ==", "x":[1,{"y":null}] } `,
		`{"token":"a","token":"b","data":"YQ==","data":null}`, `{"data":"Y\u0051=="}`, `{"data":"YQ\n=="}`,
		`{"token":null,"surface_id":null,"data":null}`, `{"data":""}`, `{"token":"\ud800"}`,
		// DecodeParams' errors, or values only it decodes.
		`[]`, `3`, `"x"`, `{`, `{"a":1,}`, `{"data":[1,2]}`, `{"data":"YQ"}`, `{"data":"!"}`, `{"data":3}`,
		`{"surface_id":-1}`, `{"surface_id":1.5}`, `{"surface_id":"1"}`, `{"surface_id":18446744073709551616}`,
		`{"token":3}`, `{"token":"a\x01"}`, `{"data":"YQ==","surface_id":true}`,
	}
}

func TestDecodeScreenInputParams(t *testing.T) {
	for _, c := range screenInputCases() {
		sameAsDecodeParams(t, []byte(c))
	}
}

func FuzzDecodeScreenInputParams(f *testing.F) {
	for _, c := range screenInputCases() {
		f.Add([]byte(c))
	}
	f.Fuzz(sameAsDecodeParams)
}

func BenchmarkDecodeScreenInputParams(b *testing.B) {
	data := ScreenInputParams{Token: "0123456789abcdef0123456789abcdef", SurfaceID: 12, Data: []byte("a")}.AppendJSON(nil)
	for _, c := range []struct {
		name string
		dec  func([]byte, *ScreenInputParams) error
	}{
		{"fast", func(d []byte, p *ScreenInputParams) error { return DecodeScreenInputParams(d, p) }},
		{"encoding_json", func(d []byte, p *ScreenInputParams) error { return DecodeParams(d, p) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var p ScreenInputParams
				if err := c.dec(data, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
