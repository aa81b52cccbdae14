package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/paneflow-go/paneflow/proto"

	"github.com/paneflow-go/paneflow/internal/vis"
)

// Unit is one instance of a step: the step itself, or one per foreach
// item (id "<step>[<item>]"), with ${item} substituted.
type Unit struct {
	ID   string `json:"id"`
	Step string `json:"-"`
	Item string `json:"-"`
	// Kind is "spawn" (opens a pane) or "send" (types into one).
	Kind string `json:"kind"`
	// Needs are step ids: every unit of each must be READY first.
	Needs   []string     `json:"needs"`
	Ready   *UnitReady   `json:"ready"`
	Capture *UnitCapture `json:"capture"`
	// Submit feeds the prompt (spawn) or text (send) and presses Enter.
	Submit bool `json:"submit"`
	// Pane is a spawn unit's pane, resolved.
	Pane *PlannedPane `json:"-"`
	// Send is a send unit's target and text (captures not substituted).
	Send   *UnitSend       `json:"-"`
	Detail json.RawMessage `json:"detail"`
	// Budget is its step's budget (shared by a foreach step's units);
	// nil when none.
	Budget *Budget `json:"budget,omitempty"`
	// Captures is how the captures in the unit's text go in,
	// CapturesFenced or CapturesPlain (see [Step.Captures]); "" when the
	// text uses none.
	Captures string `json:"captures,omitempty"`
	// capturesSet is the step's own `captures`, nil when it chose none.
	capturesSet *string
}

// UnitReady is a unit's barrier.
type UnitReady struct {
	Pattern     string `json:"pattern"`
	TimeoutSecs int64  `json:"timeout_secs"`
}

// UnitCapture says where a unit's capture goes: Var is the key
// ("summary", or "out.api" for a foreach item).
type UnitCapture struct {
	Var   string `json:"var"`
	Lines int64  `json:"lines"`
}

// UnitSend is a send unit's target (a pane name of this flow, else any
// CLI selector) and text.
type UnitSend struct {
	Target string `json:"target"`
	Text   string `json:"text"`
}

// FlowPlan is a flow resolved: what `paneflow flow run` will do.
type FlowPlan struct {
	Name      string  `json:"flow"`
	Layout    string  `json:"layout"`
	OnFailure string  `json:"on_failure"`
	PortBase  int     `json:"-"`
	Units     []*Unit `json:"units"`
	// Budget is the whole run's budget; nil when none.
	Budget *Budget `json:"budget,omitempty"`
}

// budgeted reports whether the run or any of its steps has a budget.
func (p *FlowPlan) budgeted() bool {
	if p.Budget != nil {
		return true
	}
	for _, u := range p.Units {
		if u.Budget != nil {
			return true
		}
	}
	return false
}

// Submits reports whether any unit submits text (which needs the
// instance's scripting gate).
func (p *FlowPlan) Submits() bool {
	for _, u := range p.Units {
		if u.Submit {
			return true
		}
	}
	return false
}

// subItem substitutes ${item} in a string pointer's value.
func subItem(p *string, item string) *string {
	if p == nil {
		return nil
	}
	v := strings.ReplaceAll(*p, "${item}", item)
	return &v
}

