package ipc

import (
	"context"
	"strings"
	"time"
)

// Single-instance probe parameters (spec ipc.md §2).
const (
	// ProbeTimeout is the per-attempt timeout Listen uses.
	ProbeTimeout  = 300 * time.Millisecond
	probeAttempts = 3
	probePause    = 70 * time.Millisecond
	probeRequest  = `{"jsonrpc":"2.0","id":1,"method":"system.identify"}` + "\n"
)

// ProbeInstance reports whether a Paneflow answers at path: it sends
// system.identify up to 3 times, 70 ms apart, each attempt bounded by
// timeout (≤ 0 means [ProbeTimeout]), and returns the first reply line
// with alive true when it contains "PaneFlow". A reply from something else
// ends the probe with alive false and that line; connection failures and
// timeouts are retried, then give "" and false.
func ProbeInstance(path string, timeout time.Duration) (identifyLine string, alive bool) {
	if timeout <= 0 {
		timeout = ProbeTimeout
	}
	for attempt := range probeAttempts {
		if attempt > 0 {
			time.Sleep(probePause)
		}
		line, err := probeOnce(path, timeout)
		if err != nil {
			continue
		}
		return line, strings.Contains(line, `"PaneFlow"`)
	}
	return "", false
}

func probeOnce(path string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	nc, err := dialEndpoint(ctx, path)
	if err != nil {
		return "", err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(timeout))
	if _, err := nc.Write([]byte(probeRequest)); err != nil {
		return "", err
	}
	line, err := newFrameReader(nc, MaxFrame, serverReadBuffer).next()
	if err != nil {
		return "", err
	}
	return string(line), nil
}
