package app

import (
	"testing"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"golang.org/x/image/font/sfnt"
)

// missingGlyphs are the runes of text that Fyne draws as a missing-glyph
// box with the theme's fonts: a rune neither the regular nor the symbol
// font has, and a space after a rune only the symbol font has (the text
// shaper keeps a space in the run of the rune before it, go-text's
// splitByFace, and the symbol font has no space).
func missingGlyphs(t *testing.T, text string) []string {
	t.Helper()
	parse := func(st fyne.TextStyle) func(rune) bool {
		f, err := sfnt.Parse(theme.DefaultTheme().Font(st).Content())
		if err != nil {
			t.Fatal(err)
		}
		var b sfnt.Buffer
		return func(r rune) bool { i, err := f.GlyphIndex(&b, r); return err == nil && i != 0 }
	}
	regular, symbol := parse(fyne.TextStyle{}), parse(fyne.TextStyle{Symbol: true})
	var bad []string
	inSymbol := false // the run so far is in the symbol font
	for _, r := range text {
		switch {
		case unicode.IsSpace(r):
			if inSymbol && !symbol(r) {
				bad = append(bad, "a space after a symbol")
			}
			continue
		case regular(r):
			inSymbol = false
		case symbol(r):
			inSymbol = true
		default:
			bad = append(bad, string(r))
		}
	}
	return bad
}

// TestHintGlyphsDrawn: the fixed lines with arrows draw every glyph
// (the replay hint drew a box after "→").
func TestHintGlyphsDrawn(t *testing.T) {
	if bad := missingGlyphs(t, "←/→ step"); len(bad) != 1 {
		t.Fatalf("the old hint's missing glyphs: %q, want the space after →", bad)
	}
	for _, text := range []string{replayHint, composerPrefix + "pane 1"} {
		if bad := missingGlyphs(t, text); len(bad) > 0 {
			t.Errorf("%q draws %q as missing glyphs", text, bad)
		}
	}
}
