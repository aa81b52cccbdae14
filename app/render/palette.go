package render

import (
	"image/color"

	"github.com/paneflow-go/paneflow/terminal"
)

// Palette is the set of colours a [Renderer] draws with. All colours are
// opaque (alpha is ignored). The zero value draws everything black; start
// from [DarkPalette] or [LightPalette].
type Palette struct {
	// Foreground and Background are the terminal's default colours.
	Foreground, Background color.RGBA
	// Cursor fills the block cursor (and draws the bar, underline and
	// hollow cursors); CursorText is the character under a block cursor.
	Cursor, CursorText color.RGBA
	// Selection and SelectionText are the background and text of selected
	// cells.
	Selection, SelectionText color.RGBA
	// Match and CurrentMatch are the backgrounds of find-in-pane matches;
	// their text is drawn in Foreground or Background, whichever contrasts
	// more.
	Match, CurrentMatch color.RGBA
	// Link underlines the hovered hyperlink.
	Link color.RGBA
	// ANSI are colours 0–15: black, red, green, yellow, blue, magenta,
	// cyan, white, then their bright variants.
	ANSI [16]color.RGBA
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// DarkPalette returns Paneflow's dark colours: a One Dark–like scheme
// (grey-blue background, soft foreground, muted ANSI colours).
func DarkPalette() Palette {
	return Palette{
		Foreground:    rgb(0xabb2bf),
		Background:    rgb(0x282c34),
		Cursor:        rgb(0x528bff),
		CursorText:    rgb(0x282c34),
		Selection:     rgb(0x3e4451),
		SelectionText: rgb(0xdcdfe4),
		Match:         rgb(0xd19a66),
		CurrentMatch:  rgb(0xe5c07b),
		Link:          rgb(0x61afef),
		ANSI: [16]color.RGBA{
			rgb(0x3f4451), rgb(0xe06c75), rgb(0x98c379), rgb(0xe5c07b),
			rgb(0x61afef), rgb(0xc678dd), rgb(0x56b6c2), rgb(0xd7dae0),
			rgb(0x5c6370), rgb(0xff7a85), rgb(0xb5e08f), rgb(0xf0d197),
			rgb(0x82c4ff), rgb(0xde9bf0), rgb(0x7fd1db), rgb(0xffffff),
		},
	}
}

// LightPalette returns Paneflow's light colours: a One Light–like scheme
// (near-white background, dark grey foreground, saturated ANSI colours
// that stay readable on white).
func LightPalette() Palette {
	return Palette{
		Foreground:    rgb(0x383a42),
		Background:    rgb(0xfafafa),
		Cursor:        rgb(0x526fff),
		CursorText:    rgb(0xfafafa),
		Selection:     rgb(0xc9d0e0),
		SelectionText: rgb(0x232428),
		Match:         rgb(0xf5d689),
		CurrentMatch:  rgb(0xf0a64a),
		Link:          rgb(0x2e6bd6),
		ANSI: [16]color.RGBA{
			rgb(0x383a42), rgb(0xca1243), rgb(0x50a14f), rgb(0xa77a0c),
			rgb(0x4078f2), rgb(0xa626a4), rgb(0x0184bc), rgb(0xa0a1a7),
			rgb(0x696c77), rgb(0xe45649), rgb(0x3e953a), rgb(0xc18401),
			rgb(0x2f5fd0), rgb(0xb751b6), rgb(0x0997b3), rgb(0xd3d4d9),
		},
	}
}

// cubeLevels are the component values of the xterm 6×6×6 colour cube.
var cubeLevels = [6]uint8{0, 95, 135, 175, 215, 255}

// Resolve returns the colour c stands for: the default foreground (fg
// true) or background, an ANSI colour (0–15) from the palette, an xterm
// cube colour (16–231) or grey (232–255), or a truecolor value.
func (p *Palette) Resolve(c terminal.Color, fg bool) color.RGBA {
	if r, g, b, ok := c.RGB(); ok {
		return color.RGBA{R: r, G: g, B: b, A: 0xff}
	}
	if i, ok := c.Indexed(); ok {
		switch {
		case i < 16:
			return p.ANSI[i]
		case i < 232:
			i -= 16
			return color.RGBA{R: cubeLevels[i/36], G: cubeLevels[i/6%6], B: cubeLevels[i%6], A: 0xff}
		default:
			v := 8 + 10*(i-232)
			return color.RGBA{R: v, G: v, B: v, A: 0xff}
		}
	}
	if fg {
		return p.Foreground
	}
	return p.Background
}
