//go:build !windows

package api

import (
	"strconv"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/workspace"
)

// screensRes decodes surface.screens' result with its own types.
type screensRes struct {
	SurfaceID uint64 `json:"surface_id"`
	Screens   []struct {
		Screen     uint64  `json:"screen"`
		FirstShown string  `json:"first_shown"`
		LastShown  string  `json:"last_shown"`
		Seen       int     `json:"seen"`
		Rows       int     `json:"rows"`
		Text       *string `json:"text"`
	} `json:"screens"`
	Held      int    `json:"held"`
	Dropped   uint64 `json:"dropped"`
	Bytes     int    `json:"bytes"`
	Limit     int    `json:"limit"`
	Truncated bool   `json:"truncated"`
}

// TestSurfaceScreens: the screens a full-screen program showed are listed
// in order and each reads back with the text it showed; a screen the
// history does not hold is a clear error naming what it holds.
func TestSurfaceScreens(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	// The program waits for a line after each screen, so the first one
	// settles (no output for a while) before the second is drawn.
	sf := e.split("printf '\\033[?1049h\\033[Hfirst screen\\n'; read a; printf '\\033[2J\\033[Hsecond screen\\nrow two\\n'; read b; printf '\\033[?1049ldone\\n'; exec cat")
	waitText(t, sf, "first screen")
	waitHeld(t, sf, 1)
	if err := sf.Terminal().SendInput([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	waitText(t, sf, "row two")
	if err := sf.Terminal().SendInput([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	waitText(t, sf, "done")
	id := strconv.FormatUint(sf.ID(), 10)

	var r screensRes
	e.ok("surface.screens", `{"surface_id":`+id+`}`, &r)
	if r.SurfaceID != sf.ID() || r.Held != 2 || len(r.Screens) != 2 || r.Bytes <= 0 || r.Limit <= 0 || r.Truncated {
		t.Fatalf("list %+v; want 2 held screens of surface %d with their sizes", r, sf.ID())
	}
	for i, s := range r.Screens {
		if s.Screen != uint64(i+1) || s.Text != nil || s.Seen < 1 || s.FirstShown == "" || s.LastShown < s.FirstShown {
			t.Errorf("screen %d: %+v; want number %d, no text, shown times in order", i, s, i+1)
		}
	}
	if r.Screens[0].Rows != 1 || r.Screens[1].Rows != 2 {
		t.Errorf("rows %d, %d; want 1, 2", r.Screens[0].Rows, r.Screens[1].Rows)
	}

	e.ok("surface.screens", `{"surface_id":`+id+`,"screen":2}`, &r)
	if len(r.Screens) != 1 || r.Screens[0].Screen != 2 || r.Screens[0].Text == nil || *r.Screens[0].Text != "second screen\nrow two" {
		t.Fatalf("screen 2: %+v; want its text", r.Screens)
	}
	e.ok("surface.screens", `{"surface_id":`+id+`,"text":true}`, &r)
	if len(r.Screens) != 2 || r.Screens[0].Text == nil || *r.Screens[0].Text != "first screen" {
		t.Fatalf("list with text: %+v", r.Screens)
	}

	for _, tc := range []struct{ params, msg string }{
		{`{"surface_id":` + id + `,"screen":3}`, "screen 3 is not held by surface " + id + ": it holds screens 1 to 2"},
		{`{"surface_id":1,"screen":1}`, "screen 1 is not held by surface 1: it holds no screens"},
		{`{"surface_id":999}`, "surface_id 999 not found"},
	} {
		_, err := e.call("surface.screens", tc.params)
		if ie := rpcErr(t, err); ie.Code != ipc.CodeInvalidParams || ie.Message != tc.msg {
			t.Errorf("%s: %d %q; want %d %q", tc.params, ie.Code, ie.Message, ipc.CodeInvalidParams, tc.msg)
		}
	}
}

// waitHeld waits until the pane's screen history holds n screens.
func waitHeld(t testing.TB, sf *workspace.Surface, n int) {
	t.Helper()
	h := sf.Terminal().Emulator().ScreenHistory()
	deadline := time.Now().Add(testDeadline)
	for h.Len() < n {
		if time.Now().After(deadline) {
			t.Fatalf("pane %d's history holds %d screens, never %d", sf.ID(), h.Len(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
