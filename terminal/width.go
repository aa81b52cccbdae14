package terminal

import "github.com/mattn/go-runewidth"

// widthCond is the width table used for every code point: East Asian
// ambiguous characters are narrow, as in glibc's wcwidth and tmux. It is
// built explicitly so the result does not depend on the environment.
var widthCond = func() *runewidth.Condition {
	c := runewidth.NewCondition()
	c.EastAsianWidth = false
	c.StrictEmojiNeutral = true
	return c
}()

const zwj = 0x200d

// runeWidth reports the number of columns r occupies: 0 for combining and
// other zero-width code points (they join the previous cell), 1 or 2.
func runeWidth(r rune) int {
	if r < 0x300 {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return 0
		}
		return 1
	}
	if isRegionalIndicator(r) {
		return 2 // flags render as one double-width glyph
	}
	return widthCond.RuneWidth(r)
}

func isRegionalIndicator(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

// isPictographic approximates Unicode's Extended_Pictographic property for
// the code points that follow a ZWJ in emoji sequences.
func isPictographic(r rune) bool {
	return (r >= 0x1f000 && r <= 0x1faff) || (r >= 0x2600 && r <= 0x27bf) || (r >= 0x2300 && r <= 0x23ff)
}
