package termview

import (
	"runtime"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/paneflow-go/paneflow/terminal"
)

// How keys reach the View (Fyne 2.7's GLFW driver): every press first
// calls KeyDown (not for auto-repeat). Then a press with Ctrl, Alt or
// Super held, and Shift+Insert/Delete, becomes a shortcut (TypedShortcut):
// the secondary modifier (Ctrl; Cmd on macOS) with Z Y V C Insert X A
// arrives as fyne.ShortcutUndo … ShortcutSelectAll, everything else as a
// *desktop.CustomShortcut. Otherwise TypedKey follows, with no modifier
// information (the View tracks them), and for a character key TypedRune
// follows TypedKey. Tab reaches TypedKey because the View accepts tabs.

// namedKeys maps Fyne key names to the terminal keys EncodeKey knows.
var namedKeys = map[fyne.KeyName]terminal.Key{
	fyne.KeyReturn:    terminal.KeyEnter,
	fyne.KeyEnter:     terminal.KeyKPEnter,
	fyne.KeyTab:       terminal.KeyTab,
	fyne.KeyEscape:    terminal.KeyEscape,
	fyne.KeyBackspace: terminal.KeyBackspace,
	fyne.KeySpace:     terminal.KeySpace,
	fyne.KeyUp:        terminal.KeyUp,
	fyne.KeyDown:      terminal.KeyDown,
	fyne.KeyLeft:      terminal.KeyLeft,
	fyne.KeyRight:     terminal.KeyRight,
	fyne.KeyHome:      terminal.KeyHome,
	fyne.KeyEnd:       terminal.KeyEnd,
	fyne.KeyPageUp:    terminal.KeyPageUp,
	fyne.KeyPageDown:  terminal.KeyPageDown,
	fyne.KeyInsert:    terminal.KeyInsert,
	fyne.KeyDelete:    terminal.KeyDelete,
	fyne.KeyF1:        terminal.KeyF1,
	fyne.KeyF2:        terminal.KeyF2,
	fyne.KeyF3:        terminal.KeyF3,
	fyne.KeyF4:        terminal.KeyF4,
	fyne.KeyF5:        terminal.KeyF5,
	fyne.KeyF6:        terminal.KeyF6,
	fyne.KeyF7:        terminal.KeyF7,
	fyne.KeyF8:        terminal.KeyF8,
	fyne.KeyF9:        terminal.KeyF9,
	fyne.KeyF10:       terminal.KeyF10,
	fyne.KeyF11:       terminal.KeyF11,
	fyne.KeyF12:       terminal.KeyF12,
}

// isMac reports whether Cmd is the secondary modifier.
var isMac = runtime.GOOS == "darwin"

// secondaryMod is Ctrl on Linux/Windows and Cmd (Super) on macOS: the
// modifier of copy/paste chords and of link clicks.
const secondaryMod = fyne.KeyModifierShortcutDefault

// keyEvent turns a Fyne key name and modifiers into a terminal key event;
// ok is false for keys the terminal has no encoding for (modifier keys,
// unknown names).
func keyEvent(name fyne.KeyName, mods fyne.KeyModifier) (terminal.KeyEvent, bool) {
	ev := terminal.KeyEvent{Mods: termMods(mods)}
	if k, ok := namedKeys[name]; ok {
		ev.Key = k
		return ev, true
	}
	r, size := utf8.DecodeRuneInString(string(name))
	if size == 0 || size != len(name) || !unicode.IsPrint(r) {
		return ev, false
	}
	ev.Rune = unicode.ToLower(r)
	return ev, true
}

// printableKey reports whether a key types a character (delivered again
// through TypedRune).
func printableKey(name fyne.KeyName) bool {
	if name == fyne.KeySpace {
		return true
	}
	r, size := utf8.DecodeRuneInString(string(name))
	return size > 0 && size == len(name) && unicode.IsPrint(r)
}

// termMods converts Fyne modifiers.
func termMods(m fyne.KeyModifier) terminal.Mod {
	var t terminal.Mod
	if m&fyne.KeyModifierShift != 0 {
		t |= terminal.ModShift
	}
	if m&fyne.KeyModifierAlt != 0 {
		t |= terminal.ModAlt
	}
	if m&fyne.KeyModifierControl != 0 {
		t |= terminal.ModCtrl
	}
	if m&fyne.KeyModifierSuper != 0 {
		t |= terminal.ModSuper
	}
	return t
}

// ModifierOf returns the modifier a modifier key (left or right Shift,
// Control, Alt, Super) holds, 0 for other keys: widgets that track held
// modifiers from desktop.Keyable events share it.
func ModifierOf(name fyne.KeyName) fyne.KeyModifier {
	switch name {
	case desktop.KeyShiftLeft, desktop.KeyShiftRight:
		return fyne.KeyModifierShift
	case desktop.KeyControlLeft, desktop.KeyControlRight:
		return fyne.KeyModifierControl
	case desktop.KeyAltLeft, desktop.KeyAltRight:
		return fyne.KeyModifierAlt
	case desktop.KeySuperLeft, desktop.KeySuperRight:
		return fyne.KeyModifierSuper
	}
	return 0
}

