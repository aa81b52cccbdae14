// Package qrtext encodes a short text (a pairing link) as a QR code: as
// rows of modules, which the server sends to the command-line client to
// draw on a terminal (cli's drawQR), and as an image for the desktop
// window. The encoding itself is github.com/skip2/go-qrcode's, which
// links image/png and compress/flate: the client must not import this
// package (test/repo_test.go's import rules say so).
//
// The functions have no state and are safe for concurrent use.
package qrtext

import (
	"fmt"
	"image"

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

// Modules returns text's QR code as rows of modules, quiet zone
// included: one string per row, '1' a dark module and '0' a light one,
// as many rows as columns. The server sends them with web.pair's result
// (proto.WebPairResult.QR) for the command-line client to draw, so that
// the client, which starts on every CLI call, links no QR encoder.
func Modules(text string) ([]string, error) {
	q, err := code(text)
	if err != nil {
		return nil, err
	}
	bm := q.Bitmap()
	rows := make([]string, len(bm))
	for y, row := range bm {
		b := make([]byte, len(row))
		for x, dark := range row {
			b[x] = '0'
			if dark {
				b[x] = '1'
			}
		}
		rows[y] = string(b)
	}
	return rows, nil
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
