// Package qrtext draws a QR code of a short text (a pairing link) for a
// terminal, two modules per character cell, and as an image for the
// desktop window. The encoding itself is github.com/skip2/go-qrcode's.
//
// A terminal's colours are the user's, and a QR code scans reliably only
// dark on light, so the terminal form sets its own colours (black on
// white, SGR 30;47) on every line rather than trusting the theme's.
//
// The functions have no state and are safe for concurrent use.
package qrtext

import (
	"fmt"
	"image"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// maxText bounds what is encoded: a pairing link is under 200 bytes, and
// a larger code would not fit a terminal.
const maxText = 512

// code encodes text at the medium recovery level (15 %), which scans
// from a screen even when a few cells are drawn imperfectly.
func code(text string) (*qrcode.QRCode, error) {
	if len(text) > maxText {
		return nil, fmt.Errorf("qrtext: %d bytes is too long for a QR code on a screen (at most %d)", len(text), maxText)
	}
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return nil, fmt.Errorf("qrtext: %v", err)
	}
	return q, nil
}

// Lines returns text's QR code as terminal lines, quiet zone included:
// each character is two modules stacked (upper and lower half blocks),
// drawn black on white with SGR, ending each line with a reset. A link of
// about 100 bytes gives 25 lines of 49 columns.
func Lines(text string) ([]string, error) {
	q, err := code(text)
	if err != nil {
		return nil, err
	}
	return render(q.Bitmap()), nil
}

// render draws bitmap (true: a dark module) two rows per line.
func render(bm [][]bool) []string {
	var lines []string
	for y := 0; y < len(bm); y += 2 {
		var b strings.Builder
		b.WriteString("\x1b[30;47m")
		for x := range bm[y] {
			top := bm[y][x]
			bottom := y+1 < len(bm) && bm[y+1][x]
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString("\x1b[0m")
		lines = append(lines, b.String())
	}
	return lines
}

// Image returns text's QR code as an image of about size pixels square
// (black on white, quiet zone included), for the desktop window.
func Image(text string, size int) (image.Image, error) {
	q, err := code(text)
	if err != nil {
		return nil, err
	}
	return q.Image(size), nil
}
