package api

import (
	"context"
	"encoding/json"
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
