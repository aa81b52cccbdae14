package api

import (
	"context"
	"encoding/json"
	"runtime"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

func (s *server) ping(context.Context, json.RawMessage) (any, error) {
	return proto.SystemPingResult{Pong: true}, nil
}

// capabilities reports the scripting gate (the env var only, spec ipc.md
// §6) and every registered method.
func (s *server) capabilities(context.Context, json.RawMessage) (any, error) {
	return proto.SystemCapabilitiesResult{Scripting: s.o.Scripting(), Methods: s.reg.Methods()}, nil
}

func (s *server) identify(context.Context, json.RawMessage) (any, error) {
	return proto.SystemIdentifyResult{Name: proto.IdentifyName, Version: s.o.Version, Protocol: proto.Protocol, Compat: proto.IdentifyCompat, PID: s.o.pid}, nil
}

// fleetList lists the agents Options.Agents knows, else none, with their
// teams and usage (fleetRows).
func (s *server) fleetList(context.Context, json.RawMessage) (any, error) {
	if s.o.Agents != nil {
		return s.fleetRows(s.o.Agents.Fleet()), nil
	}
	return proto.FleetListResult{Agents: []proto.FleetRow{}}, nil
}

// admission reports Options.Admission: how many calls, streams and hook
// frames the server serves now, has served and has refused (a hook frame
// never is), so a user who got "server busy" sees what holds the slots,
// and a load test can count every hook frame.
func (s *server) admission(context.Context, json.RawMessage) (any, error) {
	a := s.o.Admission()
	k := func(k ipc.KindStats) proto.AdmissionKind {
		return proto.AdmissionKind{Open: k.Open, Limit: k.Limit, Admitted: k.Admitted, Refused: k.Refused}
	}
	return proto.SystemAdmissionResult{
		Calls: k(a.Calls), Streams: k(a.Streams), Hooks: k(a.Hooks),
		Idle: a.Idle, IdleLimit: a.IdleLimit, Evicted: a.Evicted, FirstFrameTimeouts: a.FirstFrameTimeouts,
		Goroutines: runtime.NumGoroutine(),
	}, nil
}

// shutdown answers, then asks the host to end (Options.Shutdown): once
// the reply is out, or the host's shutdown, which cancels the requests in
// flight, could beat it and the client would read "shutting down" or
// nothing (the window's "Stop everything" then stayed open).
func (s *server) shutdown(ctx context.Context, _ json.RawMessage) (any, error) {
	if !ipc.AfterReply(ctx, s.o.Shutdown) {
		s.o.Shutdown()
	}
	return proto.SystemShutdownResult{Stopping: true, PID: s.o.pid}, nil
}
