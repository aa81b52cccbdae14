// Package vtrelay runs an interactive terminal test program (vttest) so
// that a harness can drive it deterministically through any terminal:
// Paneflow's `paneflow serve`, tmux, or xterm under Xvfb.
//
// The relay is the program of the terminal under test. It starts vttest
// on an inner pseudo-terminal of its own and copies bytes between the two
// sides, with three rules that take time out of the result:
//
//   - Replies are complete before vttest reads them. vttest reads a reply
//     with a 100 ms sleep after its first byte (unix_io.c), so a reply
//     that arrives in pieces, or late on a loaded machine, would change
//     what it prints. The relay follows each chunk of vttest's output with
//     its own status request (CSI 5 n) and holds everything the terminal
//     sends back until the answer to that request (CSI 0 n) arrives: by
//     then the terminal has parsed the chunk and answered every query in
//     it. vttest's own CSI 5 n requests are counted, so their answers pass
//     through and only the relay's last one is swallowed.
//   - Input reaches vttest only while it waits for input, and whole: when
//     vttest sleeps in read(2) on its terminal with nothing left to read
//     (/proc/<pid>/syscall, its state S in /proc/<pid>/stat and FIONREAD,
//     all seen within one sleep: its context switch counts in
//     /proc/<pid>/status did not change around them), the relay stops it
//     (SIGSTOP), writes the held replies or the harness's keys into the
//     inner terminal, waits until the kernel shows all of them in
//     vttest's input queue (FIONREAD), and lets it go on (SIGCONT).
//   - The harness looks only at settled screens: vttest waits for input,
//     every byte it wrote has been passed on and answered for, and no
//     reply is held. The relay then asks the terminal where its cursor is
//     (CSI 6 n) and sends the harness an [Event]; the harness reads the
//     terminal's screen however that terminal allows and answers with the
//     next keys ([Command]), which the relay gives vttest as above.
//
// So nothing in a run waits for a time to pass: how loaded the machine is
// changes how long a run takes, not what it shows.
//
// Keys from the harness never go through the terminal under test (its key
// encoding is not what is tested, and an echo the terminal adds locally
// would differ between terminals); a carriage return is given as a line
// feed while the inner terminal does not map CR to NL (vttest then reads
// lines in raw mode and waits for "\n").
//
// # Usage
//
// The harness listens on a Unix socket and starts the relay as the
// terminal's program, usually its own test binary re-executed ([Main],
// called from TestMain when [EnvControl] is set). [Listen] accepts the
// relay's connection; [Conn.Next] returns each settled state and
// [Conn.Send] the keys that answer it. The relay exits when vttest does
// and reports the exit as a last event.
//
// # What it does not do
//
// It does not understand VT52 mode or printer-controller mode (the
// terminal answers no CSI 5 n there), so a harness must keep vttest out of
// the tests that enter them. It reads /proc, so it runs on Linux only.
//
// # Concurrency
//
// [Main] and [Run] use one goroutine besides a waiter for vttest's exit.
// A [Conn] is for one goroutine at a time.
package vtrelay
