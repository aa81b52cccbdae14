package api

import (
	"context"
	"encoding/json"

	"github.com/paneflow-go/paneflow/ipc"
)

// Identity reported by system.identify.
const (
	// IdentifyName is the "name" system.identify reports.
	IdentifyName = "Paneflow"
	// identifyCompat is the original app's spelling, reported as
	// "compat": single-instance probes (ours and the original's) look for
	// the JSON string "PaneFlow" in the identify reply.
	identifyCompat = "PaneFlow"
	// Protocol is the "protocol" system.identify reports.
	Protocol = "jsonrpc-2.0"
)

func (s *server) ping(context.Context, json.RawMessage) (any, error) {
	return map[string]bool{"pong": true}, nil
}

type capabilitiesResult struct {
	Scripting bool     `json:"scripting"`
	Methods   []string `json:"methods"`
}

// capabilities reports the scripting gate (the env var only, spec ipc.md
// §6) and every registered method.
func (s *server) capabilities(context.Context, json.RawMessage) (any, error) {
	return capabilitiesResult{Scripting: s.o.Scripting(), Methods: s.reg.Methods()}, nil
}

type identifyResult struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Protocol string `json:"protocol"`
	Compat   string `json:"compat"`
}

func (s *server) identify(context.Context, json.RawMessage) (any, error) {
	return identifyResult{Name: IdentifyName, Version: s.o.Version, Protocol: Protocol, Compat: identifyCompat}, nil
}

type fleetResult struct {
	Agents []any `json:"agents"`
}

// fleetList lists the agents Options.Agents knows, else none.
func (s *server) fleetList(context.Context, json.RawMessage) (any, error) {
	if s.o.Agents != nil {
		return s.fleetWithTeams(s.o.Agents.Fleet()), nil
	}
	return fleetResult{Agents: []any{}}, nil
}

// kindCounters is one admission kind in system.admission's result.
type kindCounters struct {
	Open     int    `json:"open"`
	Limit    int    `json:"limit"` // 0: none
	Admitted uint64 `json:"admitted"`
	Refused  uint64 `json:"refused"`
}

// admissionResult is system.admission's result: the socket server's
// requests by admission kind (ipc.Kind), and its idle connections.
type admissionResult struct {
	Calls              kindCounters `json:"calls"`
	Streams            kindCounters `json:"streams"`
	Hooks              kindCounters `json:"hooks"`
	Idle               int          `json:"idle"`
	IdleLimit          int          `json:"idle_limit"`
	Evicted            uint64       `json:"evicted"`
	FirstFrameTimeouts uint64       `json:"first_frame_timeouts"`
}

// admission reports Options.Admission: how many calls, streams and hook
// frames the server serves now, has served and has refused (a hook frame
// never is), so a user who got "server busy" sees what holds the slots,
// and a load test can count every hook frame.
func (s *server) admission(context.Context, json.RawMessage) (any, error) {
	a := s.o.Admission()
	k := func(k ipc.KindStats) kindCounters {
		return kindCounters{Open: k.Open, Limit: k.Limit, Admitted: k.Admitted, Refused: k.Refused}
	}
	return admissionResult{
		Calls: k(a.Calls), Streams: k(a.Streams), Hooks: k(a.Hooks),
		Idle: a.Idle, IdleLimit: a.IdleLimit, Evicted: a.Evicted, FirstFrameTimeouts: a.FirstFrameTimeouts,
	}, nil
}
