package usage

// Where the default prices come from, read from the pinned agent CLIs of
// scripts/agents.sh on the date below: Claude Code's own price table
// (the model catalog built into Claude Code 2.1.332, from which it
// computes the cost it records; its "tier" names are kept below), and the
// models.dev data opencode 1.18.33 carries for OpenAI's and Google's
// models (the models Codex 0.169.0 and Gemini CLI 0.61.0 offer). Models
// missing there (Codex's gpt-6.1-*, Gemini CLI's gemini-3-pro-preview)
// have no default: their tokens are counted and their cost is not until
// the configuration names a price.
const (
	sourceClaude    = "Claude Code 2.1.332 model catalog"
	sourceModelsDev = "models.dev data in opencode 1.18.33"
	pricesAsOf      = "2026-12-05"
)

// claudeTier is one of Claude Code's price tiers: input, output, 5-minute
// and one-hour cache writes, cache reads, per million tokens.
func claudeTier(in, out, cw, cw1h, cr float64) Price {
	return Price{Input: in, Output: out, CacheWrite: cw, CacheWrite1h: cw1h, CacheRead: cr, Source: sourceClaude, AsOf: pricesAsOf}
}

// modelsDev is a models.dev price: input, output, cache read and cache
// write (0: none) per million tokens.
func modelsDev(in, out, cr, cw float64) Price {
	return Price{Input: in, Output: out, CacheRead: cr, CacheWrite: cw, Source: sourceModelsDev, AsOf: pricesAsOf}
}

// long adds a long-context tier to p: above prompt tokens, the prices of l.
func long(p Price, above int64, l Price) Price {
	l.Source, l.AsOf = "", ""
	p.LongAbove, p.Long = above, &l
	return p
}

