// Package fontfind finds installed fonts by family name, for the terminal
// font setting (font_family) and for glyph fallbacks (CJK, symbols).
//
// It scans the platform's font directories (see [Dirs]) for TrueType and
// OpenType files and collections, and matches families case-insensitively
// against the fonts' own name tables (the typographic family and
// subfamily when a font has them, else the legacy family and subfamily),
// never against file names. A family's Regular, Bold, Italic and Bold
// Italic faces are picked from the subfamily names ("Book", "Oblique" and
// the like count too). The scan is done once per [Finder] and cached.
//
// [ReadFace] returns a face's bytes ready for golang.org/x/image's sfnt
// parser: a face inside a collection (.ttc/.otc) is extracted as a
// standalone font, and table layouts that parser refuses (tables not
// aligned on four bytes, as in some collections) are repaired.
//
// The package reads files only; it renders nothing, uses no toolkit and
// does not ask the system's font service (fontconfig, CoreText,
// DirectWrite), so it finds only fonts in the directories it scans.
//
// # Concurrency
//
// A Finder and the package-level functions are safe for concurrent use;
// the first call scans (tens of milliseconds to a few seconds with many
// fonts installed), later ones use the cache.
package fontfind
