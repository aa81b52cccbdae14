// Package render rasterises a terminal screen ([terminal.Snapshot]) into an
// [image.RGBA], for the desktop GUI's terminal widget (app/termview), which
// shows the image and calls [Renderer.Render] on every frame.
//
// Fyne's own text widgets cost one canvas object per cell or per run and
// cannot keep up with a full-screen program repainting a large grid, so the
// widget hands the whole grid to this package instead. A [Renderer] keeps a
// copy of the cells it drew per row and redraws only rows that changed
// (damage tracking); glyphs are rasterised once per (character, bold,
// italic) into alpha masks at cell size ([FontSet]) and coloured at blit
// time by a tight loop over the image's pixels.
//
// # What it draws
//
// Colours come from a [Palette] (default, the 16 ANSI colours, the xterm
// 256-colour cube and grey ramp, truecolor). Bold selects the bold face (or
// an emboldened regular face) and does not brighten colours; faint halves
// the foreground towards the background; italic selects the italic face (or
// a sheared regular face); inverse swaps foreground and background; hidden
// text draws only its background; blink is drawn steady. Underlines
// (single, double, curly, dotted, dashed, in the SGR 58 colour when set),
// strikethrough and overline are drawn as lines. Box-drawing characters
// (U+2500–U+257F) and block elements (U+2580–U+259F) are drawn
// procedurally so that they join across cells; other characters come from
// the regular font, then from the fallback fonts, and a character no font
// has is drawn as a hollow box. Grapheme clusters are drawn code point over
// code point without shaping, so an emoji sequence shows its first
// pictograph (in monochrome).
//
// [Overlay] adds what the widget owns: the selection, find-in-pane matches,
// a hovered link, the cursor's blink phase and focus, and the visual bell.
//
// This package does not import Fyne, reads no files and knows nothing of
// panes; the widget passes font bytes (Fyne bundles DejaVu Sans Mono) and
// snapshots.
package render
