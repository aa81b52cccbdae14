package terminal

import (
	"bytes"
	"regexp/syntax"
)

// finder finds a literal in text, optionally ignoring ASCII case, without
// copying or lower-casing the text: it looks for the literal's rarest
// byte (both cases of a folded letter) with bytes.IndexByte, which reads
// many bytes an instruction, and compares the literal around each one
// found. The zero value is not usable; it is immutable once made.
type finder struct {
	lit   []byte // lower-cased when fold
	fold  bool   // ignore ASCII case (lit is ASCII)
	pivot int    // index in lit of the byte looked for
}

// newFinder returns a finder of lit (fold: ignoring ASCII case; lit must
// then be ASCII).
func newFinder(lit []byte, fold bool) *finder {
	f := &finder{lit: bytes.Clone(lit), fold: fold}
	if fold {
		f.lit = bytes.ToLower(f.lit)
	}
	best := -1
	for i, c := range f.lit {
		cost := int(byteCost[c])
		if fold && c >= 'a' && c <= 'z' {
			cost += int(byteCost[c-'a'+'A'])
		}
		if best < 0 || cost < best {
			best, f.pivot = cost, i
		}
	}
	return f
}

// byteCost ranks bytes by how often they occur in terminal text (English
// words, code, numbers): the finder looks for the cheapest byte of its
// literal.
var byteCost = func() (t [256]uint8) {
	for c := range t {
		t[c] = 3 // punctuation, controls, UTF-8
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 2
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 8
	}
	// English letter frequencies, most common first.
	for i, c := range "etaoinsrhldcumwfgypbvkjxqz" {
		t[c] = uint8(60 - 2*i)
	}
	t[' '] = 100
	t['-'], t['_'], t['.'], t['/'], t[':'] = 6, 6, 6, 6, 6
	return t
}()

// index returns the offset of the first occurrence of the literal in hay,
// or -1.
func (f *finder) index(hay []byte) int {
	n, p := len(f.lit), f.pivot
	if len(hay) < n {
		return -1
	}
	c := f.lit[p]
	if !f.fold || c < 'a' || c > 'z' {
		for i := p; i < len(hay); {
			j := bytes.IndexByte(hay[i:], c)
			if j < 0 {
				return -1
			}
			if at := i + j - p; at+n <= len(hay) && f.equal(hay[at:at+n]) {
				return at
			}
			i += j + 1
		}
		return -1
	}
	// A folded letter: the next lower-case and the next upper-case one.
	up := c - 'a' + 'A'
	lo, hi := -2, -2 // next offsets at or after i; -1 none left
	for i := p; i < len(hay); {
		if lo != -1 && lo < i {
			lo = indexFrom(hay, c, i)
		}
		if hi != -1 && hi < i {
			hi = indexFrom(hay, up, i)
		}
		j := lo
		switch {
		case lo < 0 && hi < 0:
			return -1
		case lo < 0 || (hi >= 0 && hi < lo):
			j = hi
		}
		if at := j - p; at >= 0 && at+n <= len(hay) && f.equal(hay[at:at+n]) {
			return at
		}
		i = j + 1
	}
	return -1
}

// indexFrom returns the offset of the first c in b at or after i, or -1.
func indexFrom(b []byte, c byte, i int) int {
	j := bytes.IndexByte(b[i:], c)
	if j < 0 {
		return -1
	}
	return i + j
}

// equal reports whether b (as long as the literal) is the literal.
func (f *finder) equal(b []byte) bool {
	if !f.fold {
		return bytes.Equal(b, f.lit)
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != f.lit[i] {
			return false
		}
	}
	return true
}

// requiredLiteral returns a literal text that every match of the regular
// expression expr holds (see [RequiredLiteral]); "" when there is none it
// can use as a prefilter (a folded literal that is not ASCII is not used).
func requiredLiteral(expr string) (string, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	lit, fold := RequiredLiteral(re.Simplify())
	if fold && !isASCII([]byte(lit)) {
		return "", false
	}
	return lit, fold
}

// RequiredLiteral returns the longest literal text that every match of
// the parsed (and simplified) regular expression re holds, and whether
// the expression matches it ignoring case (the parser upper-cases such a
// literal); "" when it finds none. A search can look for the literal
// first, and run the expression only where it occurs.
func RequiredLiteral(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return RequiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return RequiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best string
		var fold bool
		for _, sub := range re.Sub {
			if lit, f := RequiredLiteral(sub); len(lit) > len(best) && (!f || isASCII([]byte(lit))) {
				best, fold = lit, f
			}
		}
		return best, fold
	}
	return "", false
}
