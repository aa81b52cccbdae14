package flow

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Flow is a flow spec (flow.toml) as written.
type Flow struct {
	Name     *string   `toml:"name"`
	Layout   *string   `toml:"layout"`
	PortBase *int64    `toml:"port_base"`
	Defaults *Defaults `toml:"defaults"`
	// Budget limits the whole run (see [Budget]).
	Budget *Budget `toml:"budget"`
	Steps  []Step  `toml:"step"`
}

// Defaults is a flow's [defaults] table.
type Defaults struct {
	TimeoutSecs *int64  `toml:"timeout_secs"`
	OnFailure   *string `toml:"on_failure"` // "fail_fast" (default) or "continue"
}

// Step is one [[step]] of a flow.
type Step struct {
	ID      string    `toml:"id"`
	Needs   []string  `toml:"needs"`
	Foreach *[]string `toml:"foreach"`
	Pane    *Pane     `toml:"pane"`
	Send    *Send     `toml:"send"`
	Ready   *Ready    `toml:"ready"`
	Capture *Capture  `toml:"capture"`
	Submit  *bool     `toml:"submit"`
	// Budget limits the step's panes (all of a foreach step's together).
	Budget *Budget `toml:"budget"`
	// Captures says how the ${var} captures in the step's text (a
	// submitted prompt, a send's text) go in: CapturesFenced wraps each in
	// the untrusted-output envelope (for an agent: it reads them as data),
	// CapturesPlain gives the text itself with control characters shown
	// as \xNN (for a program: "capture a value, pass it to a command").
	// nil chooses by the receiving pane: fenced for an agent (an `agent`
	// pane, or a command that runs a known agent) and for a send to a
	// pane outside the flow, plain for any other program.
	Captures *string `toml:"captures"`
}

// The values of a step's `captures`.
const (
	CapturesFenced = "fenced"
	CapturesPlain  = "plain"
)

// Send is a step's send table: text typed into another pane.
type Send struct {
	Target string `toml:"target"`
	Text   string `toml:"text"`
	Submit bool   `toml:"submit"`
}

// Ready is a step's barrier: the step is READY once its pane prints a
// line matching Pattern (Go regexp syntax; ^ and $ anchor at each line).
type Ready struct {
	Pattern     string `toml:"pattern"`
	TimeoutSecs *int64 `toml:"timeout_secs"`
}

// Capture keeps the last Lines lines of the pane when Ready matches, as
// ${Var} (${Var.<item>} for a foreach step).
type Capture struct {
	Var   string `toml:"var"`
	Lines int64  `toml:"lines"`
}

// Flow limits.
const (
	maxCaptureLines = 500
	// SubstitutionCap bounds a text after capture substitution; longer
	// text is cut and ends with TruncatedMarker.
	SubstitutionCap = 64 << 10
	// TruncatedMarker ends a substituted text that was cut.
	TruncatedMarker = "…[truncated]"
)

var varNameRE = lazyRE(`^[A-Za-z0-9_]+$`)

