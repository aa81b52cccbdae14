package app

import (
	"bytes"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// TestReplaceFontContent: a bundled font larger than the replacement
// takes the replacement's content (the emoji font, 4.2 MB, becomes the
// 9 KB symbol font Fyne then parses per text style); a smaller one, a
// missing one and other kinds of resource are left alone.
func TestReplaceFontContent(t *testing.T) {
	sym := theme.DefaultSymbolFont()
	emoji := theme.DefaultEmojiFont()
	if emoji == nil {
		t.Skip("Fyne built without its emoji font (no_emoji)")
	}
	big := &fyne.StaticResource{StaticName: "emoji.otf", StaticContent: bytes.Clone(emoji.Content())}
	if !replaceFontContent(big, sym) {
		t.Fatal("the emoji font's copy was not replaced")
	}
	if !bytes.Equal(big.StaticContent, sym.Content()) {
		t.Errorf("replaced content is %d bytes, want the symbol font's %d", len(big.StaticContent), len(sym.Content()))
	}
	if replaceFontContent(big, sym) {
		t.Error("a font no larger than the replacement was replaced again")
	}
	small := &fyne.StaticResource{StaticName: "small.ttf", StaticContent: []byte("tiny")}
	if replaceFontContent(small, sym) || string(small.StaticContent) != "tiny" {
		t.Error("a smaller font was replaced")
	}
	if replaceFontContent(nil, sym) || replaceFontContent((*fyne.StaticResource)(nil), sym) {
		t.Error("a missing font was replaced")
	}
	other := fyne.NewStaticResource("x", bytes.Repeat([]byte{1}, 1<<20))
	if !replaceFontContent(other, sym) {
		t.Error("a large static resource made by NewStaticResource was not replaced")
	}
}
