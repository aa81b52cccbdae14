// Package remote carries Paneflow's socket to another host over the
// user's own ssh: nothing of ours listens on a network port, and ssh (the
// user's config, keys, agent, ProxyJump, ControlMaster) does the
// transport, authentication and encryption.
//
// The remote side is `paneflow bridge` ([Serve]): run by ssh as the
// user, it relays channels between its stdin/stdout and connections to
// the local Paneflow socket, which it dials as that user, so the
// server's own peer-UID admission is the check. The client side is
// [Dial]: one ssh process running the bridge ([Conn]), on which
// [Conn.Open] makes a net.Conn per socket connection (ipc.Client's Dial,
// ipc.DialMuxWith). [RunLink] keeps one Conn open for a while behind a
// private Unix socket in the user's runtime directory, so that each CLI
// call reuses it (see [EnsureLink]). [Exec] runs a paneflow verb on the
// remote host (up and flow run, whose specs are the remote's files) and
// [Install] copies this build there.
//
// Everything here is safe for concurrent use unless a type says
// otherwise; zero values are not usable (use the constructors).
package remote