// ParseFlow decodes a flow spec and runs every static validation of spec
// specs.md §5 (and ours: captures must come from a step the consumer
// depends on), before anything else happens.
func ParseFlow(data []byte) (*Flow, error) {
	var f Flow
	if err := decodeStrict(data, &f); err != nil {
		return nil, err
	}
	if err := checkTop(f.Layout, f.PortBase); err != nil {
		return nil, err
	}
	if err := f.Budget.check("budget"); err != nil {
		return nil, err
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

func (f *Flow) validate() error {
	if len(f.Steps) == 0 {
		return errors.New("flow has no [[step]]")
	}
	byID := map[string]*Step{}
	var ids []string
	for i := range f.Steps {
		s := &f.Steps[i]
		switch {
		case s.ID == "":
			return errors.New("a [[step]] has an empty `id`")
		case strings.ContainsAny(s.ID, "[]"):
			return fmt.Errorf("step '%s': `id` must not contain brackets", s.ID)
		case byID[s.ID] != nil:
			return fmt.Errorf("duplicate step id '%s'", s.ID)
		}
		byID[s.ID] = s
		ids = append(ids, s.ID)
	}
	var defTimeout *int64
	if d := f.Defaults; d != nil {
		if d.OnFailure != nil && *d.OnFailure != "fail_fast" && *d.OnFailure != "continue" {
			return fmt.Errorf("defaults.on_failure must be \"fail_fast\" or \"continue\", got '%s'", *d.OnFailure)
		}
		if d.TimeoutSecs != nil && *d.TimeoutSecs <= 0 {
			return fmt.Errorf("defaults.timeout_secs must be positive, got %d", *d.TimeoutSecs)
		}
		defTimeout = d.TimeoutSecs
	}
	captures := map[string]*Step{}
	for i := range f.Steps {
		s := &f.Steps[i]
		if c := s.Capture; c != nil {
			switch {
			case !varNameRE().MatchString(c.Var):
				return fmt.Errorf("step '%s': capture var '%s' must be [A-Za-z0-9_]+", s.ID, c.Var)
			case c.Lines < 1 || c.Lines > maxCaptureLines:
				return fmt.Errorf("step '%s': capture.lines must be 1..=%d", s.ID, maxCaptureLines)
			case s.Ready == nil:
				return fmt.Errorf("step '%s': `capture` requires `ready` (captured at match time)", s.ID)
			case captures[c.Var] != nil:
				return fmt.Errorf("capture var '%s' declared by both '%s' and '%s'", c.Var, captures[c.Var].ID, s.ID)
			}
			captures[c.Var] = s
		}
	}
	spawns := 0
	for i := range f.Steps {
		s := &f.Steps[i]
		if err := s.check(byID, ids, defTimeout); err != nil {
			return err
		}
		if s.Pane != nil {
			spawns += max(1, len(s.items()))
		}
	}
	for i := range f.Steps {
		if err := f.Steps[i].checkVars(captures, byID); err != nil {
			return err
		}
	}
	if spawns > MaxPanes {
		return fmt.Errorf("flow spawns %d panes, exceeds MAX_PANES (%d)", spawns, MaxPanes)
	}
	if cyc := findCycle(f.Steps, byID); cyc != nil {
		return fmt.Errorf("dependency cycle: %s", strings.Join(cyc, " → "))
	}
	root := false
	for i := range f.Steps {
		root = root || (f.Steps[i].Pane != nil && len(f.Steps[i].Needs) == 0)
	}
	if !root {
		return errors.New("flow needs at least one `pane` step without `needs` (the workspace bootstrap)")
	}
	return nil
}

// items returns the step's foreach items (nil when it has none).
func (s *Step) items() []string {
	if s.Foreach == nil {
		return nil
	}
	return *s.Foreach
}

// check applies a step's own rules.
func (s *Step) check(byID map[string]*Step, ids []string, defTimeout *int64) error {
	switch {
	case s.Pane != nil && s.Send != nil:
		return fmt.Errorf("step '%s': set either `pane` or `send`, not both", s.ID)
	case s.Pane == nil && s.Send == nil:
		return fmt.Errorf("step '%s': needs a `pane` or a `send`", s.ID)
	}
	for _, d := range s.Needs {
		if d == s.ID {
			return fmt.Errorf("step '%s': depends on itself", s.ID)
		}
		if byID[d] == nil {
			return fmt.Errorf("step '%s': unknown dependency '%s' (known: %s)", s.ID, d, strings.Join(ids, ", "))
		}
	}
	if r := s.Ready; r != nil {
		if r.Pattern == "" {
			return fmt.Errorf("step '%s': ready.pattern is empty", s.ID)
		}
		if _, err := compileBarrier(strings.ReplaceAll(r.Pattern, "${item}", "x")); err != nil {
			return fmt.Errorf("step '%s': invalid ready.pattern: %v", s.ID, err)
		}
		if r.TimeoutSecs == nil && defTimeout == nil {
			return fmt.Errorf("step '%s': `ready` needs `timeout_secs` (own or [defaults])", s.ID)
		}
		if r.TimeoutSecs != nil && *r.TimeoutSecs <= 0 {
			return fmt.Errorf("step '%s': ready.timeout_secs must be positive, got %d", s.ID, *r.TimeoutSecs)
		}
	}
	if s.Foreach != nil {
		if len(*s.Foreach) == 0 {
			return fmt.Errorf("step '%s': `foreach` is empty", s.ID)
		}
		seen := map[string]bool{}
		for _, it := range *s.Foreach {
			if seen[it] {
				return fmt.Errorf("step '%s': duplicate foreach item '%s'", s.ID, it)
			}
			seen[it] = true
		}
	}
	if s.Pane != nil {
		if err := checkPane(s.Pane); err != nil {
			return fmt.Errorf("step '%s': %v", s.ID, err)
		}
		if s.Pane.Budget != nil {
			return fmt.Errorf("step '%s': put `budget` on the step, not in its `pane`", s.ID)
		}
	}
	if err := s.Budget.check("budget"); err != nil {
		return fmt.Errorf("step '%s': %v", s.ID, err)
	}
	if s.Budget != nil && s.Send != nil {
		return fmt.Errorf("step '%s': a `send` step opens no pane of its own to budget; put `budget` on the step that opens the target, or on the flow", s.ID)
	}
	if c := s.Captures; c != nil {
		text := ""
		switch {
		case s.Send != nil:
			text = s.Send.Text
		case s.Submit != nil && *s.Submit:
			text = str(s.Pane.Prompt)
		}
		switch {
		case *c != CapturesFenced && *c != CapturesPlain:
			return fmt.Errorf("step '%s': `captures` must be \"fenced\" or \"plain\", got '%s'", s.ID, *c)
		case !usesCaptures(text):
			return fmt.Errorf("step '%s': `captures` is set but the step's text (a submitted prompt or a send's text) uses no ${var} capture", s.ID)
		}
	}
	if s.Send != nil {
		switch {
		case s.Send.Target == "":
			return fmt.Errorf("step '%s': send.target is empty", s.ID)
		case len(s.Needs) == 0:
			return fmt.Errorf("step '%s': a `send` step needs at least one dependency", s.ID)
		case s.Submit != nil:
			return fmt.Errorf("step '%s': put `submit` inside `send` for send steps", s.ID)
		}
	}
	return nil
}

// compileBarrier compiles a ready pattern with per-line anchors.
func compileBarrier(p string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?m)" + p)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

// checkVars checks every ${…} token of the step's fields (spec specs.md
// §5 "Variables").
func (s *Step) checkVars(captures map[string]*Step, byID map[string]*Step) error {
	foreach := s.Foreach != nil
	type field struct {
		name  string
		value string
		kind  int // 0 item only, 1 item or port_offset, 2 item or captures
	}
	var fs []field
	if p := s.Pane; p != nil {
		fs = append(fs, field{"pane.cwd", str(p.Cwd), 0}, field{"pane.name", str(p.Name), 0}, field{"pane.worktree", str(p.Worktree), 0})
		for _, k := range sortedKeys(p.Env) {
			fs = append(fs, field{"pane.env." + k, p.Env[k], 1})
		}
		fs = append(fs, field{"pane.prompt", str(p.Prompt), 2})
	}
	if sd := s.Send; sd != nil {
		fs = append(fs, field{"send.target", sd.Target, 0}, field{"send.text", sd.Text, 2})
	}
	if r := s.Ready; r != nil {
		fs = append(fs, field{"ready.pattern", r.Pattern, 0})
	}
	for _, f := range fs {
		if err := unclosed(f.value); err != nil {
			return fmt.Errorf("step '%s': %s: unclosed `${`", s.ID, f.name)
		}
		for _, m := range tokenRE().FindAllStringSubmatch(f.value, -1) {
			tok := m[1]
			if tok == "item" {
				if !foreach {
					return fmt.Errorf("step '%s': %s: `${item}` outside a `foreach` step", s.ID, f.name)
				}
				continue
			}
			switch f.kind {
			case 0:
				return fmt.Errorf("step '%s': %s: only `${item}` is allowed here, got '%s'", s.ID, f.name, m[0])
			case 1:
				if tok != "port_offset" {
					return fmt.Errorf("step '%s': %s: only `${item}` or `${port_offset}` is allowed here, got '%s'", s.ID, f.name, m[0])
				}
				continue
			}
			name, item, dotted := strings.Cut(tok, ".")
			src := captures[name]
			switch {
			case src == nil:
				return fmt.Errorf("step '%s': %s: unknown variable '%s' (no step captures '%s')", s.ID, f.name, m[0], name)
			case f.name == "pane.prompt" && (s.Submit == nil || !*s.Submit):
				return fmt.Errorf("step '%s': pane.prompt: '%s' is only substituted in a prompt the step submits (set submit = true)", s.ID, m[0])
			case src.Foreach != nil && !dotted:
				return fmt.Errorf("step '%s': %s: step '%s' captures '%s' per foreach item; use `${%s.<item>}`", s.ID, f.name, src.ID, name, name)
			case src.Foreach != nil && !contains(*src.Foreach, item):
				return fmt.Errorf("step '%s': %s: '%s' is not a foreach item of step '%s'", s.ID, f.name, item, src.ID)
			case src.Foreach == nil && dotted:
				return fmt.Errorf("step '%s': %s: '%s' is not a foreach capture; use `${%s}`", s.ID, f.name, name, name)
			case !dependsOn(s, src, byID):
				return fmt.Errorf("step '%s': %s: '%s' is captured by step '%s', which '%s' does not depend on (add it to `needs`)", s.ID, f.name, m[0], src.ID, s.ID)
			}
		}
	}
	return nil
}

// dependsOn reports whether s needs dep, directly or through other steps.
func dependsOn(s, dep *Step, byID map[string]*Step) bool {
	seen := map[string]bool{}
	var walk func(*Step) bool
	walk = func(x *Step) bool {
		for _, d := range x.Needs {
			if d == dep.ID {
				return true
			}
			if !seen[d] && byID[d] != nil {
				seen[d] = true
				if walk(byID[d]) {
					return true
				}
			}
		}
		return false
	}
	return walk(s)
}

// findCycle returns the first dependency cycle found by a depth-first
// walk in declaration order, as the path that closes it (a → b → a).
func findCycle(steps []Step, byID map[string]*Step) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var visit func(id string) []string
	visit = func(id string) []string {
		color[id] = grey
		stack = append(stack, id)
		for _, d := range byID[id].Needs {
			switch color[d] {
			case grey:
				i := indexOf(stack, d)
				return append(append([]string(nil), stack[i:]...), d)
			case white:
				if c := visit(d); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return nil
	}
	for i := range steps {
		if color[steps[i].ID] == white {
			if c := visit(steps[i].ID); c != nil {
				return c
			}
		}
	}
	return nil
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func contains(xs []string, x string) bool { return indexOf(xs, x) >= 0 }

// usesCaptures reports whether text refers to a capture: any ${…} token
// but ${item} (substituted before the flow runs).
func usesCaptures(text string) bool {
	for _, m := range tokenRE().FindAllStringSubmatch(text, -1) {
		if m[1] != "item" {
			return true
		}
	}
	return false
}