// modsLocked returns the modifiers held now: the driver's view when it
// has one (GLFW), else what KeyDown/KeyUp tracked.
func (v *View) modsLocked() fyne.KeyModifier {
	if a := fyne.CurrentApp(); a != nil {
		if d, ok := a.Driver().(desktop.Driver); ok {
			return d.CurrentKeyModifiers()
		}
	}
	return v.mods
}

// KeyDown tracks modifiers (desktop.Keyable).
func (v *View) KeyDown(ev *fyne.KeyEvent) {
	v.echo.key()
	v.noteInput()
	v.mu.Lock()
	defer v.mu.Unlock()
	v.suppressRune = false
	v.lastKeyDown = ev.Name
	v.clearMarkLocked()
	if m := ModifierOf(ev.Name); m != 0 {
		v.mods |= m
		if m == secondaryMod {
			v.updateLinkLocked(v.modsLocked() | m)
		}
	}
}

// noteInput calls Options.OnInput.
func (v *View) noteInput() {
	if v.opts.OnInput != nil {
		v.opts.OnInput()
	}
}

// KeyUp tracks modifiers (desktop.Keyable).
func (v *View) KeyUp(ev *fyne.KeyEvent) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if m := ModifierOf(ev.Name); m != 0 {
		v.mods &^= m
		if m == secondaryMod {
			v.updateLinkLocked(v.modsLocked() &^ m)
		}
	}
}

// AcceptsTab keeps Tab for the terminal instead of moving focus.
func (v *View) AcceptsTab() bool { return true }

// FocusGained reports focus to the program when it asked (DECSET 1004)
// and calls Options.OnFocus. Repeated calls report once.
func (v *View) FocusGained() {
	v.mu.Lock()
	if !v.focused {
		if b := terminal.EncodeFocus(true, v.modesLocked()); b != nil {
			_ = v.pane.SendInput(b)
		}
	}
	v.focused = true
	v.lastInput = timeNow()
	v.drawLocked()
	v.mu.Unlock()
	if v.opts.OnFocus != nil {
		v.opts.OnFocus()
	}
}

// FocusLost reports the loss to the program when it asked.
func (v *View) FocusLost() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.focused {
		if b := terminal.EncodeFocus(false, v.modesLocked()); b != nil {
			_ = v.pane.SendInput(b)
		}
	}
	v.focused = false
	v.mods = 0
	v.updateLinkLocked(0)
	v.drawLocked()
}

// TypedRune sends typed (or IME-composed) text, or gives it to copy
// mode.
func (v *View) TypedRune(r rune) {
	v.mu.Lock()
	if v.copy != nil && !v.suppressRune {
		v.mu.Unlock()
		v.copyKey(copyKey{r: r}) // never for the program
		return
	}
	defer v.mu.Unlock()
	if v.suppressRune {
		v.suppressRune = false
		return
	}
	if b, ok := terminal.EncodeKey(terminal.KeyEvent{Rune: r}, v.modesLocked()); ok {
		v.sendLocked(b)
	}
}

