// Package tomlquote writes TOML basic strings, for the few TOML values
// Paneflow produces: the MCP entry in Codex's config.toml (mcpinstall) and
// the hooks the launch shim hands Codex with -c (shim). It is a leaf:
// standard library only.
package tomlquote

import (
	"fmt"
	"strings"
)

// String quotes s as a TOML basic string: '"' and '\' are escaped, and so
// is every control character (as \uXXXX, upper-case hex; TOML readers take
// either case, and Codex's hook trust hash is taken over the decoded
// value, not over these bytes). Everything else, including non-ASCII
// text, is written as it is.
func String(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
