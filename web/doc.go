// Package web is the browser client of a Paneflow server (`paneflow serve
// --web ADDR`, issue 31): an HTTP server in the process that owns the
// panes, serving one embedded page (no CDN, no build step) that shows the
// agents of every workspace live, mirrors a pane's screen from the
// server's own screen model, and types prompts and keys into panes.
//
// It is a subsystem of the headless core ([Service]; namespace web:
// web.pair, web.list, web.revoke), and reaches the panes only through the
// server's socket, as any client does: surface.list and fleet.list for the
// overview (refreshed on each events.subscribe frame that can change it),
// screen.attach for a pane's screen (the server's per-client encoder and
// pacing; the frames are relayed to the page as they come, never decoded
// and encoded again), screen.rows for its scrollback, surface.send_text and surface.send_keystroke for
// writes, so the scripting gate applies to a browser as to any script.
//
// # Security
//
// It listens on a loopback address unless given a TLS certificate
// ([CheckListen] refuses anything else and says why). A browser is paired
// with a one-time link (web.pair; `paneflow web pair`) whose token is
// consumed by a POST from the page the link opens (a link preview that
// only fetches it pairs nothing); pairing attempts are rate-limited. The
// browser then holds a session cookie (HttpOnly, SameSite=Strict, Secure
// and __Host- prefixed under TLS) whose HMAC under a per-server secret is
// kept, with the secret, in a 0600 file of the state directory. Every
// request but the page's static files needs that cookie; the Host header
// must name the server (a DNS-rebinding page is refused) and a WebSocket's
// Origin must be the server's own origin, so another site cannot open one
// with the user's cookie. Writes travel only over that WebSocket: no form
// or cross-site request can make one. A read-only pairing never writes;
// web.revoke ends a browser's session and closes its WebSockets at once.
//
// A prompt the composer submits to an agent pane has its turn start
// confirmed as `paneflow send --submit` confirms it
// ([proto.Client.ConfirmTurnStart]): the page says "Sent" at once and then
// whether the agent started its turn, without holding up the next key.
//
// # Concurrency
//
// A [Service] is safe for concurrent use once Init returned. One goroutine
// serves HTTP; one per WebSocket reads its messages, and one per open pane
// relays that pane's screen frames; one hub goroutine follows the events
// and refreshes the overview. Shutdown stops them all and waits.
package web
