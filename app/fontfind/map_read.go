//go:build !(linux || darwin)

package fontfind

// mapFont maps nothing on this system: MapFace reads the file.
func mapFont(string) ([]byte, bool) { return nil, false }
