package vtrelay

import (
	"bytes"
	"strconv"
)

// outScanner follows vttest's output as a terminal's parser would, far
// enough to know where control sequences end (so the relay's own request
// is never put inside one), to count vttest's CSI 5 n requests and to
// keep the printed text without control sequences. The zero value is at
// the start of a stream.
type outScanner struct {
	state    int
	utf8Need int    // continuation bytes still due in ground state
	seq      []byte // the CSI being read: parameters and intermediates
}

const (
	stGround = iota
	stEsc
	stEscInter // ESC followed by intermediate bytes (ESC ( B, ESC # 8)
	stCSI
	stString    // DCS, OSC, SOS, PM, APC: until ST (or BEL)
	stStringEsc // ESC inside a string: ST if "\" follows
)

// ground reports whether the stream is between sequences and characters.
func (s *outScanner) ground() bool { return s.state == stGround && s.utf8Need == 0 }

// feed scans p. For each CSI 5 n it calls dsr; printable text (and line
// feeds) go to text.
func (s *outScanner) feed(p []byte, dsr func(), text *[]byte) {
	for _, b := range p {
		switch s.state {
		case stGround:
			switch {
			case b == 0x1b:
				s.state, s.utf8Need = stEsc, 0
			case b == '\n':
				*text = append(*text, '\n')
				s.utf8Need = 0
			case b < 0x20 || b == 0x7f:
				s.utf8Need = 0
			case b < 0x80:
				*text = append(*text, b)
				s.utf8Need = 0
			case b >= 0xc0:
				*text = append(*text, b)
				switch {
				case b >= 0xf0:
					s.utf8Need = 3
				case b >= 0xe0:
					s.utf8Need = 2
				default:
					s.utf8Need = 1
				}
			default: // a continuation byte
				*text = append(*text, b)
				if s.utf8Need > 0 {
					s.utf8Need--
				}
			}
		case stEsc:
			switch {
			case b == '[':
				s.state, s.seq = stCSI, s.seq[:0]
			case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
				s.state = stString
			case b >= 0x20 && b <= 0x2f:
				s.state = stEscInter
			case b == 0x1b:
			case b == 0x18 || b == 0x1a:
				s.state = stGround
			case b < 0x20:
				// C0 controls are executed inside sequences.
			default:
				s.state = stGround
			}
		case stEscInter:
			switch {
			case b == 0x1b:
				s.state = stEsc
			case b == 0x18 || b == 0x1a:
				s.state = stGround
			case b >= 0x30 && b <= 0x7e:
				s.state = stGround
			}
		case stCSI:
			switch {
			case b == 0x1b:
				s.state = stEsc
			case b == 0x18 || b == 0x1a:
				s.state = stGround
			case b >= 0x20 && b <= 0x3f:
				s.seq = append(s.seq, b)
			case b >= 0x40 && b <= 0x7e:
				if b == 'n' && string(s.seq) == "5" {
					dsr()
				}
				s.state = stGround
			}
		case stString:
			switch b {
			case 0x1b:
				s.state = stStringEsc
			case 0x07, 0x18, 0x1a:
				s.state = stGround
			}
		case stStringEsc:
			switch b {
			case '\\':
				s.state = stGround
			case 0x1b:
			default:
				// ESC ended the string and starts a sequence.
				s.state = stEsc
				s.feed([]byte{b}, dsr, text)
			}
		}
	}
}

// replyScanner splits what the terminal sends into answers to status
// requests (CSI 0 n), cursor position reports (CSI row ; col R) and
// everything else, across reads. It understands the 7-bit CSI and the
// 8-bit one, raw or UTF-8 encoded. The zero value is ready.
type replyScanner struct {
	pend []byte // an incomplete sequence from the previous read
}

// replyToken is one piece of the terminal's input.
type replyToken struct {
	raw      []byte
	dsrOK    bool // CSI 0 n
	cpr      bool // CSI row ; col R
	row, col int
}

// feed returns the complete tokens in pend+p, in order, keeping an
// incomplete sequence at the end for the next call.
func (s *replyScanner) feed(p []byte) []replyToken {
	buf := append(s.pend, p...)
	s.pend = nil
	var out []replyToken
	plain := 0 // start of bytes not yet emitted
	flush := func(end int) {
		if end > plain {
			out = append(out, replyToken{raw: buf[plain:end]})
		}
	}
	for i := 0; i < len(buf); {
		n := introducer(buf[i:])
		if n == 0 {
			i++
			continue
		}
		if n < 0 { // an introducer cut short by the end of the read
			flush(i)
			s.pend = append([]byte(nil), buf[i:]...)
			return out
		}
		j := i + n
		for j < len(buf) && buf[j] >= 0x20 && buf[j] <= 0x3f {
			j++
		}
		if j == len(buf) {
			flush(i)
			s.pend = append([]byte(nil), buf[i:]...)
			return out
		}
		if buf[j] < 0x40 || buf[j] > 0x7e { // not a CSI after all
			i = j
			continue
		}
		params, final := buf[i+n:j], buf[j]
		tok := replyToken{raw: buf[i : j+1]}
		switch {
		case final == 'n' && string(params) == "0":
			tok.dsrOK = true
		case final == 'R':
			if r, c, ok := bytes.Cut(params, []byte(";")); ok {
				row, err1 := strconv.Atoi(string(r))
				col, err2 := strconv.Atoi(string(c))
				if err1 == nil && err2 == nil {
					tok.cpr, tok.row, tok.col = true, row, col
				}
			}
		}
		if tok.dsrOK || tok.cpr {
			flush(i)
			out = append(out, tok)
			plain = j + 1
		}
		i = j + 1
	}
	flush(len(buf))
	return out
}

// introducer returns the length of the CSI introducer at the start of b
// (ESC [, 0x9b, or 0xc2 0x9b), 0 when b does not start with one, and -1
// when b is a prefix of one.
func introducer(b []byte) int {
	switch b[0] {
	case 0x1b:
		if len(b) == 1 {
			return -1
		}
		if b[1] == '[' {
			return 2
		}
	case 0x9b:
		return 1
	case 0xc2:
		if len(b) == 1 {
			return -1
		}
		if b[1] == 0x9b {
			return 2
		}
	}
	return 0
}
