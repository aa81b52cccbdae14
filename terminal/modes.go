package terminal

// MouseMode is the mouse-reporting mode a program enabled with DECSET
// 9, 1000, 1002 or 1003. Its zero value, [MouseOff], reports nothing.
type MouseMode uint8

const (
	MouseOff    MouseMode = iota // no reporting
	MouseX10                     // 9: button presses only, no modifiers
	MouseNormal                  // 1000: presses and releases
	MouseDrag                    // 1002: presses, releases and drags with a button held
	MouseAny                     // 1003: all motion
)

// MouseEncoding is how mouse reports are encoded (DECSET 1005, 1006, 1015).
// Its zero value, [MouseEncX10], is the legacy "CSI M Cb Cx Cy" byte form.
type MouseEncoding uint8

const (
	MouseEncX10   MouseEncoding = iota // CSI M followed by three bytes (coordinates ≤ 223)
	MouseEncUTF8                       // 1005: coordinates as UTF-8
	MouseEncSGR                        // 1006: CSI < b ; x ; y M/m
	MouseEncURXVT                      // 1015: CSI b ; x ; y M
)

// InputModes are the modes a program running in the terminal set that
// change how keyboard, paste, mouse and focus input must be encoded.
// The zero value is the state of a freshly reset terminal.
type InputModes struct {
	AppCursor      bool          // DECCKM (?1): arrows/home/end send SS3 (ESC O x)
	AppKeypad      bool          // DECKPAM (ESC =): keypad sends application sequences
	BracketedPaste bool          // ?2004: pastes are wrapped in ESC[200~ … ESC[201~
	FocusEvents    bool          // ?1004: focus in/out are reported as ESC[I / ESC[O
	Mouse          MouseMode     // which mouse events are reported
	MouseEnc       MouseEncoding // how they are encoded
	AltScroll      bool          // ?1007: wheel sends arrow keys on the alternate screen
	KittyKeys      uint8         // kitty keyboard protocol flags in effect (CSI > u, CSI = u); only [KittyDisambiguate] is ever set
}

// KittyDisambiguate is the kitty keyboard protocol's first progressive
// enhancement, "disambiguate escape codes": Escape and keys with Ctrl or
// Alt are sent as "CSI code ; mods u", so a lone Escape, Ctrl+I and Tab,
// Ctrl+M and Enter, Shift+Enter and Enter are told apart. It is the only
// flag Paneflow honours; programs that ask for more get this one, and
// the query (CSI ? u) tells them so.
const KittyDisambiguate uint8 = 1
