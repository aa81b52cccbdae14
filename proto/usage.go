package proto

// UsageSummaryParams are usage.summary's params. Since and Until take
// "today", "yesterday", "now", a local date (YYYY-MM-DD), an RFC 3339
// time, or a span back from now ("90m", "36h", "7d"); Since defaults to
// today's start, Until to now. By groups the usage: "agent", "workspace",
// "flow" (flow runs), "model" or "day"; "" gives the total only.
type UsageSummaryParams struct {
	Since string `json:"since,omitempty"`
	Until string `json:"until,omitempty"`
	By    string `json:"by,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p UsageSummaryParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.strOmit("since", p.Since)
	o.strOmit("until", p.Until)
	o.strOmit("by", p.By)
	return o.close()
}

// UsageGroupings are usage.summary's groupings (its By).
var UsageGroupings = [...]string{"agent", "workspace", "flow", "model", "day"}

// UsageSummary is usage.summary's result: the usage from Since to Until
// (RFC 3339; by whole hours: an hour that overlaps the span counts
// whole), its Groups (largest first; by day, in date order), and the
// day's budget when the configuration sets one.
type UsageSummary struct {
	Since  string       `json:"since"`
	Until  string       `json:"until"`
	By     string       `json:"by,omitempty"`
	Total  Usage        `json:"total"`
	Groups []UsageGroup `json:"groups"`
	Daily  *UsageDaily  `json:"daily_budget,omitempty"`
}

// UsageGroup is one group of a [UsageSummary]: Key is the agent, the
// workspace's title, the model, the day (YYYY-MM-DD) or, by flow, the run
// id with the flow's name in Flow; "" is usage outside any (no workspace,
// no flow run, unknown model).
type UsageGroup struct {
	Key   string `json:"key"`
	Flow  string `json:"flow,omitempty"`
	Usage Usage  `json:"usage"`
}

// UsageDaily is where the day's budget stands: what Day used, the limits,
// and whether crossing it pauses the working agents.
type UsageDaily struct {
	Day          string  `json:"day"`
	Used         Usage   `json:"used"`
	LimitTokens  int64   `json:"limit_tokens,omitempty"`
	LimitCostUSD float64 `json:"limit_cost_usd,omitempty"`
	Pause        bool    `json:"pause"`
}

// UsageLimitParams are a budget: the most tokens (of every kind) and the
// most dollars, either or both (each positive when given).
type UsageLimitParams struct {
	Tokens  *int64   `json:"tokens,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p UsageLimitParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.int64Ptr("tokens", p.Tokens)
	o.floatPtr("cost_usd", p.CostUSD)
	return o.close()
}

// UsageTrackParams are usage.track's params: pane SurfaceID (required)
// belongs to flow run Run (required: an id the caller makes up, unique
// per run; Label is the flow's or spec's name), as part of Step ("":
// none). Budget limits the step (all of its panes together), RunBudget the
// whole run (the first call that gives one sets it). The result is
// {"ok": true}.
type UsageTrackParams struct {
	SurfaceID uint64            `json:"surface_id"`
	Run       string            `json:"run"`
	Label     string            `json:"label,omitempty"`
	Step      string            `json:"step,omitempty"`
	Budget    *UsageLimitParams `json:"budget,omitempty"`
	RunBudget *UsageLimitParams `json:"run_budget,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p UsageTrackParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uint("surface_id", p.SurfaceID)
	o.str("run", p.Run)
	o.strOmit("label", p.Label)
	o.strOmit("step", p.Step)
	if p.Budget != nil {
		o.object("budget", p.Budget)
	}
	if p.RunBudget != nil {
		o.object("run_budget", p.RunBudget)
	}
	return o.close()
}

// OKResult is the result of a method that only confirms: {"ok": true}.
type OKResult struct {
	OK bool `json:"ok"`
}

// UsageBudgetWaitParams are usage.budget_wait's params: run Run's budget
// alerts after its first After. The call returns once there is one (it is
// a long call: it lasts as long as the run may).
type UsageBudgetWaitParams struct {
	Run   string `json:"run"`
	After int    `json:"after"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p UsageBudgetWaitParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("run", p.Run)
	o.int("after", int64(p.After))
	return o.close()
}

// UsageBudgetWaitResult is usage.budget_wait's result: the run's budget
// alerts after the first After, in order (at least one), and Next, the
// After of the next call.
type UsageBudgetWaitResult struct {
	Alerts []BudgetAlert `json:"alerts"`
	Next   int           `json:"next"`
}

// UsagePrice is a model's price in dollars per million tokens (see
// usage.Price): a cache price of 0 is the input price; above LongAbove
// prompt tokens Long applies. Source and AsOf say where it comes from and
// when it was read there.
type UsagePrice struct {
	Model        string      `json:"model,omitempty"`
	Input        float64     `json:"input"`
	Output       float64     `json:"output"`
	CacheRead    float64     `json:"cache_read,omitempty"`
	CacheWrite   float64     `json:"cache_write,omitempty"`
	CacheWrite1h float64     `json:"cache_write_1h,omitempty"`
	LongAbove    int64       `json:"long_above,omitempty"`
	Long         *UsagePrice `json:"long,omitempty"`
	Source       string      `json:"source,omitempty"`
	AsOf         string      `json:"as_of,omitempty"`
}

// UsagePricesResult is usage.prices's result (its params are
// [NoParams]): the price table, by model name.
type UsagePricesResult struct {
	Prices []UsagePrice `json:"prices"`
}

// UsageStatus is surface.status's "usage" member: the agent of the
// pane's last session, the model of its last response, and what its
// session and its current or last turn used.
type UsageStatus struct {
	Tool     string `json:"tool"`
	Model    string `json:"model"`
	Session  Usage  `json:"session"`
	LastTurn Usage  `json:"last_turn"`
}
