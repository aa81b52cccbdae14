package flow

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// decodeStrict decodes TOML text into v and refuses keys v has no field
// for: the error names the first such key and the line it is on.
func decodeStrict(data []byte, v any) error {
	md, err := toml.Decode(string(data), v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return err
	}
	und := md.Undecoded()
	if len(und) == 0 {
		return nil
	}
	best, bestLine := und[0], 0
	for _, k := range und {
		if l := keyLine(string(data), k); l > 0 && (bestLine == 0 || l < bestLine) {
			best, bestLine = k, l
		}
	}
	if bestLine == 0 {
		return fmt.Errorf("unknown key `%s`", best)
	}
	return fmt.Errorf("line %d: unknown key `%s`", bestLine, best)
}

var headerRE = lazyRE(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)

// keyLine finds the 1-based line where key k is defined (0 if it cannot
// tell): a line under a table header that is a prefix of k's table, which
// names the rest of the path (for inline tables) and assigns k's last part.
func keyLine(text string, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	last := regexp.QuoteMeta(k[len(k)-1])
	assign := regexp.MustCompile(`(^|[\s{,.])"?` + last + `"?\s*=`)
	parent := k[:len(k)-1]
	var header []string
	for i, line := range strings.Split(text, "\n") {
		if m := headerRE().FindStringSubmatch(line); m != nil {
			header = nil
			for _, p := range strings.Split(m[1], ".") {
				header = append(header, strings.Trim(strings.TrimSpace(p), `"'`))
			}
			if len(header) == len(k) && strings.Join(header, ".") == k.String() {
				return i + 1 // the key is a table of its own
			}
			continue
		}
		if len(header) > len(parent) || strings.Join(header, ".") != strings.Join(parent[:len(header)], ".") {
			continue
		}
		rest := parent[len(header):]
		ok := assign.MatchString(line)
		for _, r := range rest {
			ok = ok && strings.Contains(line, r)
		}
		if ok {
			return i + 1
		}
	}
	return 0
}