// TypedKey handles keys without Ctrl/Alt/Super (those arrive as
// shortcuts): Options.Keys first, then the built-in Shift+PageUp/PageDown
// scrolling on the main screen, then the program.
func (v *View) TypedKey(ev *fyne.KeyEvent) {
	v.mu.Lock()
	mods := v.modsLocked()
	inCopy := v.copy != nil
	v.mu.Unlock()
	if inCopy {
		// Copy mode first; its characters arrive through TypedRune;
		// nothing reaches the program.
		if !printableKey(ev.Name) && !v.copyKey(copyKey{name: ev.Name}) && v.opts.Keys != nil {
			v.opts.Keys(ev.Name, mods)
		}
		return
	}
	if v.opts.Keys != nil && v.opts.Keys(ev.Name, mods) {
		if printableKey(ev.Name) {
			v.mu.Lock()
			v.suppressRune = true
			v.mu.Unlock()
		}
		return
	}
	if printableKey(ev.Name) {
		return // TypedRune sends it
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.keyLocked(ev.Name, mods)
}

// TypedShortcut handles key chords with Ctrl, Alt or Super:
// Options.Keys first, then copy (Ctrl+Shift+C, Cmd+C on macOS,
// Ctrl+Insert) and paste (Ctrl+Shift+V, Cmd+V, Shift+Insert), then the
// program. Ctrl+C and Ctrl+V on Linux/Windows go to the program.
func (v *View) TypedShortcut(s fyne.Shortcut) {
	ks, ok := s.(fyne.KeyboardShortcut)
	if !ok {
		return
	}
	name, mods := ks.Key(), ks.Mod()
	v.mu.Lock()
	if _, std := s.(*desktop.CustomShortcut); !std && (v.lastKeyDown == fyne.KeyInsert || v.lastKeyDown == fyne.KeyDelete) {
		// Fyne reports Ctrl+Insert as Copy, Shift+Insert as Paste and
		// Shift+Delete as Cut; keep the key the user pressed.
		name = v.lastKeyDown
		switch s.(type) {
		case *fyne.ShortcutPaste, *fyne.ShortcutCut:
			mods = fyne.KeyModifierShift
		case *fyne.ShortcutCopy:
			mods = fyne.KeyModifierControl
		}
	}
	inCopy := v.copy != nil
	v.mu.Unlock()
	if inCopy && mods == fyne.KeyModifierControl && v.copyKey(copyKey{name: name, ctrl: true}) {
		return
	}
	if v.opts.Keys != nil && v.opts.Keys(name, mods) {
		return
	}
	if inCopy {
		if isCopyChord(name, mods) {
			v.Copy()
		}
		return // nothing reaches the program
	}
	switch {
	case isCopyChord(name, mods):
		v.Copy()
	case isPasteChord(name, mods):
		v.Paste()
	default:
		v.mu.Lock()
		v.keyLocked(name, mods)
		v.mu.Unlock()
	}
}

// isCopyChord reports whether a chord copies the selection.
func isCopyChord(name fyne.KeyName, mods fyne.KeyModifier) bool {
	switch {
	case name == fyne.KeyC && mods == secondaryMod|fyne.KeyModifierShift:
		return true
	case name == fyne.KeyC && isMac && mods == fyne.KeyModifierSuper:
		return true
	case name == fyne.KeyInsert && mods == fyne.KeyModifierControl:
		return true
	}
	return false
}

// isPasteChord reports whether a chord pastes the clipboard.
func isPasteChord(name fyne.KeyName, mods fyne.KeyModifier) bool {
	switch {
	case name == fyne.KeyV && mods == secondaryMod|fyne.KeyModifierShift:
		return true
	case name == fyne.KeyV && isMac && mods == fyne.KeyModifierSuper:
		return true
	case name == fyne.KeyInsert && mods == fyne.KeyModifierShift:
		return true
	}
	return false
}

// keyLocked encodes a key for the program, after the built-in scrolling
// keys.
func (v *View) keyLocked(name fyne.KeyName, mods fyne.KeyModifier) {
	if mods == fyne.KeyModifierShift && !v.snap.AltScreen {
		switch name {
		case fyne.KeyPageUp:
			v.scrollByLocked(max(1, v.rows-1))
			return
		case fyne.KeyPageDown:
			v.scrollByLocked(-max(1, v.rows-1))
			return
		}
	}
	if printableKey(name) && composesText(mods) {
		return // the character arrives through TypedRune
	}
	ev, ok := keyEvent(name, mods)
	if !ok {
		return
	}
	if b, ok := terminal.EncodeKey(ev, v.modesLocked()); ok {
		v.sendLocked(b)
	}
}

// sendLocked sends input to the program and shows the live screen.
func (v *View) sendLocked(b []byte) {
	// Stamped first: the echo may come back before SendInput returns
	// (a pane on a server answers the call after the program has the
	// bytes), and a frame for output after input must not be paced.
	now := time.Now()
	v.inputAt.Store(now.UnixNano())
	if v.opts.Typing != nil {
		v.opts.Typing.typed(v, now)
	}
	_ = v.pane.SendInput(b) // a closed pane drops input; nothing to tell the user here
	v.echo.sent()
	v.inputLocked()
	v.leaveCopyLocked() // input for the program (a paste) ends copy mode
	if v.offset != 0 {
		v.scrollByLocked(-v.offset)
	}
}

// pasteLocked sends text as a paste.
func (v *View) pasteLocked(text string) {
	if b := terminal.EncodePaste(text, v.modesLocked()); len(b) > 0 {
		v.sendLocked(b)
	}
}

// modeReader is an optional Pane capability: the program's current input
// modes (terminal.Emulator.Modes). Without it the View encodes with the
// modes of its last frame, which may lag a mode change by one frame.
type modeReader interface {
	Modes() terminal.InputModes
}

// modesLocked returns the input modes to encode with.
func (v *View) modesLocked() terminal.InputModes {
	if m, ok := v.pane.(modeReader); ok {
		return m.Modes()
	}
	return v.snap.Modes
}

// composesText reports whether a chord on a character key types a
// character of the keyboard layout rather than a terminal chord: Option
// on macOS (Option is not Meta there by default) and AltGr on Windows,
// which the system reports as Ctrl+Alt. The character itself arrives
// through TypedRune.
func composesText(mods fyne.KeyModifier) bool {
	const ctrlAlt = fyne.KeyModifierControl | fyne.KeyModifierAlt
	switch runtime.GOOS {
	case "darwin":
		return mods&fyne.KeyModifierAlt != 0 && mods&(fyne.KeyModifierControl|fyne.KeyModifierSuper) == 0
	case "windows":
		return mods&ctrlAlt == ctrlAlt
	}
	return false
}
