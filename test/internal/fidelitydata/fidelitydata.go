// Package fidelitydata holds the inputs the terminal fidelity tests give
// real programs (test/fidelity compares Paneflow with tmux on them; test/web
// compares the browser with the server on them), so both read the same
// bytes. It has no state.
package fidelitydata

import (
	"fmt"
	"strings"
)

// TextFile returns a deterministic text file of n lines that start with
// "line NNN:", with lines longer than 80 columns, tabs, and CJK text.
func TextFile(n int) []byte {
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
		"iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma"}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %03d:", i)
		switch {
		case i%17 == 0:
			b.WriteString("\tindented\twith\ttabs")
		case i%13 == 0:
			b.WriteString(" 日本語の行と中文字符 mixed with ASCII 한국어")
		case i%11 == 0:
			// Longer than one 80-column row.
			for k := range 24 {
				b.WriteString(" " + words[(i+k)%len(words)])
			}
		default:
			for k := range i % 9 {
				b.WriteString(" " + words[(i*3+k)%len(words)])
			}
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// WideScript prints CJK, emoji and combining text, moves the cursor over it
// with absolute moves, and puts wide characters at the right margin.
const WideScript = `
printf '日本語のテキストです\033[12G#\n'
printf 'ＡＢＣＤＥＦ\033[1G|\033[4G|\033[8G||\n'
printf 'cafe\314\201 nai\314\210ve n\314\203 a\314\201\314\202\314\203 end\033[6G#\n'
printf 'e\314\201\314\201\314\201 stacked combining\033[2G+\n'
printf '한국어 텍스트 입니다\033[5G*\n'
printf 'emoji 😀 🎉 🚀 🐍 end\033[8G@\033[13G@\n'
printf '中文字符测试 😀 mixed ascii 中\033[3G\033[1P\n'
printf 'insert 中文\033[1G\033[2@xy\n'
printf '%079d界\n' 0
printf '%078d界x\n' 0
printf '%077d界界\n' 0
printf '%079d😀tail\n' 0
printf '\033[20;75H中文字符测试中文\n'
printf '\033[22;79H界\033[22;1H\033[K>\n'
printf 'tab\t中文\tx\t😀\tend\n'
printf 'last 中文\033[80G界\n'
`

// EmojiScript prints multi-code-point emoji and other clusters (ZWJ
// sequences, flags, VS16, skin tones, keycaps, Thai and Devanagari marks,
// zero-width spaces), each followed by an absolute move that lands after it,
// so the columns each side gives them are compared, and puts some at the
// right margin.
const EmojiScript = `
printf 'zwj 👨‍👩‍👧 x\033[15G@\n'
printf 'flag 🇯🇵 x\033[10G@\n'
printf 'vs16 ❤️ x\033[10G@\n'
printf 'skin 👍🏽 x\033[11G@\n'
printf 'keycap 1️⃣ x\033[11G@\n'
printf 'ambiguous ① ← ▶ x\033[19G@\n'
printf 'zero width \342\200\213a\342\200\214b x\033[17G@\n'
printf 'thai ก่ x\033[9G@\n'
printf 'devanagari क्षि x\033[16G@\n'
printf '%078d👨‍👩‍👧\n' 0
printf '%078d❤️x\n' 0
printf '%079d🇯🇵\n' 0
`
