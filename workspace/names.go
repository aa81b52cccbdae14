package workspace

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLen is the longest custom pane name, in characters.
const MaxNameLen = 64

// SanitizeName cleans a custom pane name (spec ipc.md surface.rename):
// surrounding space trimmed, control characters removed, cut to
// MaxNameLen characters, trimmed again. Invalid UTF-8 becomes U+FFFD.
func SanitizeName(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) {
			continue
		}
		if n == MaxNameLen {
			break
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

// Slugify lowercases s, keeps [a-z0-9._], turns every run of other
// characters into one "-", and drops leading and trailing dashes.
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// shellNames are programs named "shell" rather than after themselves.
var shellNames = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "fish": true, "nu": true, "nushell": true,
	"pwsh": true, "powershell": true, "dash": true, "ksh": true, "tcsh": true,
	"csh": true, "elvish": true, "xonsh": true, "cmd": true,
}

// baseName returns the last path component of p, splitting on both "/"
// and "\".
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// isShell reports whether argv0 names a shell (a login shell's leading "-"
// and Windows executable extensions are ignored).
func isShell(argv0 string) bool {
	n := strings.ToLower(strings.TrimPrefix(baseName(argv0), "-"))
	for _, ext := range []string{".exe", ".cmd", ".bat", ".com"} {
		n = strings.TrimSuffix(n, ext)
	}
	return shellNames[n]
}

// commandName derives a base name from a command line (spec ipc.md §13):
// "shell" for shells, else the program's basename joined with the
// basename of the first following argument that does not start with "-",
// slugified. It returns "" when nothing usable remains.
func commandName(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	if isShell(argv[0]) {
		return "shell"
	}
	name := baseName(argv[0])
	for _, a := range argv[1:] {
		if a != "" && !strings.HasPrefix(a, "-") {
			name += "-" + baseName(a)
			break
		}
	}
	return Slugify(name)
}

// titleName derives a base name from a window title: its first word's
// basename, slugified.
func titleName(title string) string {
	f := strings.Fields(title)
	if len(f) == 0 {
		return ""
	}
	return Slugify(baseName(f[0]))
}

// nameEntry is one surface's input to name resolution.
type nameEntry struct {
	custom string // user-given name, verbatim; "" = automatic
	base   string // automatic base name
	cwd    string // current directory, "" when unknown
}

// resolveNames gives every surface its display name (spec ipc.md §13):
// custom names are used verbatim; automatic names shared by several
// surfaces get "@<cwd basename>"; then custom names claim first, in
// order, then automatic ones, and a name already taken gets "-2", "-3", …
func resolveNames(entries []nameEntry) []string {
	autoCount := map[string]int{}
	for _, e := range entries {
		if e.custom == "" {
			autoCount[e.base]++
		}
	}
	want := make([]string, len(entries))
	for i, e := range entries {
		switch {
		case e.custom != "":
			want[i] = e.custom
		case autoCount[e.base] > 1 && e.cwd != "":
			if s := Slugify(baseName(strings.TrimRight(filepath.ToSlash(e.cwd), "/"))); s != "" {
				want[i] = e.base + "@" + s
			} else {
				want[i] = e.base
			}
		default:
			want[i] = e.base
		}
	}
	out := make([]string, len(entries))
	taken := map[string]bool{}
	// next[w] is the first suffix of want w not yet known to be taken:
	// taken only grows, so the search for the next pane wanting w starts
	// there (200 panes of one name cost 200 tries, not 20,000).
	next := map[string]int{}
	claim := func(i int) {
		name := want[i]
		if taken[name] {
			k := max(next[want[i]], 2)
			for name = want[i] + "-" + strconv.Itoa(k); taken[name]; {
				k++
				name = want[i] + "-" + strconv.Itoa(k)
			}
			next[want[i]] = k + 1
		}
		taken[name] = true
		out[i] = name
	}
	for i, e := range entries {
		if e.custom != "" {
			claim(i)
		}
	}
	for i, e := range entries {
		if e.custom == "" {
			claim(i)
		}
	}
	return out
}

// uniqueLabels suffixes repeated non-empty labels within one request with
// "-2", "-3", … (spec ipc.md workspace.up).
func uniqueLabels(labels []string) []string {
	out := make([]string, len(labels))
	seen := map[string]bool{}
	for i, l := range labels {
		if l == "" {
			continue
		}
		name := l
		for k := 2; seen[name]; k++ {
			name = l + "-" + strconv.Itoa(k)
			if utf8.RuneCountInString(name) > MaxNameLen {
				// Keep the suffix: shorten the label part.
				r := []rune(l)
				suffix := "-" + strconv.Itoa(k)
				name = string(r[:MaxNameLen-len(suffix)]) + suffix
			}
		}
		seen[name] = true
		out[i] = name
	}
	return out
}