// expand turns the steps into units (spec specs.md §5 "Expansion").
func (f *Flow) expand() ([]*Unit, []*Pane, error) {
	var units []*Unit
	var panes []*Pane
	names := map[string]string{}
	defTimeout := int64(0)
	if f.Defaults != nil && f.Defaults.TimeoutSecs != nil {
		defTimeout = *f.Defaults.TimeoutSecs
	}
	for i := range f.Steps {
		s := &f.Steps[i]
		items := s.items()
		if items == nil {
			items = []string{""}
		}
		for _, it := range items {
			u := &Unit{ID: s.ID, Step: s.ID, Item: it, Needs: append([]string{}, s.Needs...), Budget: s.Budget, capturesSet: s.Captures}
			if s.Foreach != nil {
				u.ID = s.ID + "[" + it + "]"
			}
			if r := s.Ready; r != nil {
				pat := strings.ReplaceAll(r.Pattern, "${item}", it)
				if _, err := compileBarrier(pat); err != nil {
					return nil, nil, fmt.Errorf("unit '%s': ready.pattern invalid after ${item} substitution: %v", u.ID, err)
				}
				u.Ready = &UnitReady{Pattern: pat, TimeoutSecs: defTimeout}
				if r.TimeoutSecs != nil {
					u.Ready.TimeoutSecs = *r.TimeoutSecs
				}
			}
			if c := s.Capture; c != nil {
				key := c.Var
				if s.Foreach != nil {
					key += "." + it
				}
				u.Capture = &UnitCapture{Var: key, Lines: c.Lines}
			}
			var pane *Pane
			if s.Pane != nil {
				u.Kind = "spawn"
				u.Submit = s.Submit != nil && *s.Submit
				p := *s.Pane
				p.Cwd, p.Name, p.Worktree = subItem(p.Cwd, it), subItem(p.Name, it), subItem(p.Worktree, it)
				p.Prompt = subItem(p.Prompt, it)
				if p.Env != nil {
					p.Env = make(map[string]string, len(s.Pane.Env))
					for k, v := range s.Pane.Env {
						p.Env[k] = strings.ReplaceAll(v, "${item}", it)
					}
				}
				if err := checkPane(&p); err != nil {
					return nil, nil, fmt.Errorf("unit '%s': %v", u.ID, err)
				}
				name := s.ID
				if s.Foreach != nil {
					name = s.ID + "-" + it
				}
				if p.Name != nil && *p.Name != "" {
					name = *p.Name
				}
				if _, dup := names[name]; dup {
					return nil, nil, fmt.Errorf("duplicate pane name '%s' (unit '%s'); pane names must be unique so `send.target` resolves", name, u.ID)
				}
				names[name] = u.ID
				p.Name = &name
				pane = &p
			} else {
				u.Kind = "send"
				u.Submit = s.Send.Submit
				u.Send = &UnitSend{Target: strings.ReplaceAll(s.Send.Target, "${item}", it), Text: strings.ReplaceAll(s.Send.Text, "${item}", it)}
			}
			units = append(units, u)
			panes = append(panes, pane)
		}
	}
	return units, panes, nil
}

// ResolveFlow plans a parsed flow without side effects: units expanded,
// their panes resolved as `up` resolves them (cwd, agents on PATH,
// worktrees planned), one ${port_offset} allocation over all of them.
func ResolveFlow(ctx context.Context, f *Flow, h Host) (*FlowPlan, error) {
	h = h.withDefaults()
	wd, err := h.Getwd()
	if err != nil {
		return nil, fmt.Errorf("cannot read the current directory: %v", err)
	}
	units, panes, err := f.expand()
	if err != nil {
		return nil, err
	}
	plan := &FlowPlan{Name: "flow", Layout: "even_h", OnFailure: "fail_fast", PortBase: DefaultPortBase, Units: units, Budget: f.Budget}
	if f.Name != nil {
		plan.Name = *f.Name
	}
	if f.Layout != nil {
		plan.Layout = *f.Layout
	}
	if f.PortBase != nil {
		plan.PortBase = int(*f.PortBase)
	}
	if f.Defaults != nil && f.Defaults.OnFailure != nil {
		plan.OnFailure = *f.Defaults.OnFailure
	}
	var spawned []*PlannedPane
	var labels []string
	for i, u := range units {
		if panes[i] == nil {
			continue
		}
		pp, err := resolvePane(ctx, &h, wd, panes[i])
		if err != nil {
			return nil, fmt.Errorf("unit '%s': %v", u.ID, err)
		}
		u.Pane = &pp
		spawned = append(spawned, u.Pane)
		labels = append(labels, "unit '"+u.ID+"'")
	}
	if err := checkTargets(spawned, func(i int) string { return labels[i] }); err != nil {
		return nil, err
	}
	allocatePorts(&h, plan.PortBase, spawned)
	for i, u := range units {
		if panes[i] == nil {
			continue
		}
		if err := resolveProgram(&h, panes[i], u.Pane); err != nil {
			return nil, fmt.Errorf("unit '%s': %v", u.ID, err)
		}
	}
	byName := map[string]*PlannedPane{}
	for _, u := range units {
		if u.Pane != nil {
			byName[u.Pane.Name] = u.Pane
		}
	}
	for _, u := range units {
		u.Captures = capturesMode(u, byName)
	}
	for _, u := range units {
		var d any = u.Send
		if u.Pane != nil {
			d = u.Pane
		}
		u.Detail, _ = json.Marshal(d)
	}
	return plan, nil
}

