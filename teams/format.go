package teams

import (
	"strings"
)

// shortVars are tmux's one-letter format aliases (#D, #P, …).
var shortVars = map[byte]string{
	'D': "pane_id", 'P': "pane_index", 'S': "session_name", 'I': "window_index",
	'W': "window_name", 'T': "pane_title", 'F': "window_flags",
}

// expand expands a tmux format: #{name} from vars (unknown names, and
// modifiers Paneflow does not know, give ""), #{?cond,then,else}
// (cond true when not "" and not "0"; branches expanded), ## as #, the
// one-letter aliases #D #P #S #I #W #T; #[style] and anything else is
// copied as is. Tabs and other text pass through.
func expand(format string, vars func(string) string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '#' || i+1 == len(format) {
			b.WriteByte(ch)
			continue
		}
		next := format[i+1]
		switch {
		case next == '#':
			b.WriteByte('#')
			i++
		case next == '{':
			end := matchBrace(format, i+1)
			if end < 0 {
				b.WriteString(format[i:])
				return b.String()
			}
			b.WriteString(expandItem(format[i+2:end], vars))
			i = end
		case shortVars[next] != "":
			b.WriteString(vars(shortVars[next]))
			i++
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// matchBrace returns the index of the '}' closing the '{' at open, -1
// when there is none.
func matchBrace(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// expandItem expands the inside of one #{…}.
func expandItem(item string, vars func(string) string) string {
	if cond, ok := strings.CutPrefix(item, "?"); ok {
		parts := splitTop(cond)
		if len(parts) < 2 {
			return ""
		}
		v := expandValue(parts[0], vars)
		if v != "" && v != "0" {
			return expand(parts[1], vars)
		}
		if len(parts) > 2 {
			return expand(strings.Join(parts[2:], ","), vars)
		}
		return ""
	}
	return expandValue(item, vars)
}

// expandValue is a variable name, or a nested format, or "" for anything
// with modifiers (name:…).
func expandValue(s string, vars func(string) string) string {
	if strings.Contains(s, "#") {
		return expand(s, vars)
	}
	if strings.ContainsAny(s, ":{}") {
		return ""
	}
	return vars(s)
}

// splitTop splits s at commas outside #{…}.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
