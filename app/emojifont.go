package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// dropBundledEmoji keeps Fyne from parsing its bundled emoji font
// (EmojiOneColor, 4.2 MB) for the window's texts. Fyne 2.7.1 parses that
// font again for every text style it draws (regular, bold, italic,
// monospace…) and keeps each parse for the app's life: 4.8 MB of Go heap
// per style, 17 MB of the window's resident memory after a 100 MB burst
// (BenchmarkKeyEcho). The font's content becomes the bundled symbol
// font's (9 KB): the window's own texts then take emoji, like every
// other character Fyne's fonts lack, from the system's fonts (Fyne's
// per-character fallback), as a Fyne build with its no_emoji tag does.
// The terminals draw with their own fonts (package fontfind) and are not
// affected. It must run before the window draws any text; it changes a
// Fyne package variable, once for the process.
func dropBundledEmoji() {
	replaceFontContent(theme.DefaultEmojiFont(), theme.DefaultSymbolFont())
}

// replaceFontContent gives the static resource font the content of with
// when font is a larger static resource; it reports whether it did. A
// Fyne without a bundled emoji font (nil) or with another kind of
// resource is left alone.
func replaceFontContent(font, with fyne.Resource) bool {
	r, ok := font.(*fyne.StaticResource)
	if !ok || r == nil || with == nil || len(with.Content()) >= len(r.StaticContent) {
		return false
	}
	r.StaticContent = with.Content()
	return true
}
