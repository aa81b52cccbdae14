package proto

// Identity reported by system.identify.
const (
	// IdentifyName is the "name" system.identify reports.
	IdentifyName = "Paneflow"
	// IdentifyCompat is the original app's spelling, reported as
	// "compat": single-instance probes (ours and the original's) look for
	// the JSON string "PaneFlow" in the identify reply.
	IdentifyCompat = "PaneFlow"
	// Protocol is the "protocol" system.identify reports.
	Protocol = "jsonrpc-2.0"
)

// NoParams is the params of a method that takes none: it encodes as {}
// (a request with "params": {}).
type NoParams struct{}

// AppendJSON appends {}.
func (NoParams) AppendJSON(dst []byte) []byte { return append(dst, "{}"...) }

// SystemPingResult is system.ping's result.
type SystemPingResult struct {
	Pong bool `json:"pong"`
}

// SystemCapabilitiesResult is system.capabilities' result: whether the
// scripting gate is open (the server's PANEFLOW_IPC_SCRIPTING) and every
// registered method, sorted.
type SystemCapabilitiesResult struct {
	Scripting bool     `json:"scripting"`
	Methods   []string `json:"methods"`
}

// SystemIdentifyResult is system.identify's result.
type SystemIdentifyResult struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Protocol string `json:"protocol"`
	Compat   string `json:"compat"`
}

// ConcurrentResult is the reply to the transport's [MethodRPCConcurrent]
// handshake.
type ConcurrentResult struct {
	Concurrent  bool `json:"concurrent"`
	MaxInFlight int  `json:"max_in_flight"`
}