// DefaultPrices returns the built-in price table by model name (see the
// sources above). The caller owns the map.
func DefaultPrices() map[string]Price {
	var (
		tier2x10      = claudeTier(2, 10, 2.5, 4, 0.2)
		tier2x10cr010 = claudeTier(2, 10, 2.5, 4, 0.1)
		tier3x15      = claudeTier(3, 15, 3.75, 6, 0.3)
		tier5x25      = claudeTier(5, 25, 6.25, 10, 0.5)
		tier15x75     = claudeTier(15, 75, 18.75, 30, 1.5)
		tier10x50     = claudeTier(10, 50, 12.5, 20, 1)
		tier10x50cr25 = claudeTier(10, 50, 12.5, 20, 0.25)
		tier4x20cr20  = claudeTier(4, 20, 5, 8, 0.2)
		tier8x40cr20  = claudeTier(8, 40, 10, 16, 0.2)
		haiku35       = claudeTier(0.8, 4, 1, 1.6, 0.08)
		haiku45       = claudeTier(1, 5, 1.25, 2, 0.1)
		haiku55       = long(claudeTier(0.1, 0.5, 0.125, 0.2, 0.01), 100_000, claudeTier(0.5, 2.5, 0.625, 1, 0.05))
	)
	// OpenAI's and Google's long-context tiers start above 272k and 200k
	// prompt tokens.
	gpt := func(in, out, cr, cw, lin, lout, lcr, lcw float64) Price {
		return long(modelsDev(in, out, cr, cw), 272_000, modelsDev(lin, lout, lcr, lcw))
	}
	gemini := func(in, out, cr, lin, lout, lcr float64) Price {
		return long(modelsDev(in, out, cr, 0), 200_000, modelsDev(lin, lout, lcr, 0))
	}
	return map[string]Price{
		// Claude Code's catalog (first-party ids of dated snapshots too).
		"claude-3-5-haiku": haiku35, "claude-3-5-haiku-20241022": haiku35,
		"claude-haiku-4-5": haiku45, "claude-haiku-4-5-20251001": haiku45,
		"claude-haiku-5-5":  haiku55,
		"claude-3-5-sonnet": tier3x15, "claude-3-5-sonnet-20241022": tier3x15,
		"claude-3-7-sonnet": tier3x15, "claude-3-7-sonnet-20250219": tier3x15,
		"claude-sonnet-4-0": tier3x15, "claude-sonnet-4-20250514": tier3x15,
		"claude-sonnet-4-5": tier3x15, "claude-sonnet-4-5-20250929": tier3x15,
		"claude-sonnet-4-6": tier3x15,
		"claude-sonnet-5":   tier2x10,
		"claude-sonnet-5-5": tier2x10cr010,
		"claude-opus-4-0":   tier15x75, "claude-opus-4-20250514": tier15x75,
		"claude-opus-4-1": tier15x75, "claude-opus-4-1-20250805": tier15x75,
		"claude-opus-4-5": tier5x25, "claude-opus-4-5-20251101": tier5x25,
		"claude-opus-4-6": tier5x25,
		"claude-opus-4-7": tier5x25,
		"claude-opus-4-8": tier5x25,
		"claude-opus-5":   tier5x25,
		"claude-opus-5-5": tier4x20cr20,
		"claude-fable-5":  tier10x50, "claude-fable-5-1": tier10x50cr25, "claude-fable-5-2": tier8x40cr20,
		"claude-mythos-5": tier10x50, "claude-mythos-5-1": tier10x50cr25, "claude-mythos-5-2": tier8x40cr20,

		// OpenAI: Codex 0.169.0's models first.
		"gpt-6-astra":              gpt(10, 50, 1, 12.5, 20, 75, 2, 25),
		"gpt-6-sol":                gpt(2, 10, 0.2, 2.5, 4, 15, 0.4, 5),
		"gpt-6-luna":               gpt(0.1, 0.5, 0.01, 0.125, 0.2, 0.75, 0.02, 0.25),
		"gpt-5.6":                  gpt(4, 20, 0.4, 5, 8, 30, 0.8, 10),
		"gpt-5.6-sol":              gpt(4, 20, 0.4, 5, 8, 30, 0.8, 10),
		"gpt-5.6-terra":            gpt(2, 12, 0.2, 2.5, 4, 18, 0.4, 5),
		"gpt-5.6-luna":             gpt(0.2, 1.2, 0.02, 0.25, 0.4, 1.8, 0.04, 0.5),
		"gpt-5.5":                  gpt(5, 30, 0.5, 0, 10, 45, 1, 0),
		"gpt-daybreak-blue-latest": gpt(4, 20, 0.4, 5, 8, 30, 0.8, 10),
		"gpt-daybreak-red-latest":  modelsDev(12.5, 75, 1.25, 15.625),
		"gpt-5.4":                  gpt(2.5, 15, 0.25, 0, 5, 22.5, 0.5, 0),
		"gpt-5.4-mini":             modelsDev(0.75, 4.5, 0.075, 0),
		"gpt-5.4-nano":             modelsDev(0.2, 1.25, 0.02, 0),
		"gpt-5.3-codex":            modelsDev(1.75, 14, 0.175, 0),
		"gpt-5.2":                  modelsDev(1.75, 14, 0.175, 0),
		"gpt-5.1":                  modelsDev(1.25, 10, 0.125, 0),
		"gpt-5":                    modelsDev(1.25, 10, 0.125, 0),
		"gpt-5-mini":               modelsDev(0.25, 2, 0.025, 0),
		"gpt-5-nano":               modelsDev(0.05, 0.4, 0.005, 0),

		// Google: Gemini CLI 0.61.0's default, flash and preview models.
		"gemini-2.5-pro":                     gemini(1.25, 10, 0.125, 2.5, 15, 0.25),
		"gemini-2.5-flash":                   modelsDev(0.3, 2.5, 0.03, 0),
		"gemini-2.5-flash-lite":              modelsDev(0.1, 0.4, 0.01, 0),
		"gemini-3-flash-preview":             modelsDev(0.5, 3, 0.05, 0),
		"gemini-3.1-pro-preview":             gemini(2, 12, 0.2, 4, 18, 0.4),
		"gemini-3.1-pro-preview-customtools": gemini(2, 12, 0.2, 4, 18, 0.4),
		"gemini-3.1-flash-lite":              modelsDev(0.25, 1.5, 0.025, 0),
		"gemini-3.5-flash":                   modelsDev(1.5, 9, 0.15, 0),
		"gemini-3.5-flash-lite":              modelsDev(0.3, 2.5, 0.03, 0),
		"gemini-3.6-flash":                   modelsDev(0.75, 3.75, 0.075, 0),
		"gemini-3.7-flash":                   modelsDev(0.75, 3.75, 0.075, 0),
		"gemini-3.8-flash":                   modelsDev(0.75, 3.75, 0.075, 0),
		"gemini-flash-latest":                modelsDev(0.75, 3.75, 0.075, 0),
		"gemini-flash-lite-latest":           modelsDev(0.3, 2.5, 0.03, 0),
	}
}
