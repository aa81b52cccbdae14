package teams

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// Methods are the JSON-RPC methods [Registry.Register] adds, all in the
// teams namespace.
var Methods = proto.TeamsMethods[:]

// Registrar is where [Registry.Register] adds its methods: an
// *ipc.Registry, or a subsystem host's namespaced view of one.
type Registrar interface {
	Register(name string, h ipc.Handler, opts ...ipc.Option)
}

// Register adds the registry's methods to reg:
//
//   - teams.tmux {argv, pane?, surface_id?, cwd?, env?} → {stdout, stderr, exit_code}:
//     one run of the tmux shim (a command that fails is a result with
//     exit_code 1, not a JSON-RPC error);
//   - teams.attach {surface_id, env?} → {pane, window, session, tmux, context_id, backend_socket}:
//     the launch shim registers a Claude Code lead's pane before starting it;
//   - teams.list {} → {members: [...]}: the registered panes with their team,
//     teammate name and colour (paneflow ls/ps).
//
// teams.tmux and teams.attach are mutating (they start and close panes).
func (r *Registry) Register(reg Registrar) {
	reg.Register(proto.MethodTeamsTmux, func(_ context.Context, raw json.RawMessage) (any, error) {
		var req TmuxRequest
		if err := decode(raw, &req); err != nil {
			return nil, err
		}
		if len(req.Argv) > 1000 {
			return nil, ipc.InvalidParams("argv: too many arguments")
		}
		return r.Tmux(req), nil
	}, ipc.Mutating())
	reg.Register(proto.MethodTeamsAttach, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p proto.TeamsAttachParams
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		if p.SurfaceID == 0 {
			return nil, ipc.InvalidParams("surface_id is required")
		}
		info, err := r.Attach(p.SurfaceID, p.Env)
		if errors.Is(err, ErrGone) {
			return nil, ipc.Errorf(ipc.CodeInvalidParams, "%v", err)
		}
		return info, err
	}, ipc.Mutating())
	reg.Register(proto.MethodTeamsList, func(context.Context, json.RawMessage) (any, error) {
		return proto.TeamsListResult{Members: r.Members()}, nil
	})
}

// decode reads params; absent or null params are zero.
func decode(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return ipc.InvalidParams("%v", err)
	}
	return nil
}
