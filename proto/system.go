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
	// PID is the server's process id (0 from servers before it existed):
	// who started the server that answers (`paneflow serve --detach`, the
	// window) tells it from another by it.
	PID int `json:"pid,omitempty"`
}

// AdmissionKind is one admission kind's counters in
// [SystemAdmissionResult]: requests of that kind being served now, the
// kind's limit (0: none), and how many were admitted and refused since
// the server started.
type AdmissionKind struct {
	Open     int    `json:"open"`
	Limit    int    `json:"limit"`
	Admitted uint64 `json:"admitted"`
	Refused  uint64 `json:"refused"`
}

// SystemAdmissionResult is system.admission's result: the socket server's
// requests by admission kind (calls: request/response methods; streams:
// events.subscribe and the long waits; hooks: ai.* frames, never
// refused), its idle connections (connected, between requests) and their
// cap, the idle connections evicted to make room for new ones, and the
// connections closed for sending no first request in time.
type SystemAdmissionResult struct {
	Calls              AdmissionKind `json:"calls"`
	Streams            AdmissionKind `json:"streams"`
	Hooks              AdmissionKind `json:"hooks"`
	Idle               int           `json:"idle"`
	IdleLimit          int           `json:"idle_limit"`
	Evicted            uint64        `json:"evicted"`
	FirstFrameTimeouts uint64        `json:"first_frame_timeouts"`
	// Goroutines is how many goroutines the server runs now: with the
	// stream counts, what a leak check (attach and detach in a loop)
	// watches.
	Goroutines int `json:"goroutines"`
}

// SystemShutdownResult is system.shutdown's result: the server's process
// id, which ends once the server has saved its session and closed its
// panes and socket (a client that must see the end waits for the socket
// to stop answering).
type SystemShutdownResult struct {
	Stopping bool `json:"stopping"`
	PID      int  `json:"pid"`
}

// ConcurrentResult is the reply to the transport's [MethodRPCConcurrent]
// handshake.
type ConcurrentResult struct {
	Concurrent  bool `json:"concurrent"`
	MaxInFlight int  `json:"max_in_flight"`
}
