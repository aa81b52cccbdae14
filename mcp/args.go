package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Limits of the tools' arguments (spec mcp-bridge.md §3).
const (
	defaultReadLines  = 200
	maxReadLines      = 4000
	defaultMatches    = 50
	maxMatches        = 1000
	defaultWaitSecs   = 60
	maxWaitSecs       = 3600
	maxWaitPatternLen = 4096
)

// Target is a decoded "target" argument: a surface_id, or a name to
// resolve.
type Target struct {
	ID     uint64
	Name   string
	ByName bool
}

// String renders the target as the caller gave it, for fences and
// messages.
func (t Target) String() string {
	if t.ByName {
		return t.Name
	}
	return strconv.FormatUint(t.ID, 10)
}

// ReadArgs are read_pane's arguments; Lines and Offset are nil when
// absent or not integers (the server's defaults apply).
type ReadArgs struct {
	Target Target
	Lines  *int
	Offset *int
}

// SearchArgs are search_pane's arguments.
type SearchArgs struct {
	Target     Target
	Pattern    string
	MaxMatches *int
}

// WaitArgs are wait_for's arguments: Pattern (a Go regexp on new output
// lines) and/or Idle (quiet for that long), within Timeout.
type WaitArgs struct {
	Target  Target
	Pattern string
	Idle    float64 // seconds; 0: no idle condition
	Timeout float64 // seconds
}

// args is a tool call's arguments object, numbers kept exact.
type args map[string]any

// decodeArgs parses a tool call's raw arguments: absent or null is an
// empty object; anything but an object is an error.
func decodeArgs(raw json.RawMessage) (args, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return args{}, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, errors.New("arguments must be a JSON object")
	}
	if d.More() {
		return nil, errors.New("arguments must be a single JSON object")
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// target decodes the "target" argument (spec §3, §4): a string is always
// a name; an integral non-negative number is a surface_id.
func (a args) target() (Target, error) {
	v, ok := a["target"]
	if !ok || v == nil {
		return Target{}, errors.New("missing 'target' argument")
	}
	switch v := v.(type) {
	case string:
		if v == "" {
			return Target{}, errors.New("'target' must not be empty: pass a surface name or a numeric surface_id (see list_panes)")
		}
		return Target{Name: v, ByName: true}, nil
	case json.Number:
		if id, err := strconv.ParseUint(v.String(), 10, 64); err == nil {
			return Target{ID: id}, nil
		}
		f, err := v.Float64()
		if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt64 {
			return Target{}, fmt.Errorf("'target' number %s is not a valid surface_id (must be a non-negative integer)", v)
		}
		return Target{ID: uint64(f)}, nil
	}
	return Target{}, errors.New("'target' must be a surface name (string) or surface_id (number)")
}

// intArg returns the integer argument name, or nil when it is absent or
// not an integral number (spec: non-integer values are ignored).
func (a args) intArg(name string) *int {
	n, ok := a[name].(json.Number)
	if !ok {
		return nil
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return nil
	}
	i := int(max(min(f, math.MaxInt32), math.MinInt32))
	return &i
}

// numArg returns the number argument name: ok is false when absent, an
// error when it is there but not a finite number.
func (a args) numArg(name string) (float64, bool, error) {
	v, there := a[name]
	if !there || v == nil {
		return 0, false, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false, fmt.Errorf("'%s' must be a number", name)
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, fmt.Errorf("'%s' must be a finite number", name)
	}
	return f, true, nil
}

// strArg returns the string argument name ("" when absent), or an error
// when it is there but not a string.
func (a args) strArg(name string) (string, error) {
	v, there := a[name]
	if !there || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("'%s' must be a string", name)
	}
	return s, nil
}

// boolArg returns the boolean argument name: def when it is absent or
// null, an error when it is there but not a boolean.
func (a args) boolArg(name string, def bool) (bool, error) {
	v, there := a[name]
	if !there || v == nil {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("'%s' must be a boolean", name)
	}
	return b, nil
}

// secondsArg returns the argument name, a number of seconds: def when it
// is absent or null, at most maxWaitSecs, and an error when it is not a
// finite number greater than 0.
func (a args) secondsArg(name string, def float64) (float64, error) {
	v, ok, err := a.numArg(name)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return def, nil
	case v <= 0:
		return 0, fmt.Errorf("'%s' must be greater than 0", name)
	}
	return min(v, maxWaitSecs), nil
}

// clamp returns *p limited to [lo, hi], or nil.
func clamp(p *int, lo, hi int) *int {
	if p == nil {
		return nil
	}
	v := min(max(*p, lo), hi)
	return &v
}

// decodeRead decodes read_pane's arguments.
func decodeRead(raw json.RawMessage) (ReadArgs, error) {
	a, t, err := decodeTargeted(raw)
	if err != nil {
		return ReadArgs{}, err
	}
	r := ReadArgs{Target: t, Lines: clamp(a.intArg("lines"), 1, maxReadLines)}
	if off := a.intArg("offset"); off != nil {
		r.Offset = clamp(off, 0, math.MaxInt32)
	}
	return r, nil
}

// decodeSearch decodes search_pane's arguments; the pattern is checked
// before the target, as in the original.
func decodeSearch(raw json.RawMessage) (SearchArgs, error) {
	a, err := decodeArgs(raw)
	if err != nil {
		return SearchArgs{}, err
	}
	pat, _ := a["pattern"].(string)
	if pat == "" {
		return SearchArgs{}, errors.New("missing or empty 'pattern' argument")
	}
	t, err := a.target()
	if err != nil {
		return SearchArgs{}, err
	}
	return SearchArgs{Target: t, Pattern: pat, MaxMatches: clamp(a.intArg("max_matches"), 1, maxMatches)}, nil
}

// decodeTargeted decodes the arguments of a tool that takes a target, and
// the target.
func decodeTargeted(raw json.RawMessage) (args, Target, error) {
	a, err := decodeArgs(raw)
	if err != nil {
		return nil, Target{}, err
	}
	t, err := a.target()
	if err != nil {
		return nil, Target{}, err
	}
	return a, t, nil
}

// decodeTargetOnly decodes the arguments of a tool that takes only a
// target (agent_status, get_artifact, kill_agent); [Bridge.targetOnly]
// also resolves it.
func decodeTargetOnly(raw json.RawMessage) (Target, error) {
	_, t, err := decodeTargeted(raw)
	return t, err
}

// decodeNone accepts the arguments of a tool that takes none: an empty
// object (unknown keys are ignored, like the original).
func decodeNone(raw json.RawMessage) error {
	_, err := decodeArgs(raw)
	return err
}

// decodeWait decodes wait_for's arguments.
func decodeWait(raw json.RawMessage) (WaitArgs, error) {
	a, t, err := decodeTargeted(raw)
	if err != nil {
		return WaitArgs{}, err
	}
	w := WaitArgs{Target: t}
	if w.Pattern, err = a.strArg("pattern"); err != nil {
		return WaitArgs{}, err
	}
	if len(w.Pattern) > maxWaitPatternLen {
		return WaitArgs{}, fmt.Errorf("'pattern' exceeds %d bytes", maxWaitPatternLen)
	}
	if w.Idle, err = a.secondsArg("idle_seconds", 0); err != nil {
		return WaitArgs{}, err
	}
	if w.Pattern == "" && w.Idle == 0 {
		return WaitArgs{}, errors.New("pass 'pattern', 'idle_seconds' or both")
	}
	if w.Timeout, err = a.secondsArg("timeout_seconds", defaultWaitSecs); err != nil {
		return WaitArgs{}, err
	}
	return w, nil
}
