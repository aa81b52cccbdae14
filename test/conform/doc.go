// Package conform is Paneflow's terminal conformance suite: it runs vttest
// (Thomas Dickey's VT100/VT220/VT420/xterm test program, Debian's
// 2.7+20221229-1, installed by scripts/vttest.sh into a cache outside the
// clone) against the emulator of package terminal and checks every result
// page vttest shows.
//
// vttest runs under test/internal/vtrelay, which makes a run deterministic
// (vttest gets replies and keys only while it waits for input, and a page
// is read only once vttest waits with nothing in flight). The suite walks
// every menu entry except those listed in skipped and settingPrefixes
// (keyboard, VT52, printer, mouse and other interactive tests, with why),
// names each page after the entry ("11.4.2.8#1": menu 11, entry 4, ...,
// first page) and compares it (text, cursor, renditions, line sizes)
// with two recordings:
//
//   - testdata/paneflow: what the emulator showed when last reviewed; any
//     change fails the test (-update rewrites them);
//   - testdata/xterm: what real xterm 379 (Debian) shows for the same
//     run, recorded under Xvfb (-record-xterm). The pages that differ from
//     xterm must be exactly those DIFFERENCES.md lists, each with a
//     reason; the share that match is logged as the conformance figure.
//
// It needs Linux (the relay reads /proc) and, to record xterm's pages,
// xterm and Xvfb. It has no code besides its tests.
package conform
