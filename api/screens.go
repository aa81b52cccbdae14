package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
)

// surfaceScreens lists a pane's screen history (the screens full-screen
// programs settled on), or reads one screen back: what `paneflow replay`
// steps through and what a surface.search_all hit in a history screen
// names. Texts are read outside the history's lock (ScreenHistory copies
// its index), so recording goes on meanwhile.
func (s *server) surfaceScreens(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceScreensParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	sf, err := s.resolve(p.Target)
	if err != nil {
		return nil, err
	}
	h := sf.Terminal().Emulator().ScreenHistory()
	res := proto.SurfaceScreensResult{SurfaceID: sf.ID(), Screens: []proto.HeldScreen{}}
	if h == nil {
		return res, nil // the pane keeps no history (screen_history_bytes = 0)
	}
	res.Held, res.Dropped, res.Bytes, res.Limit = h.Len(), h.Dropped(), h.Bytes(), h.Limit()
	if p.Screen != nil {
		rec, ok := h.Screen(*p.Screen)
		if !ok {
			return nil, ipc.InvalidParams("screen %d is not held by surface %d: %s", *p.Screen, sf.ID(), heldRange(h))
		}
		res.Screens = append(res.Screens, heldScreen(rec, true))
		return res, nil
	}
	withText := p.Text != nil && *p.Text
	size := 0
	h.Screens(func(rec terminal.ScreenRecord) bool {
		text := withText && !res.Truncated
		if text && size+len(rec.Text) > proto.ScreensMaxBytes {
			res.Truncated, text = true, false
		}
		if text {
			size += len(rec.Text)
		}
		res.Screens = append(res.Screens, heldScreen(rec, text))
		return true
	})
	return res, nil
}

// heldScreen is rec on the wire, with its text when text is set.
func heldScreen(rec terminal.ScreenRecord, text bool) proto.HeldScreen {
	hs := proto.HeldScreen{
		Screen:     rec.Seq,
		FirstShown: rec.First.UTC().Format(time.RFC3339Nano),
		LastShown:  rec.Last.UTC().Format(time.RFC3339Nano),
		Seen:       rec.Seen,
	}
	if rec.Text != "" {
		hs.Rows = strings.Count(rec.Text, "\n") + 1
	}
	if text {
		hs.Text = &rec.Text
	}
	return hs
}

// heldRange says which screens h holds, for an error naming one it does
// not.
func heldRange(h *terminal.ScreenHistory) string {
	first, last, ok := h.Span()
	if !ok {
		return "it holds no screens"
	}
	return fmt.Sprintf("it holds screens %d to %d", first, last)
}
