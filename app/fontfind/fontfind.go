package fontfind

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/image/font/sfnt"
)

// ErrNotFound is returned (wrapped) by Family when no installed font has
// the family name.
var ErrNotFound = errors.New("font family not installed")

// maxFiles bounds how many font files one scan opens.
const maxFiles = 20000

// Files are the installed faces of one family: file paths, "" when the
// family has no such face (a renderer then synthesises it from Regular).
// A face inside a collection file (.ttc/.otc) has a non-zero index in
// the matching *Index field; read faces with [ReadFace] (or [Files.Read]),
// which handles collections, rather than os.ReadFile.
type Files struct {
	Regular, Bold, Italic, BoldItalic string
	// Face indexes within collection files; 0 for single-font files.
	RegularIndex, BoldIndex, ItalicIndex, BoldItalicIndex int
}

// FontFiles is another name for [Files].
type FontFiles = Files

// Read returns the four faces' bytes (nil for a face that is not there)
// as [ReadFace] gives them. Only a missing or unreadable Regular face is
// an error; an unreadable styled face is left nil.
func (f Files) Read() (regular, bold, italic, boldItalic []byte, err error) {
	if f.Regular == "" {
		return nil, nil, nil, nil, errors.New("fontfind: the family has no regular face")
	}
	if regular, err = ReadFace(f.Regular, f.RegularIndex); err != nil {
		return nil, nil, nil, nil, err
	}
	read := func(p string, i int) []byte {
		if p == "" {
			return nil
		}
		b, _ := ReadFace(p, i)
		return b
	}
	return regular, read(f.Bold, f.BoldIndex), read(f.Italic, f.ItalicIndex), read(f.BoldItalic, f.BoldItalicIndex), nil
}

// Dirs returns the font directories of goos, system ones first: on Linux
// and other Unix systems /usr/share/fonts, /usr/local/share/fonts,
// $XDG_DATA_HOME/fonts (else ~/.local/share/fonts) and ~/.fonts; on macOS
// /System/Library/Fonts, /Library/Fonts and ~/Library/Fonts; on Windows
// %WINDIR%\Fonts and %LOCALAPPDATA%\Microsoft\Windows\Fonts. Directories
// whose variable is unset are left out; whether they exist is not checked.
func Dirs(getenv func(string) string, goos string) []string {
	home := getenv("HOME")
	var out []string
	add := func(ok bool, parts ...string) {
		if ok {
			out = append(out, filepath.Join(parts...))
		}
	}
	switch goos {
	case "windows":
		win := getenv("WINDIR")
		if win == "" {
			win = getenv("SystemRoot")
		}
		add(win != "", win, "Fonts")
		local := getenv("LOCALAPPDATA")
		add(local != "", local, "Microsoft", "Windows", "Fonts")
	case "darwin":
		add(true, "/System/Library/Fonts")
		add(true, "/Library/Fonts")
		add(home != "", home, "Library", "Fonts")
	default:
		add(true, "/usr/share/fonts")
		add(true, "/usr/local/share/fonts")
		if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
			add(true, d, "fonts")
		} else {
			add(home != "", home, ".local", "share", "fonts")
		}
		add(home != "", home, ".fonts")
	}
	return out
}

// face is one scanned font face.
type face struct {
	path  string
	index int // in its collection
	// names are the (family, subfamily) pairs it answers to, lower case:
	// the typographic pair when present, and the legacy pair.
	names [][2]string
}

// Finder finds fonts in a list of directories, scanning them once on
// first use. Create one with [NewFinder]; it is safe for concurrent use.
type Finder struct {
	dirs []string
	// fallbackFamilies are the families Fallbacks looks for, in order.
	fallbackFamilies []string

	once  sync.Once
	faces []face
}

// NewFinder returns a Finder over dirs (searched recursively, in order;
// symbolic links to files are followed, to directories not).
func NewFinder(dirs []string) *Finder {
	return &Finder{dirs: append([]string(nil), dirs...), fallbackFamilies: defaultFallbacks}
}

var (
	defaultOnce   sync.Once
	defaultFinder *Finder
)

// system returns the Finder over this system's font directories.
func system() *Finder {
	defaultOnce.Do(func() { defaultFinder = NewFinder(Dirs(os.Getenv, runtime.GOOS)) })
	return defaultFinder
}

// Family finds an installed font family by name in this system's font
// directories; see [Finder.Family].
func Family(name string) (Files, error) { return system().Family(name) }

