package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image/png"
	"os"
)

// writeICO writes the PNG files pngs as one Windows icon (.ico) at out:
// the ICONDIR header, one ICONDIRENTRY per image and the PNG data as it is
// (Windows Vista and later read PNG-compressed entries). Each image must
// be square and at most 256 pixels wide.
func writeICO(out string, pngs []string) error {
	const dirSize, entrySize = 6, 16
	le := binary.LittleEndian
	var head, body bytes.Buffer
	head.Write(le.AppendUint16(nil, 0)) // reserved
	head.Write(le.AppendUint16(nil, 1)) // type: icon
	head.Write(le.AppendUint16(nil, uint16(len(pngs))))
	off := dirSize + entrySize*len(pngs)
	for _, p := range pngs {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if cfg.Width != cfg.Height || cfg.Width < 1 || cfg.Width > 256 {
			return fmt.Errorf("%s: %dx%d; an icon image is square and at most 256 pixels", p, cfg.Width, cfg.Height)
		}
		side := byte(cfg.Width) // 256 is written as 0
		head.Write([]byte{side, side, 0, 0})
		head.Write(le.AppendUint16(nil, 1))  // colour planes
		head.Write(le.AppendUint16(nil, 32)) // bits per pixel
		head.Write(le.AppendUint32(nil, uint32(len(data))))
		head.Write(le.AppendUint32(nil, uint32(off+body.Len())))
		body.Write(data)
	}
	return writeFile(out, append(head.Bytes(), body.Bytes()...), 0o644)
}
