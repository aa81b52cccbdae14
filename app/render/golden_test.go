package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/app/render"
)

// The golden tests draw screens fed through the real emulator and compare
// them with testdata/*.png. Run `go test ./app/render -run Golden -update`
// after an intended change and look at the new pictures before keeping
// them.

func TestGoldenStyles(t *testing.T) {
	in := "plain \x1b[1mbold\x1b[0m \x1b[3mitalic\x1b[0m \x1b[1;3mbold-italic\x1b[0m \x1b[2mfaint\x1b[0m\r\n" +
		"\x1b[7minverse\x1b[0m \x1b[8mhidden\x1b[0m| \x1b[9mstrike\x1b[0m \x1b[53moverline\x1b[0m \x1b[5mblink\x1b[0m\r\n" +
		"\x1b[4msingle\x1b[0m \x1b[4:2mdouble\x1b[0m \x1b[4:3mcurly\x1b[0m \x1b[4:4mdotted\x1b[0m \x1b[4:5mdashed\x1b[0m\r\n" +
		"\x1b[4:3;58;5;196mred curly\x1b[0m \x1b[4;58;2;80;200;120mgreen line\x1b[0m \x1b[31;4;9mred under+strike\x1b[0m\r\n"
	for i := range 8 {
		in += fmt.Sprintf("\x1b[3%dm fg%d \x1b[9%dm fg%d \x1b[4%dm\x1b[30m bg%d \x1b[10%dm bg%d \x1b[0m\r\n", i, i, i, i+8, i, i, i, i+8)
	}
	in += "\x1b[1;31mbold red\x1b[0m \x1b[2;32mfaint green\x1b[0m \x1b[7;34minverse blue\x1b[0m \x1b[7;41minverse on red\x1b[0m"
	r := render.NewRenderer(testFonts(t), render.DarkPalette())
	golden(t, "styles", draw(t, r, screen(60, 13, in), nil))
}

func TestGoldenColors(t *testing.T) {
	var b strings.Builder
	// the 256-colour palette as backgrounds, 16 per row
	for i := range 256 {
		fmt.Fprintf(&b, "\x1b[48;5;%dm  ", i)
		if i%16 == 15 {
			b.WriteString("\x1b[0m\r\n")
		}
	}
	// truecolor gradients, as background and as text
	for x := range 64 {
		fmt.Fprintf(&b, "\x1b[48;2;%d;%d;%dm ", x*4, 255-x*4, 128)
	}
	b.WriteString("\x1b[0m\r\n")
	for x := range 64 {
		fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm#", 255, x*4, 255-x*4)
	}
	for _, p := range []struct {
		name string
		pal  render.Palette
	}{{"colors-dark", render.DarkPalette()}, {"colors-light", render.LightPalette()}} {
		r := render.NewRenderer(testFonts(t), p.pal)
		golden(t, p.name, draw(t, r, screen(64, 19, b.String()+"\x1b[0m\r\ndefault text"), nil))
	}
}

func TestGoldenCursor(t *testing.T) {
	f := testFonts(t)
	cases := []struct {
		name string
		in   string
		o    render.Overlay
	}{
		{"block", "\x1b[2 q$ ls", render.Overlay{}},
		{"block-on-char", "\x1b[2 q$ ls\x1b[2D", render.Overlay{}},
		{"block-wide", "\x1b[2 q$ 中文\x1b[4D", render.Overlay{}},
		{"underline", "\x1b[4 q$ ls\x1b[D", render.Overlay{}},
		{"bar", "\x1b[6 q$ ls\x1b[D", render.Overlay{}},
		{"hollow", "$ ls\x1b[D", render.Overlay{Unfocused: true}},
		{"off", "$ ls\x1b[D", render.Overlay{CursorOff: true}},
		{"hidden", "\x1b[?25l$ ls\x1b[D", render.Overlay{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := render.NewRenderer(f, render.DarkPalette())
			tc.o.Current = -1
			golden(t, "cursor-"+tc.name, draw(t, r, screen(10, 2, tc.in), &tc.o))
		})
	}
}

func TestGoldenWide(t *testing.T) {
	in := "wide: 中文字 | 한국어 | ｆｕｌｌ\r\n" +
		"emoji: \U0001F600 \U0001F44D\U0001F3FD \U0001F469\u200d\U0001F4BB \u2764\ufe0f end\r\n" +
		"marks: e\u0301 a\u0308 n\u0303 | greek αβγ | cyrillic жд\r\n" +
		"symbols: ★ ♪ ⚡ ✓ → ⇒ ∀ ∞ | missing: \U000F0000 \U0010FFFD\r\n" +
		"\x1b[7m中文\x1b[0m \x1b[1m中\x1b[0m \x1b[4m中文\x1b[0m \x1b[44m\U0001F600\x1b[0m|"
	r := render.NewRenderer(testFonts(t), render.DarkPalette())
	golden(t, "wide", draw(t, r, screen(50, 5, in), nil))
}

