package proto

// ArtifactParams are the params of artifact.get and artifact.keep: a
// pane's id (required), and for artifact.keep whether its artifact
// outlives the pane (nil: true).
type ArtifactParams struct {
	SurfaceID uint64 `json:"surface_id"`
	Keep      *bool  `json:"keep,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ArtifactParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uint("surface_id", p.SurfaceID)
	o.boolPtr("keep", p.Keep)
	return o.close()
}

// ArtifactGetResult is artifact.get's result: where the pane's agent's
// final answer is kept and, when it exists, the answer. Its members are
// in alphabetical order.
type ArtifactGetResult struct {
	// Exists is false when no answer was written (in this run).
	Exists bool `json:"exists"`
	Kept   bool `json:"kept"`
	// ModifiedUnixMS is the file's modification time.
	ModifiedUnixMS *int64 `json:"modified_unix_ms,omitempty"`
	// Output is the answer (untrusted text), cut to fit one reply frame
	// (Truncated, and OutputBytes its full length).
	Output      *string `json:"output,omitempty"`
	OutputBytes int     `json:"output_bytes,omitempty"`
	Path        string  `json:"path"`
	SurfaceID   uint64  `json:"surface_id"`
	// Tool is the agent that wrote it, when known.
	Tool        string `json:"tool,omitempty"`
	Truncated   *bool  `json:"truncated,omitempty"`
	WorkspaceID uint64 `json:"workspace_id"`
	// WrittenAt is when it was written (RFC 3339, UTC), when known.
	WrittenAt string `json:"written_at,omitempty"`
}

// ArtifactKeepResult is artifact.keep's result.
type ArtifactKeepResult struct {
	Kept        bool   `json:"kept"`
	SurfaceID   uint64 `json:"surface_id"`
	WorkspaceID uint64 `json:"workspace_id"`
}
