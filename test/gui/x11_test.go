//go:build linux

package gui

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// closeWindow asks X client window win to close, as a window manager's
// close button does: a WM_PROTOCOLS client message carrying
// WM_DELETE_WINDOW. Xvfb runs no window manager and xdotool has no command
// for it (windowclose destroys the window under its client's feet), so
// this speaks the few requests it needs of the X11 protocol itself, over
// the display's local socket (the tests' Xvfb needs no authorisation).
func closeWindow(display string, win uint32) error {
	n := strings.TrimPrefix(display, ":")
	if i := strings.IndexByte(n, '.'); i >= 0 {
		n = n[:i]
	}
	if _, err := strconv.Atoi(n); err != nil {
		return fmt.Errorf("x11: display %q is not :N", display)
	}
	conn, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+n, cliTimeout)
	if err != nil {
		return fmt.Errorf("x11: %w", err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(cliTimeout)); err != nil {
		return err
	}
	x := &x11conn{rw: conn}
	if err := x.setup(); err != nil {
		return err
	}
	protocols, err := x.internAtom("WM_PROTOCOLS")
	if err != nil {
		return err
	}
	deleteWindow, err := x.internAtom("WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	// SendEvent (25) of a ClientMessage (33), format 32, with an empty
	// event mask: X delivers it to the client that created win.
	req := make([]byte, 44)
	req[0] = 25
	binary.LittleEndian.PutUint16(req[2:], 11)
	binary.LittleEndian.PutUint32(req[4:], win)
	ev := req[12:]
	ev[0] = 33
	ev[1] = 32
	binary.LittleEndian.PutUint32(ev[4:], win)
	binary.LittleEndian.PutUint32(ev[8:], protocols)
	binary.LittleEndian.PutUint32(ev[12:], deleteWindow) // data.l[0]; l[1] = CurrentTime
	if _, err := x.rw.Write(req); err != nil {
		return fmt.Errorf("x11: SendEvent: %w", err)
	}
	x.seq++
	// GetInputFocus (43) has a reply: once it arrives the server has
	// handled SendEvent, or reported its error first.
	if _, err := x.request([]byte{43, 0, 1, 0}); err != nil {
		return fmt.Errorf("x11: SendEvent: %w", err)
	}
	return nil
}

// x11conn is a bare X11 protocol connection, little-endian: just enough
// for closeWindow. Not safe for concurrent use.
type x11conn struct {
	rw  io.ReadWriter
	seq uint16 // requests sent
}

// setup sends the connection setup without authorisation and reads the
// server's answer.
func (x *x11conn) setup() error {
	req := []byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := x.rw.Write(req); err != nil {
		return fmt.Errorf("x11: setup: %w", err)
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(x.rw, head); err != nil {
		return fmt.Errorf("x11: setup: %w", err)
	}
	rest := make([]byte, 4*int(binary.LittleEndian.Uint16(head[6:])))
	if _, err := io.ReadFull(x.rw, rest); err != nil {
		return fmt.Errorf("x11: setup: %w", err)
	}
	if head[0] != 1 {
		reason := rest
		if int(head[1]) <= len(reason) {
			reason = reason[:head[1]]
		}
		return fmt.Errorf("x11: the server refused the connection: %q", reason)
	}
	return nil
}

// internAtom returns the atom named name, creating it if need be.
func (x *x11conn) internAtom(name string) (uint32, error) {
	pad := (4 - len(name)%4) % 4
	req := make([]byte, 8+len(name)+pad)
	req[0] = 16
	binary.LittleEndian.PutUint16(req[2:], uint16(len(req)/4))
	binary.LittleEndian.PutUint16(req[4:], uint16(len(name)))
	copy(req[8:], name)
	reply, err := x.request(req)
	if err != nil {
		return 0, fmt.Errorf("x11: InternAtom %s: %w", name, err)
	}
	return binary.LittleEndian.Uint32(reply[8:]), nil
}

// request sends a request that has a reply and returns the reply's first
// 32 bytes, skipping events; an X error for any request sent so far is
// returned as an error.
func (x *x11conn) request(req []byte) ([]byte, error) {
	if _, err := x.rw.Write(req); err != nil {
		return nil, err
	}
	x.seq++
	for {
		msg := make([]byte, 32)
		if _, err := io.ReadFull(x.rw, msg); err != nil {
			return nil, err
		}
		switch msg[0] {
		case 0:
			return nil, fmt.Errorf("X error %d (request %d, value %#x)", msg[1], msg[10], binary.LittleEndian.Uint32(msg[4:]))
		case 1:
			if extra := binary.LittleEndian.Uint32(msg[4:]); extra > 0 {
				if _, err := io.CopyN(io.Discard, x.rw, 4*int64(extra)); err != nil {
					return nil, err
				}
			}
			if binary.LittleEndian.Uint16(msg[2:]) != x.seq {
				return nil, errors.New("a reply to another request")
			}
			return msg, nil
		}
		// An event: not asked for, but harmless.
	}
}
