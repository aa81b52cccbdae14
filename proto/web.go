package proto

// This file holds web.*: pairing browsers with the web client of
// `paneflow serve --web` and managing the paired ones (package web).

// MsgWebOff is the error of web.* on a server that serves no web client.
const MsgWebOff = "this server serves no web client: start it with `paneflow serve --web 127.0.0.1:PORT`"

// WebPairParams are web.pair's params.
type WebPairParams struct {
	// ReadOnly pairs a browser that may watch but never write (no
	// prompts, no keys).
	ReadOnly bool `json:"read_only"`
	// QR asks for the link's QR code in the result (WebPairResult.QR),
	// which the command-line client draws on a terminal: the client
	// links no QR encoder. False: no code.
	QR bool `json:"qr,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WebPairParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.boolean("read_only", p.ReadOnly)
	o.boolOmit("qr", p.QR)
	return o.close()
}

// WebPairResult is web.pair's result: a one-time link that pairs the
// first browser to open it and confirm, valid for ExpiresInMS.
type WebPairResult struct {
	URL         string `json:"url"`
	ReadOnly    bool   `json:"read_only"`
	ExpiresInMS int64  `json:"expires_in_ms"`
	// QR is URL's QR code when the params asked for it: one string per
	// row of modules, '1' dark and '0' light, as many rows as columns,
	// the quiet zone included. Nil when not asked for, or when the link
	// does not fit a code.
	QR []string `json:"qr,omitempty"`
}

// WebBrowser is one paired browser.
type WebBrowser struct {
	// ID names it to web.revoke.
	ID       string `json:"id"`
	ReadOnly bool   `json:"read_only"`
	// UserAgent is the browser's User-Agent header when it paired.
	UserAgent string `json:"user_agent"`
	// PairedAt and LastSeen are RFC 3339 times (the server's clock);
	// LastSeen is "" before its first request after pairing.
	PairedAt string `json:"paired_at"`
	LastSeen string `json:"last_seen,omitempty"`
	// Connections counts its open WebSockets.
	Connections int `json:"connections"`
}

// WebListResult is web.list's result: the web client's address and the
// paired browsers, oldest first.
type WebListResult struct {
	URL      string       `json:"url"`
	Browsers []WebBrowser `json:"browsers"`
}

// WebRevokeParams are web.revoke's params.
type WebRevokeParams struct {
	ID string `json:"id"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WebRevokeParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("id", p.ID)
	return o.close()
}

// WebRevokeResult is web.revoke's result: the browser's session is gone
// and Closed of its WebSockets were closed.
type WebRevokeResult struct {
	Revoked bool `json:"revoked"`
	Closed  int  `json:"closed"`
}
