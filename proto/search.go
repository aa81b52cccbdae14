package proto

// This file holds surface.search_all: one search over every pane of every
// workspace, including what full-screen programs showed.

// Search cases of [SearchAllParams.Case].
const (
	CaseSmart       = "smart"       // case-insensitive unless the pattern has an upper-case letter
	CaseSensitive   = "sensitive"   // exact case
	CaseInsensitive = "insensitive" // any case
)

// Sources of a [SearchAllMatch].
const (
	SourceScrollback = "scrollback" // the main screen's scrollback (line < 0)
	SourceScreen     = "screen"     // the main screen (line 0..)
	SourceAltScreen  = "alt_screen" // the alternate screen showing now (line = row)
	SourceHistory    = "history"    // a screen a full-screen program showed earlier (screen, line = row)
)

// SearchAllParams are surface.search_all's params.
type SearchAllParams struct {
	// Pattern is the text to find (required, ≤512 bytes): literal, or a
	// regular expression (RE2 syntax) when Regex is true. A match never
	// spans lines.
	Pattern string `json:"pattern"`
	// Regex makes Pattern a regular expression (nil: false).
	Regex *bool `json:"regex,omitempty"`
	// Case is CaseSmart (nil), CaseSensitive or CaseInsensitive.
	Case *string `json:"case,omitempty"`
	// MaxMatches caps the matching lines over all panes (nil: 200;
	// 1..1000); a result is also cut at 128 KiB of text (Truncated).
	MaxMatches *int `json:"max_matches,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SearchAllParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("pattern", p.Pattern)
	o.boolPtr("regex", p.Regex)
	o.strPtr("case", p.Case)
	o.intPtr("max_matches", p.MaxMatches)
	return o.close()
}

// SearchAllMatch is one matching line.
type SearchAllMatch struct {
	// Source says where the line is (the Source* constants).
	Source string `json:"source"`
	// Line is, in the scrollback and on the main screen, the row's grid
	// coordinate as surface.search gives it (negative in the scrollback);
	// on the alternate screen and a history screen, the row (0 the top).
	Line int `json:"line"`
	// Screen is a history screen's number (from 1 per pane, in the order
	// they were shown; absent for other sources).
	Screen *uint64 `json:"screen,omitempty"`
	// ShownAt is when a history screen was first shown (RFC 3339).
	ShownAt *string `json:"shown_at,omitempty"`
	// Text is the line, right-trimmed: terminal output, untrusted.
	Text string `json:"text"`
	// Spans are the matches in Text: [start, end) byte offsets.
	Spans [][2]int `json:"spans"`
}

// SearchAllPane is the matches of one pane, in the pane's order:
// scrollback, screen, alternate screen, then history screens oldest first.
type SearchAllPane struct {
	SurfaceID   uint64           `json:"surface_id"`
	Name        string           `json:"name"`
	Workspace   int              `json:"workspace"`
	WorkspaceID uint64           `json:"workspace_id"`
	Matches     []SearchAllMatch `json:"matches"`
}

// SearchAllResult is surface.search_all's result: the panes with matches,
// in workspace then layout order.
type SearchAllResult struct {
	Panes []SearchAllPane `json:"panes"`
	// MatchCount is the number of matching lines returned.
	MatchCount int `json:"match_count"`
	// Truncated says more lines matched than MaxMatches.
	Truncated bool `json:"truncated"`
	// CaseSensitive says how the pattern was matched (after smart case).
	CaseSensitive bool `json:"case_sensitive"`
	// PanesSearched counts the panes searched.
	PanesSearched int `json:"panes_searched"`
}