// Fallbacks lists installed fonts useful as glyph fallbacks on this
// system; see [Finder.Fallbacks].
func Fallbacks() []string { return system().Fallbacks() }

// scan reads every font file's name table once.
func (f *Finder) scan() []face {
	f.once.Do(func() {
		seen := map[string]bool{}
		files := 0
		for _, dir := range f.dirs {
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					if d != nil && d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				if d.IsDir() || !fontExt(p) || files >= maxFiles {
					return nil
				}
				real, err := filepath.EvalSymlinks(p)
				if err != nil || seen[real] {
					return nil
				}
				seen[real] = true
				files++
				f.faces = append(f.faces, scanFile(p)...)
				return nil
			})
		}
	})
	return f.faces
}

func fontExt(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".ttf", ".otf", ".ttc", ".otc":
		return true
	}
	return false
}

// scanFile reads the names of every face in a font file. A file the sfnt
// parser refuses (as some collections with unaligned tables) is read whole
// and its faces rebuilt, as ReadFace does.
func scanFile(path string) []face {
	file, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer file.Close()
	var out []face
	var buf sfnt.Buffer
	c, err := sfnt.ParseCollectionReaderAt(file)
	if err != nil {
		return nil
	}
	var data []byte // read on demand for faces the parser refuses
	for i := range c.NumFonts() {
		fnt, err := c.Font(i)
		if err != nil {
			if data == nil {
				if data, err = readFile(path); err != nil {
					return out
				}
			}
			b, err := faceBytes(data, i)
			if err != nil {
				continue
			}
			if fnt, err = sfnt.Parse(b); err != nil {
				continue
			}
		}
		if fc, ok := faceOf(fnt, &buf); ok {
			fc.path, fc.index = path, i
			out = append(out, fc)
		}
	}
	return out
}

// faceOf reads a font's family and subfamily names.
func faceOf(fnt *sfnt.Font, buf *sfnt.Buffer) (face, bool) {
	name := func(id sfnt.NameID) string {
		s, err := fnt.Name(buf, id)
		if err != nil {
			return ""
		}
		return strings.ToLower(strings.Join(strings.Fields(s), " "))
	}
	var fc face
	if fam := name(sfnt.NameIDTypographicFamily); fam != "" {
		sub := name(sfnt.NameIDTypographicSubfamily)
		if sub == "" {
			sub = name(sfnt.NameIDSubfamily)
		}
		fc.names = append(fc.names, [2]string{fam, sub})
	}
	if fam := name(sfnt.NameIDFamily); fam != "" {
		fc.names = append(fc.names, [2]string{fam, name(sfnt.NameIDSubfamily)})
	}
	return fc, len(fc.names) > 0
}

// style classes of a subfamily name.
type style struct {
	bold, italic bool
	// rank says how well the weight fits the slot (0 best); -1 means the
	// face cannot fill a regular or bold slot (a condensed or light
	// face, say) except as the last resort for Regular.
	rank int
}

// classify reads a subfamily name such as "Bold Oblique", "Book",
// "SemiBold Italic" or "Condensed".
func classify(sub string) style {
	var st style
	var weight []string
	for _, w := range strings.Fields(sub) {
		switch w {
		case "italic", "oblique", "slanted":
			st.italic = true
		default:
			weight = append(weight, w)
		}
	}
	switch strings.Join(weight, " ") {
	case "", "regular", "book", "normal", "roman", "plain":
		st.rank = 0
	case "medium":
		st.rank = 1
	case "bold":
		st.bold, st.rank = true, 0
	case "semibold", "semi bold", "demibold", "demi bold", "extrabold", "extra bold", "heavy":
		st.bold, st.rank = true, 1
	default:
		st.rank = -1
	}
	return st
}

