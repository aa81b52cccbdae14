package usage

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/paneflow-go/paneflow/proto"
)

// Price is what one model charges, in US dollars per million tokens. A
// cache price of zero means the model has none of that kind and its
// tokens cost as plain input (CacheWrite1h: as CacheWrite). Above LongAbove
// prompt tokens (input, cached and cache-written, per response; 0: no such
// tier) the prices of Long apply instead, as providers price long
// contexts.
type Price struct {
	Input        float64
	Output       float64
	CacheRead    float64
	CacheWrite   float64
	CacheWrite1h float64
	LongAbove    int64
	Long         *Price
	// Source says where the price comes from and AsOf when it was read
	// there (YYYY-MM-DD): a price goes stale, and the user overrides it
	// in the configuration.
	Source string
	AsOf   string
}

// cost is what t costs at p.
func (p Price) cost(t Tokens) Nanos {
	if p.LongAbove > 0 && p.Long != nil && t.prompt() > p.LongAbove {
		return p.Long.cost(t)
	}
	or := func(v, fallback float64) float64 {
		if v > 0 {
			return v
		}
		return fallback
	}
	cw := or(p.CacheWrite, p.Input)
	cw1h := or(p.CacheWrite1h, cw)
	hour := min(t.CacheWrite1h, t.CacheWrite)
	usd := float64(t.Input)*p.Input + float64(t.Output)*p.Output + float64(t.CacheRead)*or(p.CacheRead, p.Input) +
		float64(t.CacheWrite-hour)*cw + float64(hour)*cw1h
	return nanosOf(usd / 1e6)
}

// Prices is a table of model prices, looked up by [Prices.Lookup]. Build
// one with [NewPrices]; the zero value prices nothing. It is read-only
// once built, so safe for concurrent use.
type Prices struct {
	m map[string]Price // by normalized model name
}

// PriceOverride is a model's price from the configuration, in dollars
// per million tokens: a nil field keeps the built-in price of that model
// (for a model without one: no cache discount, no long-context tier).
type PriceOverride struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h *float64
	// LongAbove and the Long prices are a long-context tier (see [Price]).
	LongAbove                                            *int64
	LongInput, LongOutput, LongCacheRead, LongCacheWrite *float64
}

// overridesSource is the Source of a configured price.
const overridesSource = "paneflow.toml"

// NewPrices returns the table of the defaults ([DefaultPrices]) with the
// configuration's prices laid over them field by field. An override of a
// model without a built-in price needs input and output; one without is
// left out, with a warning.
func NewPrices(overrides map[string]PriceOverride) (Prices, []string) {
	m := map[string]Price{}
	for k, p := range DefaultPrices() {
		m[normalizeModel(k)] = p
	}
	var warns []string
	for _, model := range slices.Sorted(maps.Keys(overrides)) {
		o := overrides[model]
		n := normalizeModel(model)
		p, known := m[n]
		if !known && (o.Input == nil || o.Output == nil) {
			warns = append(warns, fmt.Sprintf("usage.prices.%q: no built-in price for this model, so input and output are needed; ignored", model))
			continue
		}
		set := func(dst *float64, v *float64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&p.Input, o.Input)
		set(&p.Output, o.Output)
		set(&p.CacheRead, o.CacheRead)
		set(&p.CacheWrite, o.CacheWrite)
		set(&p.CacheWrite1h, o.CacheWrite1h)
		if o.LongAbove != nil {
			p.LongAbove = *o.LongAbove
		}
		if o.LongInput != nil || o.LongOutput != nil || o.LongCacheRead != nil || o.LongCacheWrite != nil {
			var l Price
			if p.Long != nil {
				l = *p.Long
			} else {
				l = Price{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, CacheWrite1h: p.CacheWrite1h}
			}
			set(&l.Input, o.LongInput)
			set(&l.Output, o.LongOutput)
			set(&l.CacheRead, o.LongCacheRead)
			set(&l.CacheWrite, o.LongCacheWrite)
			p.Long = &l
		}
		p.Source, p.AsOf = overridesSource, ""
		m[n] = p
	}
	return Prices{m: m}, warns
}

// Lookup returns the price of model: its name as the agent recorded it,
// matched case-insensitively, without a provider prefix ("anthropic/",
// "openai/", "google/", "models/", a Bedrock region and vendor), a
// context-size suffix ("[1m]") or a dated or versioned snapshot suffix
// ("-20250929", "@20250929", "-v1:0"). ok is false for a model the table
// does not know: its tokens are counted, their cost is not.
func (p Prices) Lookup(model string) (Price, bool) {
	if model == "" {
		return Price{}, false
	}
	n := normalizeModel(model)
	if pr, ok := p.m[n]; ok {
		return pr, true
	}
	if s := snapshotSuffix.ReplaceAllString(n, ""); s != n {
		pr, ok := p.m[s]
		return pr, ok
	}
	return Price{}, false
}

// Table returns the table by model name, for `paneflow usage --prices`.
func (p Prices) Table() map[string]Price { return maps.Clone(p.m) }

// Models returns the table's model names, sorted.
func (p Prices) Models() []string { return slices.Sorted(maps.Keys(p.m)) }

// snapshotSuffix matches the dated or versioned suffix of a model
// snapshot's name.
var snapshotSuffix = regexp.MustCompile(`([-@]\d{8}|-\d{4}-\d{2}-\d{2})(-v\d+(:\d+)?)?$|-v\d+(:\d+)?$`)

// normalizeModel lowercases a model name and drops what names the same
// model in other places: provider prefixes and a context-size suffix.
func normalizeModel(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "anthropic/claude-…", "models/gemini-…"
	}
	for _, pre := range []string{"us.anthropic.", "eu.anthropic.", "apac.anthropic.", "global.anthropic.", "anthropic."} {
		m = strings.TrimPrefix(m, pre)
	}
	if i := strings.IndexByte(m, '['); i > 0 {
		m = m[:i] // "claude-opus-5-5[1m]"
	}
	return m
}

// wire returns p as usage.prices reports it, for model.
func (p Price) wire(model string) proto.UsagePrice {
	w := proto.UsagePrice{Model: model, Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite,
		CacheWrite1h: p.CacheWrite1h, LongAbove: p.LongAbove, Source: p.Source, AsOf: p.AsOf}
	if p.Long != nil {
		l := p.Long.wire("")
		w.Long = &l
	}
	return w
}
