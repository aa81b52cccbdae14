package proto

import (
	"encoding/json"
	"reflect"
	"testing"
)

// refFrame is ScreenFrame without its UnmarshalJSON: encoding/json decodes
// it by reflection (its runs, styles and links through their own
// UnmarshalJSON), the reference DecodeScreenFrame must agree with.
type refFrame ScreenFrame

// sameAsJSON fails t unless DecodeScreenFrame and encoding/json both
// reject data, or both accept it with the same frame.
func sameAsJSON(t *testing.T, data []byte) {
	t.Helper()
	var want refFrame
	wantErr := json.Unmarshal(data, &want)
	var got ScreenFrame
	gotErr := DecodeScreenFrame(data, &got)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Fatalf("%s: DecodeScreenFrame's error %v, encoding/json's %v", data, gotErr, wantErr)
	case wantErr == nil && !reflect.DeepEqual(ScreenFrame(want), got):
		t.Fatalf("%s:\ndecoded  %+v\nwant     %+v", data, got, ScreenFrame(want))
	}
}

// screenFrameCases are frames the encoder writes and the odd and broken
// ones a peer could send.
func screenFrameCases() []string {
	full := ScreenFrame{
		Type: FrameScreen, SurfaceID: 7, Seq: 3, Full: true, Generation: 99, Cols: 80, Rows: 24,
		HistoryLen: 1000, HistoryDropped: 1 << 40,
		Cursor:    ScreenCursor{X: 5, Y: 23, Visible: true, Shape: 3, Blink: true},
		Modes:     ScreenModes{AppCursor: true, AppKeypad: true, BracketedPaste: true, FocusEvents: true, Mouse: 4, MouseEncoding: 2, AltScroll: true, KittyKeys: 31},
		AltScreen: true, ReverseVideo: true, SyncOutput: true, Title: "t\u00e9\"x", Cwd: "/home/u", Bells: 2,
		ColorsChanged: true, Colors: []ScreenColor{{1, 0xff0000}, {257, 0x123456}},
		ScreenCells: ScreenCells{
			Styles: []ScreenStyle{{}, {Fg: 0x1000001, Attrs: 1}, {Fg: 1, Bg: 2, Underline: 3, Attrs: 0xffff, Link: 1}},
			Links:  []ScreenLink{{ID: 1, URI: "https://x.test/?a=\"b\""}},
			Lines: []ScreenRow{
				{Y: 0, Wrapped: true, Runs: []ScreenRun{{Style: 1, Text: "hello", Width: RunNarrow}, {Style: 0, Blanks: 3, Width: RunNarrow}}},
				{Y: 1, Runs: []ScreenRun{{Style: 2, Text: "漢字", Width: RunWide}, {Style: 0, Clusters: []string{"e\u0301", ""}, Width: RunNarrow}, {Style: 0, Text: "x", Width: RunWideAlone}, {Blanks: 1, Width: RunContinuation}}},
				{Y: 2},
			},
		},
	}
	echo := ScreenFrame{Type: FrameScreen, SurfaceID: 1, Seq: 9, Cols: 120, Rows: 40, Cursor: ScreenCursor{X: 30, Y: 30, Visible: true},
		ScreenCells: ScreenCells{Styles: []ScreenStyle{{Fg: 0x1000002, Attrs: 1}, {}}, Lines: []ScreenRow{{Y: 30, Runs: []ScreenRun{{Style: 0, Text: "u@h", Width: RunNarrow}, {Style: 1, Text: "$ echo", Width: RunNarrow}}}}}}
	return []string{
		string(full.AppendJSON(nil)),
		string(echo.AppendJSON(nil)),
		`{"type":"attached","id":3,"token":"abc"}`,
		`{"type":"screen_closed","surface_id":4}`,
		`{"type":"heartbeat"}`,
		` { "SEQ" : 4 , "Cols":3, "cursor":{"X":1,"VISIBLE":true}, "modes":{"Mouse":2}, "Lines":[{"Y":1,"RUNS":[[0,"a"]]}], "unknown":[1,{"a":[]}] } `,
		`{"cursor":{"x":1},"cursor":{"y":2},"lines":[{"y":1}],"lines":[{"y":2}]}`,
		`{"type":null,"seq":null,"full":null,"cursor":null,"modes":null,"styles":null,"links":null,"lines":null,"colors":null}`,
		`{"styles":[],"links":[],"lines":[],"colors":[]}`,
		`{"styles":[null,[],[1,null,3]],"colors":[null,[1],[1,2,"x"]],"lines":[null,{"runs":[]},{"runs":null}]}`,
		`{"lines":[{"runs":[[0,null],[null,3],[0,[null,"a"]],[0,"x",null],[0,[]]]}]}`,
		`{"links":[[null,"u"],[1,null],[2,"v",3]]}`,
		`null`,
		`{"lines":[{"Y":1,"runs":[[0,"a"]]}],"lines":[{"wrapped":true}]}`,
		`{"colors":[[1,2],[3,4]],"colors":[[null],[5]]}`,
		`{"links":[[1,"a"]],"links":[[null,"b"]]}`,
		`{"cols":-0,"rows":-5,"history_len":9223372036854775807,"bells":-9223372036854775808}`,
		// Rejected.
		`{"cols":1.5}`, `{"cols":1e2}`, `{"cols":"3"}`, `{"cols":true}`, `{"cols":9223372036854775808}`,
		`{"surface_id":-1}`, `{"seq":18446744073709551616}`, `{"full":1}`, `{"type":3}`, `{"title":["x"]}`,
		`{"cursor":[1]}`, `{"cursor":"x"}`, `{"modes":3}`, `{"lines":{}}`, `{"lines":[3]}`, `{"lines":[{"y":"1"}]}`,
		`{"styles":[[1,2,3,4,5,6]]}`, `{"styles":[[0,0,0,65536]]}`, `{"styles":[[4294967296]]}`, `{"styles":[[-1]]}`, `{"styles":[{}]}`,
		`{"colors":[[4294967296,0]]}`, `{"colors":[3]}`, `{"colors":[["a"]]}`,
		`{"links":[[1]]}`, `{"links":[null]}`, `{"links":[[65536,"u"]]}`, `{"links":[[1,2]]}`, `{"links":[{}]}`,
		`{"lines":[{"runs":[null]}]}`, `{"lines":[{"runs":[[0]]}]}`, `{"lines":[{"runs":[[0,"a",1,2]]}]}`,
		`{"lines":[{"runs":[[0,""]]}]}`, `{"lines":[{"runs":[[0,-1]]}]}`, `{"lines":[{"runs":[[0,"a",3]]}]}`,
		`{"lines":[{"runs":[[0,true]]}]}`, `{"lines":[{"runs":[[0,{}]]}]}`, `{"lines":[{"runs":[[0,[1]]]}]}`,
		`{"lines":[{"runs":[["0","a"]]}]}`, `{"lines":[{"runs":[[0,"a","2"]]}]}`,
		`[1]`, `3`, `"x"`, `{`, `{"a":1,}`, `{"title":"\x01"}`, ``, `{"cols":01}`,
	}
}

// TestDecodeScreenFrame: DecodeScreenFrame decodes what encoding/json
// decodes, member for member, and rejects what it rejects.
func TestDecodeScreenFrame(t *testing.T) {
	for _, c := range screenFrameCases() {
		sameAsJSON(t, []byte(c))
	}
	// json.Unmarshal into a ScreenFrame goes through it.
	var f ScreenFrame
	if err := json.Unmarshal([]byte(`{"seq":5,"lines":[{"y":2,"runs":[[0,3]]}]}`), &f); err != nil || f.Seq != 5 || f.Lines[0].Runs[0].Blanks != 3 {
		t.Fatalf("json.Unmarshal: %+v, %v", f, err)
	}
}

func FuzzDecodeScreenFrame(f *testing.F) {
	for _, c := range screenFrameCases() {
		f.Add([]byte(c))
	}
	f.Fuzz(sameAsJSON)
}
