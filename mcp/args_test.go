package mcp

import (
	"encoding/json"
	"testing"
)

func TestBoolAndSecondsArgs(t *testing.T) {
	a, err := decodeArgs(json.RawMessage(`{"yes":true,"no":false,"null":null,"str":"true",` +
		`"half":0.5,"zero":0,"neg":-1,"huge":1e9,"text":"5"}`))
	if err != nil {
		t.Fatal(err)
	}
	bools := []struct {
		name      string
		def, want bool
		err       string
	}{
		{"yes", false, true, ""},
		{"no", true, false, ""},
		{"absent", true, true, ""},
		{"null", true, true, ""},
		{"str", false, false, "'str' must be a boolean"},
	}
	for _, tt := range bools {
		got, err := a.boolArg(tt.name, tt.def)
		if got != tt.want || errText(err) != tt.err {
			t.Errorf("boolArg(%q, %v) = %v, %v; want %v, %q", tt.name, tt.def, got, err, tt.want, tt.err)
		}
	}
	secs := []struct {
		name      string
		def, want float64
		err       string
	}{
		{"half", 30, 0.5, ""},
		{"absent", 30, 30, ""},
		{"null", 7, 7, ""},
		{"huge", 30, maxWaitSecs, ""},
		{"zero", 30, 0, "'zero' must be greater than 0"},
		{"neg", 30, 0, "'neg' must be greater than 0"},
		{"text", 30, 0, "'text' must be a number"},
	}
	for _, tt := range secs {
		got, err := a.secondsArg(tt.name, tt.def)
		if got != tt.want || errText(err) != tt.err {
			t.Errorf("secondsArg(%q, %v) = %v, %v; want %v, %q", tt.name, tt.def, got, err, tt.want, tt.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