// Family finds the installed family name (matched case-insensitively,
// with runs of spaces collapsed, against the typographic and legacy
// family names) and returns its Regular, Bold, Italic and Bold Italic
// faces. When the family has no plain regular face, the closest upright
// face fills Regular (a "Medium" one, else any, such as "Light"). Among
// equal candidates a single-font file is preferred to a collection, then
// the shorter path, then the first in path order. It fails with an error
// wrapping ErrNotFound when no face of the family is installed.
func (f *Finder) Family(name string) (Files, error) {
	want := strings.ToLower(strings.Join(strings.Fields(name), " "))
	if want == "" {
		return Files{}, fmt.Errorf("fontfind: empty family name: %w", ErrNotFound)
	}
	type cand struct {
		fc face
		st style
	}
	var cands []cand
	for _, fc := range f.scan() {
		for _, n := range fc.names {
			if n[0] == want {
				cands = append(cands, cand{fc, classify(n[1])})
				break
			}
		}
	}
	if len(cands) == 0 {
		return Files{}, fmt.Errorf("fontfind: %q: %w", name, ErrNotFound)
	}
	better := func(a, b cand) bool {
		ra, rb := a.st.rank, b.st.rank
		if ra < 0 {
			ra = 99
		}
		if rb < 0 {
			rb = 99
		}
		if ra != rb {
			return ra < rb
		}
		ca, cb := a.fc.index != 0 || isCollection(a.fc.path), b.fc.index != 0 || isCollection(b.fc.path)
		if ca != cb {
			return !ca
		}
		if len(a.fc.path) != len(b.fc.path) {
			return len(a.fc.path) < len(b.fc.path)
		}
		if a.fc.path != b.fc.path {
			return a.fc.path < b.fc.path
		}
		return a.fc.index < b.fc.index
	}
	pick := func(bold, italic, lastResort bool) (string, int) {
		var best *cand
		for i := range cands {
			c := &cands[i]
			if c.st.italic != italic || (c.st.rank < 0 && !lastResort) || (c.st.rank >= 0 && c.st.bold != bold) {
				continue
			}
			if best == nil || better(*c, *best) {
				best = c
			}
		}
		if best == nil {
			return "", 0
		}
		return best.fc.path, best.fc.index
	}
	var out Files
	out.Regular, out.RegularIndex = pick(false, false, true)
	if out.Regular == "" {
		// Only slanted faces: the least bad one is the regular face.
		sort.SliceStable(cands, func(i, j int) bool { return better(cands[i], cands[j]) })
		out.Regular, out.RegularIndex = cands[0].fc.path, cands[0].fc.index
	}
	out.Bold, out.BoldIndex = pick(true, false, false)
	out.Italic, out.ItalicIndex = pick(false, true, false)
	out.BoldItalic, out.BoldItalicIndex = pick(true, true, false)
	return out, nil
}

func isCollection(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".ttc", ".otc":
		return true
	}
	return false
}

// defaultFallbacks are the families Fallbacks looks for: one CJK font
// (the first found), then symbol fonts. Colour emoji fonts stored as
// bitmaps (Noto Color Emoji, Apple Color Emoji) are left out: the
// renderer draws outlines only.
var defaultFallbacks = []string{
	cjk + "Noto Sans Mono CJK SC", cjk + "Noto Sans CJK SC", cjk + "Noto Sans Mono CJK JP", cjk + "Noto Sans CJK JP",
	cjk + "Source Han Sans SC", cjk + "Source Han Sans",
	cjk + "WenQuanYi Zen Hei Mono", cjk + "WenQuanYi Micro Hei Mono", cjk + "WenQuanYi Micro Hei", cjk + "WenQuanYi Zen Hei",
	cjk + "Droid Sans Fallback",
	cjk + "PingFang SC", cjk + "Hiragino Sans", cjk + "Microsoft YaHei", cjk + "MS Gothic",
	"DejaVu Sans", "Noto Sans Symbols 2", "Noto Sans Symbols", "Noto Sans Math",
	"Symbola", "Segoe UI Symbol", "Apple Symbols", "Noto Emoji", "Segoe UI Emoji",
}

// cjk marks a family of the CJK group, of which only the first installed
// one is used.
const cjk = "cjk:"

// Fallbacks returns the paths of installed fonts worth trying, in order,
// for characters the terminal font lacks: one CJK font (Noto Sans CJK,
// Source Han Sans, WenQuanYi, Droid Sans Fallback, or the platform's) and
// the symbol fonts found (DejaVu Sans, Noto Sans Symbols, Symbola, Segoe
// UI Symbol, …), each family's regular face. Only faces that ReadFace can
// read with index 0 are listed (a family found only deeper in a
// collection is skipped). It returns nil when none is installed.
func (f *Finder) Fallbacks() []string {
	var out []string
	haveCJK := false
	seen := map[string]bool{}
	for _, fam := range f.fallbackFamilies {
		isCJK := strings.HasPrefix(fam, cjk)
		if isCJK && haveCJK {
			continue
		}
		files, err := f.Family(strings.TrimPrefix(fam, cjk))
		if err != nil || files.RegularIndex != 0 || seen[files.Regular] {
			continue
		}
		seen[files.Regular] = true
		out = append(out, files.Regular)
		haveCJK = haveCJK || isCJK
	}
	return out
}
