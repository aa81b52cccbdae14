package usage

import (
	"math"

	"github.com/paneflow-go/paneflow/bus"
)

// Tokens counts the tokens of one or more model responses, split the way
// prices are: Input is the prompt's tokens neither read from nor written
// to a prompt cache, CacheRead and CacheWrite the cached ones (CacheWrite1h
// is the part of CacheWrite kept for an hour, which Anthropic prices
// higher), Output the response's tokens including Reasoning. The zero
// value is no tokens.
type Tokens struct {
	Input        int64
	CacheRead    int64
	CacheWrite   int64
	CacheWrite1h int64
	Output       int64
	Reasoning    int64
}

// Total is every token counted once: Input+CacheRead+CacheWrite+Output.
func (t Tokens) Total() int64 { return t.Input + t.CacheRead + t.CacheWrite + t.Output }

// prompt is the whole prompt: Input+CacheRead+CacheWrite.
func (t Tokens) prompt() int64 { return t.Input + t.CacheRead + t.CacheWrite }

// add returns t+u.
func (t Tokens) add(u Tokens) Tokens {
	return Tokens{Input: t.Input + u.Input, CacheRead: t.CacheRead + u.CacheRead, CacheWrite: t.CacheWrite + u.CacheWrite,
		CacheWrite1h: t.CacheWrite1h + u.CacheWrite1h, Output: t.Output + u.Output, Reasoning: t.Reasoning + u.Reasoning}
}

// since returns what t has that was not in old, field by field, never
// negative: the growth of a record an agent rewrote.
func (t Tokens) since(old Tokens) Tokens {
	d := func(a, b int64) int64 { return max(a-b, 0) }
	return Tokens{Input: d(t.Input, old.Input), CacheRead: d(t.CacheRead, old.CacheRead), CacheWrite: d(t.CacheWrite, old.CacheWrite),
		CacheWrite1h: d(t.CacheWrite1h, old.CacheWrite1h), Output: d(t.Output, old.Output), Reasoning: d(t.Reasoning, old.Reasoning)}
}

// Nanos is an amount of US dollars in billionths: sums of many small costs
// stay exact.
type Nanos int64

// USD returns n in dollars.
func (n Nanos) USD() float64 { return float64(n) / 1e9 }

// nanosOf converts dollars, rounding to the nearest billionth.
func nanosOf(usd float64) Nanos { return Nanos(math.Round(usd * 1e9)) }

// Totals is an amount of usage: tokens, the cost of those whose model has
// a price, how many tokens had none, and how many model responses they
// came from. The zero value is nothing used.
type Totals struct {
	Tokens
	Cost     Nanos
	Priced   bool  // some tokens had a price (Cost means something)
	Unpriced int64 // tokens of responses whose model has no price
	Calls    int64 // model responses
}

// add returns t+u.
func (t Totals) add(u Totals) Totals {
	return Totals{Tokens: t.Tokens.add(u.Tokens), Cost: t.Cost + u.Cost, Priced: t.Priced || u.Priced,
		Unpriced: t.Unpriced + u.Unpriced, Calls: t.Calls + u.Calls}
}

// Wire returns t as the wire's [bus.Usage]: cost_usd null when no token
// had a price.
func (t Totals) Wire() bus.Usage {
	u := bus.Usage{
		Input: t.Input, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, CacheWrite1h: t.CacheWrite1h,
		Output: t.Output, Reasoning: t.Reasoning, Total: t.Total(), UnpricedTokens: t.Unpriced, Calls: t.Calls,
	}
	if t.Priced {
		usd := t.Cost.USD()
		u.CostUSD = &usd
	}
	return u
}

// USD converts dollars to Nanos, rounding to the nearest billionth; 0 or
// less is 0.
func USD(dollars float64) Nanos {
	if !(dollars > 0) {
		return 0
	}
	return nanosOf(dollars)
}
