//go:build !windows

package terminal

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	// size [OUTPUT]: write OUTPUT (if given), then print the terminal size
	// as "COLSxROWS", then again on every SIGWINCH, until killed.
	helpers["size"] = func(args []string) int {
		winch := make(chan os.Signal, 1)
		signal.Notify(winch, unix.SIGWINCH)
		if len(args) > 0 { // output that changes the size (DECCOLM)
			os.Stdout.WriteString(args[0])
		}
		for {
			ws, err := unix.IoctlGetWinsize(int(os.Stdin.Fd()), unix.TIOCGWINSZ)
			if err != nil {
				fmt.Fprintln(os.Stderr, "size:", err)
				return 1
			}
			fmt.Printf("%dx%d\n", ws.Col, ws.Row)
			<-winch
		}
	}
	// query: put the terminal in raw mode, ask for DA1 and the cursor
	// position, and print the replies Go-quoted (or "timeout").
	helpers["query"] = func([]string) int {
		fd := int(os.Stdin.Fd())
		old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
		if err != nil {
			fmt.Fprintln(os.Stderr, "query:", err)
			return 1
		}
		raw := *old
		raw.Lflag &^= unix.ICANON | unix.ECHO
		raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
		if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
			fmt.Fprintln(os.Stderr, "query:", err)
			return 1
		}
		os.Stdout.WriteString("\x1b[c\x1b[3;5H\x1b[6n")
		got := make(chan string, 1)
		go func() {
			var reply []byte
			buf := make([]byte, 64)
			for !strings.HasSuffix(string(reply), "R") {
				n, err := os.Stdin.Read(buf)
				if err != nil {
					break
				}
				reply = append(reply, buf[:n]...)
			}
			got <- string(reply)
		}()
		select {
		case r := <-got:
			unix.IoctlSetTermios(fd, ioctlSetTermios, old)
			fmt.Printf("\r\nreply %q\r\n", r)
			return 0
		case <-time.After(20 * time.Second):
			fmt.Println("timeout")
			return 1
		}
	}
	// flood N: ask for N device-attribute replies without ever reading
	// them, then print "flooded". The terminal must not stall.
	helpers["flood"] = func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		q := strings.Repeat("\x1b[c", 1000)
		for i := 0; i < n; i += 1000 {
			os.Stdout.WriteString(q)
		}
		fmt.Println("flooded")
		return 0
	}
}

// ignoreTermSignals makes the helper ignore SIGHUP and SIGTERM, so that
// only SIGKILL ends it.
func ignoreTermSignals() {
	signal.Ignore(unix.SIGHUP, unix.SIGTERM)
}