func TestGoldenCJKFallback(t *testing.T) {
	cjk := cjkFont(t)
	if cjk == nil {
		t.Skip("no CJK system font installed")
	}
	c := render.DefaultFontConfig()
	c.Regular = fyneFont(t, "DejaVuSansMono-Powerline.ttf")
	c.Fallbacks = [][]byte{cjk}
	f, err := render.NewFontSet(c)
	if err != nil {
		t.Fatal(err)
	}
	r := render.NewRenderer(f, render.DarkPalette())
	s := screen(40, 3, "中文字幕 日本語のテキスト\r\n한국어 텍스트 ｆｕｌｌ\r\nmixed 中a文b字c")
	golden(t, "cjk", draw(t, r, s, nil))
}

func TestGoldenBoxDrawing(t *testing.T) {
	var b strings.Builder
	for i := range 0xa0 {
		b.WriteRune(rune(0x2500 + i))
		if i%32 == 31 {
			b.WriteString("\r\n")
		}
	}
	b.WriteString("┌──┬──┐ ╔══╦══╗ ┏━━┳━━┓ ╭──╮ ╓─╥─╖ ╒═╤═╕\r\n")
	b.WriteString("│ab│cd│ ║ab║cd║ ┃ab┃cd┃ │ab│ ║a║b║ │a│b│\r\n")
	b.WriteString("├──┼──┤ ╠══╬══╣ ┣━━╋━━┫ ╰──╯ ╟─╫─╢ ╞═╪═╡\r\n")
	b.WriteString("└──┴──┘ ╚══╩══╝ ┗━━┻━━┛ ░▒▓█ ╙─╨─╜ ╘═╧═╛\r\n")
	b.WriteString("▁▂▃▄▅▆▇█ ▏▎▍▌▋▊▉ \x1b[31m▀▀\x1b[42m▄▄\x1b[0m ╱╲╱╲ ╳╳ ┄┄┈┈╌╌ ┆┊╎")
	r := render.NewRenderer(testFonts(t), render.DarkPalette())
	golden(t, "boxdrawing", draw(t, r, screen(44, 10, b.String()), nil))
}

func TestGoldenOverlays(t *testing.T) {
	in := "alpha beta gamma delta\r\nepsilon zeta eta theta\r\niota kappa lambda mu\r\nnu xi omicron pi rho"
	cases := []struct {
		name string
		o    render.Overlay
	}{
		{"stream-selection", render.Overlay{Selection: true, SelStart: render.Point{Row: 0, Col: 6}, SelEnd: render.Point{Row: 2, Col: 10}, Current: -1}},
		{"block-selection", render.Overlay{Selection: true, Block: true, SelStart: render.Point{Row: 0, Col: 12}, SelEnd: render.Point{Row: 2, Col: 6}, Current: -1}},
		{"matches", render.Overlay{Matches: []render.Span{{Row: 0, Col0: 0, Col1: 5}, {Row: 1, Col0: 19, Col1: 22}, {Row: 3, Col0: 3, Col1: 5}}, Current: 1}},
		{"link", render.Overlay{Link: render.Span{Row: 2, Col0: 5, Col1: 10}, Current: -1}},
		{"flash", render.Overlay{Flash: true, Current: -1}},
	}
	f := testFonts(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := render.NewRenderer(f, render.DarkPalette())
			golden(t, "overlay-"+tc.name, draw(t, r, screen(24, 4, in), &tc.o))
		})
	}
	t.Run("reverse-video", func(t *testing.T) {
		r := render.NewRenderer(f, render.DarkPalette())
		golden(t, "overlay-reverse-video", draw(t, r, screen(24, 4, "\x1b[?5h"+in+"\x1b[7m inv"), nil))
	})
	t.Run("light", func(t *testing.T) {
		r := render.NewRenderer(f, render.LightPalette())
		o := render.Overlay{Selection: true, SelStart: render.Point{Row: 1, Col: 0}, SelEnd: render.Point{Row: 1, Col: 7},
			Matches: []render.Span{{Row: 0, Col0: 6, Col1: 10}, {Row: 2, Col0: 0, Col1: 4}}, Current: 0}
		golden(t, "overlay-light", draw(t, r, screen(24, 4, in+"\x1b[H"), &o))
	})
}
