//go:build linux

package bench

import (
	"testing"
	"time"
)

func TestMarkNanos(t *testing.T) {
	tests := []struct {
		name, line, tag string
		want            int64
		wantErr         bool
	}{
		{name: "ok", line: "MARK s3 1700000000123456789", tag: "s3", want: 1700000000123456789},
		{name: "other tag", line: "MARK s4 17", tag: "s3", wantErr: true},
		{name: "no time", line: "MARK s3", tag: "s3", wantErr: true},
		{name: "not a number", line: "MARK s3 x", tag: "s3", wantErr: true},
		{name: "prefix text", line: "$ MARK s3 17", tag: "s3", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := markNanos(tt.line, tt.tag)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error: got %v, want error %v", err, tt.wantErr)
			}
			if err == nil && got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	tests := []struct {
		p    float64
		want float64
	}{{0, 1}, {10, 1}, {50, 5}, {90, 9}, {99, 10}, {100, 10}}
	for _, tt := range tests {
		if got := percentile(xs, tt.p); got != tt.want {
			t.Errorf("percentile(%v): got %v, want %v", tt.p, got, tt.want)
		}
	}
}

func TestPaneLogWaitLine(t *testing.T) {
	l := newPaneLog()
	t0 := time.Unix(100, 0)
	l.add("%1", []byte("noise\r\nMARK a"), t0)
	l.add("%2", []byte("MARK a 1\r\n"), t0.Add(time.Second)) // another pane
	go l.add("%1", []byte(" 42\r\nmore"), t0.Add(2*time.Second))
	line, at, err := l.waitLine("%1", "MARK a ", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if line != "MARK a 42" {
		t.Errorf("line: got %q, want %q", line, "MARK a 42")
	}
	if want := t0.Add(2 * time.Second); !at.Equal(want) {
		t.Errorf("arrival: got %v, want %v (the piece that completed the line)", at, want)
	}
	if _, _, err := l.waitLine("%1", "absent", 10*time.Millisecond); err == nil {
		t.Error("got no error waiting for text that never comes, want a timeout")
	}
	l.forget("%1")
	if _, _, err := l.waitLine("%1", "MARK a ", 10*time.Millisecond); err == nil {
		t.Error("got a line after forget, want a timeout")
	}
}
