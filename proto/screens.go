package proto

// This file holds surface.screens: the screens a full-screen program
// showed in a pane (its screen history), to list them and to read one
// back, which is what `paneflow replay` and a search hit in a history
// screen open.

// SurfaceScreensParams are surface.screens' params.
type SurfaceScreensParams struct {
	Target
	// Screen asks for one screen, with its text (nil: list every held
	// screen, without text). A screen is named by the number
	// surface.search_all gives ([SearchAllMatch.Screen]).
	Screen *uint64 `json:"screen,omitempty"`
	// Text asks for every listed screen's text too (nil: false). The
	// result is cut at [ScreensMaxBytes] of text (Truncated).
	Text *bool `json:"text,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceScreensParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	p.appendTarget(&o)
	o.uintPtr("screen", p.Screen)
	o.boolPtr("text", p.Text)
	return o.close()
}

// ScreensMaxBytes bounds the text of one surface.screens result, so that
// it fits a frame with its JSON around it.
const ScreensMaxBytes = 256 << 10

// HeldScreen is one screen of a pane's screen history.
type HeldScreen struct {
	// Screen numbers the pane's screens from 1 in the order they were
	// first shown; a number names the same screen while it is held.
	Screen uint64 `json:"screen"`
	// FirstShown and LastShown are when the screen was first and last
	// recorded (RFC 3339 with nanoseconds, the server's clock): a screen
	// shown again is kept once.
	FirstShown string `json:"first_shown"`
	LastShown  string `json:"last_shown"`
	// Seen counts how many times it was recorded.
	Seen int `json:"seen"`
	// Rows is how many rows its text has (trailing empty rows dropped).
	Rows int `json:"rows"`
	// Text is the screen's rows joined with "\n", each right-trimmed:
	// terminal output, untrusted. Present when asked for.
	Text *string `json:"text,omitempty"`
}

// SurfaceScreensResult is surface.screens' result.
type SurfaceScreensResult struct {
	SurfaceID uint64 `json:"surface_id"`
	// Screens are the held screens asked for, oldest first.
	Screens []HeldScreen `json:"screens"`
	// Held is how many screens the pane's history holds; Dropped how many
	// older ones were dropped to stay inside its bound.
	Held    int    `json:"held"`
	Dropped uint64 `json:"dropped"`
	// Bytes and Limit are the memory the history counts and its bound.
	Bytes int `json:"bytes"`
	Limit int `json:"limit"`
	// Truncated says texts were left out past ScreensMaxBytes (the
	// screens are listed, the later ones without Text).
	Truncated bool `json:"truncated,omitempty"`
}
