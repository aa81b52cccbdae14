package flow

import (
	"regexp"
	"strconv"
	"strings"
)

// Location is where in a spec's text an error of [ParseWorkspace],
// [ParseFlow], [ResolveWorkspace] or [ResolveFlow] points: a 1-based line
// (0 when it cannot tell) and the key it is about ("" when none).
type Location struct {
	Line  int
	Field string
}

var (
	lineRE    = lazyRE("^line ([0-9]+): ")
	paneRE    = lazyRE(`^pane ([0-9]+): `)
	stepRE    = lazyRE(`^(?:step|unit) '([^'\[]*)(?:\[[^']*\])?': `)
	dupStepRE = lazyRE(`^duplicate step id '([^']*)'`)
	tickRE    = lazyRE("`([A-Za-z_.]+)`")
	dottedRE  = lazyRE(`\b(ready|capture|send|defaults)\.([a-z_]+)`)
)

// fieldWords maps words of an error message to the key it is about, for
// messages that do not quote the key.
var fieldWords = []struct{ word, field string }{
	{"unknown agent", "agent"}, {"agent '", "agent"}, {"cwd '", "cwd"},
	{"branch '", "worktree"}, {"worktree '", "worktree"}, {"git ", "worktree"},
	{"shell words", "command"}, {"unknown dependency", "needs"}, {"depends on itself", "needs"},
	{"foreach", "foreach"}, {"capture var", "var"}, {"layout must", "layout"},
	{"port_base", "port_base"}, {"too many panes", "panes"},
}

// Locate finds where err, returned for the spec text data, points.
// Messages name a line ("line 7: …"), a pane ("pane 2: …", the 3rd
// [[panes]]) or a step ("step 'build': …", the [[step]] with that id);
// within that block the line assigning the key the message is about is
// preferred. Locate never fails: an error it cannot place gives line 0.
func Locate(data []byte, err error) Location {
	if err == nil {
		return Location{}
	}
	msg := err.Error()
	lines := strings.Split(string(data), "\n")
	field := fieldOf(msg)
	if m := lineRE().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return Location{Line: n, Field: field}
	}
	from, to := 0, len(lines) // the block searched, [from, to)
	found := false
	switch {
	case paneRE().MatchString(msg):
		n, _ := strconv.Atoi(paneRE().FindStringSubmatch(msg)[1])
		from, to, found = block(lines, "panes", func(k int, _, _ int) bool { return k == n })
	case stepRE().MatchString(msg):
		id := stepRE().FindStringSubmatch(msg)[1]
		from, to, found = block(lines, "step", func(_ int, a, b int) bool { return assigns(lines[a:b], "id", id) })
	case dupStepRE().MatchString(msg):
		id := dupStepRE().FindStringSubmatch(msg)[1]
		seen := 0
		from, to, found = block(lines, "step", func(_ int, a, b int) bool {
			if assigns(lines[a:b], "id", id) {
				seen++
			}
			return seen == 2
		})
		field = "id"
	}
	if field != "" {
		if l := keyIn(lines, from, to, field); l > 0 {
			return Location{Line: l, Field: field}
		}
	}
	if found {
		return Location{Line: from + 1, Field: field}
	}
	return Location{Field: field}
}

// fieldOf names the key msg is about: the last part of a `quoted` or
// dotted key, else one known from the wording; "" when none.
func fieldOf(msg string) string {
	if m := tickRE().FindStringSubmatch(msg); m != nil {
		k := m[1]
		return k[strings.LastIndex(k, ".")+1:]
	}
	if m := dottedRE().FindStringSubmatch(msg); m != nil {
		return m[2]
	}
	for _, w := range fieldWords {
		if strings.Contains(msg, w.word) {
			return w.field
		}
	}
	return ""
}

// block finds the [[name]] table for which match (given its 0-based
// index and its line range) is true; it returns the 0-based lines
// [from, to) from its header to the next table header of the same depth
// or shallower.
func block(lines []string, name string, match func(k, from, to int) bool) (from, to int, ok bool) {
	var starts []int
	for i, l := range lines {
		if m := headerRE().FindStringSubmatch(l); m != nil && strings.HasPrefix(strings.TrimSpace(l), "[[") && strings.TrimSpace(m[1]) == name {
			starts = append(starts, i)
		}
	}
	for k, s := range starts {
		end := len(lines)
		for j := s + 1; j < len(lines); j++ {
			m := headerRE().FindStringSubmatch(lines[j])
			if m != nil && !strings.HasPrefix(strings.TrimSpace(m[1]), name+".") {
				end = j
				break
			}
		}
		if match(k, s, end) {
			return s, end, true
		}
	}
	return 0, len(lines), false
}

// assigns reports whether lines set key to the string value.
func assigns(lines []string, key, value string) bool {
	re := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=\s*["']` + regexp.QuoteMeta(value) + `["']`)
	for _, l := range lines {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// keyIn returns the 1-based line in [from, to) that assigns key (or opens
// a table ending in it), 0 when none does.
func keyIn(lines []string, from, to int, key string) int {
	assign := regexp.MustCompile(`(^|[\s{,.])"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for i := from; i < to && i < len(lines); i++ {
		l := lines[i]
		if m := headerRE().FindStringSubmatch(l); m != nil {
			if p := strings.Split(m[1], "."); strings.TrimSpace(p[len(p)-1]) == key {
				return i + 1
			}
			continue
		}
		if assign.MatchString(l) {
			return i + 1
		}
	}
	return 0
}