// capturesMode decides how the captures in u's text go in (see
// [Step.Captures]); byName finds the flow's panes by name.
func capturesMode(u *Unit, byName map[string]*PlannedPane) string {
	text, to := "", (*PlannedPane)(nil)
	switch {
	case u.Send != nil:
		text, to = u.Send.Text, byName[u.Send.Target]
	case u.Submit && u.Pane != nil:
		text, to = u.Pane.Prompt, u.Pane
	}
	switch {
	case !usesCaptures(text):
		return ""
	case u.capturesSet != nil:
		return *u.capturesSet
	case to == nil || to.runsAgent():
		return CapturesFenced // a pane outside the flow may be an agent
	}
	return CapturesPlain
}

// runsAgent reports whether the pane runs a known agent: an `agent`, or a
// command whose program is one.
func (pp *PlannedPane) runsAgent() bool {
	if pp.Agent != "" {
		return true
	}
	_, ok := proto.MatchProcess("", pp.Argv)
	return ok
}

// WriteText prints the plan for people: one block per unit, every value a
// spec sets with its control characters escaped (see [Plan.WriteText]).
func (p *FlowPlan) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "flow %q: %s, layout %s, on_failure %s\n", p.Name, count(len(p.Units), "unit", "units"), p.Layout, p.OnFailure)
	if p.Budget != nil {
		fmt.Fprintf(&b, "budget    %s for the whole run\n", p.Budget)
	}
	for _, u := range p.Units {
		head := fmt.Sprintf("%s %s", u.Kind, vis.String(u.ID))
		if len(u.Needs) > 0 {
			head += " (needs " + vis.String(strings.Join(u.Needs, ", ")) + ")"
		}
		if u.Pane != nil {
			writePane(&b, head, u.Pane, u.Submit)
		} else {
			fmt.Fprintf(&b, "%s\n  target    %s\n  text      %s\n", head, vis.String(u.Send.Target), strconvQuote(u.Send.Text))
		}
		if u.Submit {
			fmt.Fprintf(&b, "  submit    yes (after the pane settles)\n")
		}
		if u.Ready != nil {
			fmt.Fprintf(&b, "  ready     /%s/ within %ds\n", vis.String(u.Ready.Pattern), u.Ready.TimeoutSecs)
		}
		switch u.Captures {
		case CapturesFenced:
			fmt.Fprintf(&b, "  captures  fenced as untrusted output (for an agent)\n")
		case CapturesPlain:
			fmt.Fprintf(&b, "  captures  plain text, control characters as \\xNN (for a program)\n")
		}
		if u.Capture != nil {
			fmt.Fprintf(&b, "  capture   last %d lines as ${%s}\n", u.Capture.Lines, u.Capture.Var)
		}
		if u.Budget != nil {
			fmt.Fprintf(&b, "  budget    %s (step %s)\n", u.Budget, vis.String(u.Step))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// substitute replaces ${var} and ${var.item} in text by the captured
// values; a missing one is an error. The result is cut to
// SubstitutionCap bytes (at a character boundary), ending with
// TruncatedMarker.
func substitute(text string, get func(key string) (string, bool)) (string, error) {
	var missing string
	out := tokenRE().ReplaceAllStringFunc(text, func(tok string) string {
		key := tok[2 : len(tok)-1]
		v, ok := get(key)
		if !ok && missing == "" {
			missing = tok
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("undefined variable %s (capturing step failed or skipped?)", missing)
	}
	return capText(out), nil
}

// capText cuts s to SubstitutionCap bytes with the marker.
func capText(s string) string {
	if len(s) <= SubstitutionCap {
		return s
	}
	n := SubstitutionCap - len(TruncatedMarker)
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + TruncatedMarker
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
