package terminal

// Character sets designated into G0-G3 (SCS: ESC ( ) * + for a
// 94-character set, ESC - . / for a 96-character one) and invoked into GL
// by SI, SO, LS2, LS3 or a single shift. Input is UTF-8, so only GL (the
// bytes 0x20-0x7f) is ever translated; GR is tracked for the reports.

// charset94 is the 94-character set SCS final f designates. Sets the
// emulator does not have are ASCII.
func charset94(f byte) charset {
	switch f {
	case '0':
		return charsetDECSpecial
	case 'A':
		return charsetUK
	case '<':
		return charsetDECSupp
	case '>':
		return charsetDECTechnical
	}
	return charsetASCII
}

// charset96 is the 96-character set SCS final f designates; ok is false
// for a set the emulator does not have (the designation is then ignored).
func charset96(f byte) (cs charset, ok bool) {
	if f == 'A' {
		return charsetLatin1, true
	}
	return charsetASCII, false
}

// is96 reports whether cs is a 96-character set: its 0x20 and 0x7f are
// graphic characters too, not space and DEL.
func (cs charset) is96() bool { return cs == charsetLatin1 }

// designator is cs's SCS final, as DECCIR reports it.
func (cs charset) designator() byte {
	switch cs {
	case charsetDECSpecial:
		return '0'
	case charsetUK, charsetLatin1:
		return 'A'
	case charsetDECSupp:
		return '<'
	case charsetDECTechnical:
		return '>'
	}
	return 'B'
}

// charsetByDesignator is the set a DECRSPS designator d names; 'A' is
// Latin-1 when the report said the set is a 96-character one, else the UK
// set. ok is false for a designator the emulator does not know.
func charsetByDesignator(d byte, is96 bool) (charset, bool) {
	switch d {
	case 'B', '0', '<', '>':
		return charset94(d), true
	case 'A':
		if is96 {
			return charsetLatin1, true
		}
		return charsetUK, true
	}
	return charsetASCII, false
}

// undefinedChar stands for a position a DEC set leaves undefined (xterm
// draws it as a reversed question mark too).
const undefinedChar = '\u2e2e'

// decSpecial maps ASCII 0x5f–0x7e to the DEC Special Graphics (line drawing) set.
var decSpecial = [...]rune{
	'_': ' ', '`': '◆', 'a': '▒', 'b': '␉', 'c': '␌', 'd': '␍', 'e': '␊', 'f': '°', 'g': '±',
	'h': '␤', 'i': '␋', 'j': '┘', 'k': '┐', 'l': '┌', 'm': '└', 'n': '┼', 'o': '⎺', 'p': '⎻',
	'q': '─', 'r': '⎼', 's': '⎽', 't': '├', 'u': '┤', 'v': '┴', 'w': '┬', 'x': '│', 'y': '≤',
	'z': '≥', '{': 'π', '|': '≠', '}': '£', '~': '·',
}

// decTechnical is the DEC Technical set's 0x21-0x7e (VT330/VT340
// manuals); positions with no Unicode equivalent (the large sigma's
// pieces) or none at all are undefinedChar.
var decTechnical = []rune("⎷┌─⌠⌡│⎡⎣⎤⎦⎧⎩⎫⎭⎨⎬" + // 0x21-0x30
	"\u2e2e\u2e2e\u2e2e\u2e2e\u2e2e\u2e2e\u2e2e\u2e2e\u2e2e\u2e2e\u2e2e" + // 0x31-0x3b
	"≤≠≥∫∴∝∞÷Δ∇ΦΓ∼≃Θ×Λ⇔⇒≡ΠΨ\u2e2eΣ\u2e2e\u2e2e√ΩΞΥ⊂⊃∩∪∧∨" + // 0x3c-0x5f
	"¬αβχδεφγηιθκλ\u2e2eν∂πψρστ\u2e2eƒωξυζ←↑→↓") // 0x60-0x7e

// translateCharset maps r (0x20-0x7f) through set cs.
func translateCharset(cs charset, r rune) rune {
	switch cs {
	case charsetDECSpecial:
		if r >= '_' && r <= '~' {
			return decSpecial[r]
		}
	case charsetUK:
		if r == '#' {
			return '£'
		}
	case charsetLatin1:
		if r >= 0x20 && r <= 0x7f {
			return r + 0x80
		}
	case charsetDECSupp:
		// Latin-1's upper half, but for the positions DEC filled
		// differently or left undefined.
		switch r {
		case 0x24, 0x26, 0x2c, 0x2d, 0x2e, 0x2f, 0x34, 0x38, 0x3e, 0x50, 0x5e, 0x70, 0x7e:
			return undefinedChar
		case 0x28:
			return '¤'
		case 0x57:
			return 'Œ'
		case 0x5d:
			return 'Ÿ'
		case 0x77:
			return 'œ'
		case 0x7d:
			return 'ÿ'
		}
		if r > 0x20 && r < 0x7f {
			return r + 0x80
		}
	case charsetDECTechnical:
		if r > 0x20 && r < 0x7f {
			return decTechnical[r-0x21]
		}
	}
	return r
}
