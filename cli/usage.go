package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/proto"
)

// usageVerb is `paneflow usage`.
func usageVerb() verb {
	return verb{
		name: "usage", synopsis: "[--since WHEN] [--until WHEN] [--by agent|workspace|flow|model|day] [--json] [--prices]",
		summary: "print the tokens and cost the agents used, per agent, workspace, flow run or day",
		flags: []flagSpec{
			{name: "since", kind: valueFlag, value: "WHEN", usage: "from: today (default), yesterday, 2026-12-01, an RFC 3339 time, or back from now: 36h, 7d"},
			{name: "until", kind: valueFlag, value: "WHEN", usage: "up to when, as --since (default: now)"},
			{name: "by", kind: valueFlag, value: "GROUP", usage: "one row per agent, workspace, flow (run), model or day"},
			{name: "json", kind: boolFlag, usage: "print usage.summary's result (usage.prices's with --prices) as JSON"},
			{name: "prices", kind: boolFlag, usage: "print the price table the costs come from instead"},
		},
		details: "Counts what the agents recorded themselves (Claude Code's transcripts, Codex's rollouts,\n" +
			"Gemini CLI's chat recordings, opencode's messages), by whole hours, kept per day across\n" +
			"restarts. Columns: input (not cached), cache reads, cache writes, output (reasoning\n" +
			"included), total, cost. A cost is shown only for tokens whose model has a price; the\n" +
			"rest are counted as unpriced. Prices are dollars per million tokens, built in with the\n" +
			"date they were read, overridden by [usage.prices.\"<model>\"] in paneflow.toml. With a\n" +
			"[usage.daily_budget] configured, a last line says how much of it today used.\n",
		run: runUsage,
	}
}

func runUsage(ctx context.Context, s *session, in *input) error {
	c, err := s.connect()
	if err != nil {
		return err
	}
	if in.bool("prices") {
		return usagePrices(ctx, s, c, in)
	}
	var p proto.UsageSummaryParams
	p.Since, _ = in.str("since")
	p.Until, _ = in.str("until")
	p.By, _ = in.str("by")
	if p.By != "" && !slices.Contains(proto.UsageGroupings[:], p.By) {
		return in.verb.usageErrorf("--by must be agent, workspace, flow, model or day, got '%s'", p.By)
	}
	var res proto.UsageSummary
	raw, err := callInto(ctx, c, proto.MethodUsageSummary, p, &res)
	if err != nil {
		return err
	}
	if in.bool("json") {
		return s.printRaw(raw)
	}
	lines := []string{"from " + res.Since + " to " + res.Until}
	head := "GROUP"
	if res.By != "" {
		head = strings.ToUpper(res.By)
	}
	rows := [][]string{{head, "INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "TOTAL", "COST"}}
	row := func(key string, u proto.Usage) []string {
		return []string{key, itoa(u.Input), itoa(u.CacheRead), itoa(u.CacheWrite), itoa(u.Output), itoa(u.Total), costText(u)}
	}
	for _, g := range res.Groups {
		key := g.Key
		switch {
		case res.By == "flow" && key != "":
			key = g.Flow + " (" + key + ")"
		case key == "":
			key = "-"
		}
		rows = append(rows, row(key, g.Usage))
	}
	rows = append(rows, row("total", res.Total))
	lines = append(lines, table(rows, false)...)
	if res.Total.UnpricedTokens > 0 {
		lines = append(lines, fmt.Sprintf("%d tokens of models without a price are not in the cost (paneflow usage --prices)", res.Total.UnpricedTokens))
	}
	if d := res.Daily; d != nil {
		var parts []string
		if d.LimitTokens > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d tokens (%.0f %%)", d.Used.Total, d.LimitTokens, 100*float64(d.Used.Total)/float64(d.LimitTokens)))
		}
		if d.LimitCostUSD > 0 {
			spent := 0.0
			if d.Used.CostUSD != nil {
				spent = *d.Used.CostUSD
			}
			parts = append(parts, fmt.Sprintf("$%.2f of $%.2f (%.0f %%)", spent, d.LimitCostUSD, 100*spent/d.LimitCostUSD))
		}
		lines = append(lines, "daily budget, "+d.Day+": "+strings.Join(parts, ", "))
	}
	return writeLines(s.stdout, lines)
}

// usagePrices prints usage.prices.
func usagePrices(ctx context.Context, s *session, c caller, in *input) error {
	var res proto.UsagePricesResult
	raw, err := callInto(ctx, c, proto.MethodUsagePrices, emptyParams, &res)
	if err != nil {
		return err
	}
	if in.bool("json") {
		return s.printRaw(raw)
	}
	rows := [][]string{{"MODEL", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "LONG ABOVE", "SOURCE"}}
	money := func(v float64) string {
		if v == 0 {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for _, p := range res.Prices {
		long := "-"
		if p.LongAbove > 0 {
			long = itoa(p.LongAbove)
		}
		src := p.Source
		if p.AsOf != "" {
			src += ", " + p.AsOf
		}
		rows = append(rows, []string{p.Model, money(p.Input), money(p.Output), money(p.CacheRead), money(p.CacheWrite), long, src})
	}
	lines := append([]string{"dollars per million tokens; a cache price of - is the input price"}, table(rows, true)...)
	return writeLines(s.stdout, lines)
}

// usageLine is `paneflow status`'s line for surface.status's usage, or ""
// when there is none.
func usageLine(u *proto.UsageStatus) string {
	if u == nil {
		return ""
	}
	line := fmt.Sprintf("session %d tokens %s, last turn %d tokens %s", u.Session.Total, costText(u.Session), u.LastTurn.Total, costText(u.LastTurn))
	if u.Model != "" {
		line += " (" + u.Model + ")"
	}
	return line
}

// costText is a usage's cost: dollars, "-" when no token had a price,
// and a "+" when some tokens had none.
func costText(u proto.Usage) string {
	if u.CostUSD == nil {
		return "-"
	}
	s := "$" + strconv.FormatFloat(*u.CostUSD, 'f', 4, 64)
	if u.UnpricedTokens > 0 {
		s += "+"
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// table aligns rows: the first column left, the others right, except the
// last when leftLast (a text column).
func table(rows [][]string, leftLast bool) []string {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			case i == len(r)-1 && leftLast:
				b.WriteString("  " + c)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}
