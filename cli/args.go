package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// flagKind says how a flag takes its value.
type flagKind int

const (
	boolFlag  flagKind = iota // present or absent; "--x=true|false" also accepted
	valueFlag                 // exactly one value, at most once
	listFlag                  // one value per occurrence, repeatable
)

// flagSpec declares one long flag of a verb.
type flagSpec struct {
	name  string   // without the leading "--"
	kind  flagKind //
	value string   // placeholder for the help text, e.g. "N"; empty for bool flags
	usage string   // one line for the help text
}

// input is a verb's command line after parsing: positional arguments in
// order and the flags that were given.
type input struct {
	verb  *verb // the verb being run, for its usage errors
	args  []string
	flags map[string][]string // flag name → values; bool flags hold "true"/"false"
}

// has reports whether the flag name was given at all.
func (in *input) has(name string) bool {
	_, ok := in.flags[name]
	return ok
}

// bool reports whether the bool flag name was given and not set to false.
func (in *input) bool(name string) bool {
	v := in.flags[name]
	return len(v) > 0 && v[len(v)-1] == "true"
}

// str returns the value of the value flag name and whether it was given.
func (in *input) str(name string) (string, bool) {
	v, ok := in.flags[name]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// list returns every value given for the list flag name, in order.
func (in *input) list(name string) []string { return in.flags[name] }

// errHelp is what parseArgs returns when the command line asks for the
// verb's help text.
var errHelp = fmt.Errorf("help requested")

// parseArgs parses a verb's arguments. Flags and positional arguments may be
// interleaved; "--" ends the flags, so a positional argument that starts with
// "-" is written after it. "-h" or "--help" before "--" returns errHelp.
// Every other problem is a usage error naming the verb.
func parseArgs(v *verb, args []string) (*input, error) {
	in := &input{verb: v, flags: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			in.args = append(in.args, args[i+1:]...)
			break
		}
		if a == "-h" || a == "--help" {
			return nil, errHelp
		}
		if len(a) < 2 || a[0] != '-' {
			in.args = append(in.args, a)
			continue
		}
		if !strings.HasPrefix(a, "--") {
			return nil, v.usageErrorf("unknown flag '%s'", a)
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		spec := v.flag(name)
		if spec == nil {
			return nil, v.usageErrorf("unknown flag '--%s'", name)
		}
		switch spec.kind {
		case boolFlag:
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return nil, v.usageErrorf("flag --%s takes no value, or true/false; got '%s'", name, value)
				}
				value = strconv.FormatBool(b)
			} else {
				value = "true"
			}
		case valueFlag, listFlag:
			if !hasValue {
				if i+1 >= len(args) {
					return nil, v.usageErrorf("flag --%s needs a value (%s)", name, spec.value)
				}
				i++
				value = args[i]
			}
			if spec.kind == valueFlag && in.has(name) {
				return nil, v.usageErrorf("flag --%s given more than once", name)
			}
		}
		in.flags[name] = append(in.flags[name], value)
	}
	params := v.params
	for flag, alt := range v.flagParams {
		if in.bool(flag) {
			params = alt
		}
	}
	switch n, want := len(in.args), len(params); {
	case n < want:
		return nil, v.usageErrorf("missing %s", strings.Join(params[n:], " "))
	case n > want && !v.rest:
		return nil, v.usageErrorf("unexpected argument '%s'", in.args[want])
	}
	return in, nil
}

// parseCount parses a non-negative decimal integer flag or argument value.
func parseCount(v *verb, what, s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, v.usageErrorf("%s must be a non-negative integer, got '%s'", what, s)
	}
	return n, nil
}

// parseSeconds parses a duration given as a number of seconds ("300",
// "1.5") or as a Go duration ("300s", "2m", "1500ms").
func parseSeconds(v *verb, what, s string) (time.Duration, error) {
	return parseDuration(v, what, s, time.Second)
}

// parseMillis parses a duration given as a number of milliseconds ("1000")
// or as a Go duration ("1s", "250ms").
func parseMillis(v *verb, what, s string) (time.Duration, error) {
	return parseDuration(v, what, s, time.Millisecond)
}

// parseDuration parses a non-negative bare number in unit, or a Go duration.
func parseDuration(v *verb, what, s string, unit time.Duration) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || f != f || f*float64(unit) > float64(maxDuration) {
			return 0, v.usageErrorf("%s out of range: '%s'", what, s)
		}
		return time.Duration(f * float64(unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, v.usageErrorf("%s must be a number or a duration like 30s, got '%s'", what, s)
	}
	if d < 0 || d > maxDuration {
		return 0, v.usageErrorf("%s out of range: '%s'", what, s)
	}
	return d, nil
}

// maxDuration bounds --timeout and --for: a year is far beyond any real wait
// and leaves room to add the transport margin without overflow.
const maxDuration = 365 * 24 * time.Hour

// parseEnv parses repeated "--env KEY=VALUE" flags into a map. KEY must be
// non-empty; as the first "=" ends it, it never contains "=". A later value
// for the same key wins. nil when no flag was given.
func parseEnv(v *verb, pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	env := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, val, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, v.usageErrorf("invalid --env '%s': want KEY=VALUE with a non-empty KEY", p)
		}
		env[k] = val
	}
	return env, nil
}

// parseSize parses "<cols>x<rows>" (an upper-case X is accepted too); both
// must be positive and at most 65535.
func parseSize(v *verb, s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		cols, err1 := strconv.ParseUint(c, 10, 16)
		rows, err2 := strconv.ParseUint(r, 10, 16)
		if err1 == nil && err2 == nil && cols > 0 && rows > 0 {
			return int(cols), int(rows), nil
		}
	}
	return 0, 0, v.usageErrorf("size must be <cols>x<rows> with both between 1 and 65535, got '%s'", s)
}
