package fontfind

// MapFace returns the bytes of face index of the font file at path, like
// ReadFace, but a single-font file the sfnt parser accepts as it is is
// mapped into memory read-only instead of read (on Linux and macOS): its
// pages are the file's, shared with the page cache and loaded only when
// touched, so a large fallback font (a CJK font is 4-20 MB) that the
// terminal consults for a few characters costs the process almost nothing
// until it draws them, and that little can be evicted. The mapping lives
// as long as the process. Collections, fonts that need rewriting and
// other systems get ReadFace's copy.
//
// A font file truncated in place while mapped would fault on access;
// package managers replace font files by renaming a new file over the
// old one, which leaves the mapped copy intact.
func MapFace(path string, index int) ([]byte, error) {
	if index == 0 {
		if data, ok := mapFont(path); ok {
			return data, nil
		}
	}
	return ReadFace(path, index)
}
