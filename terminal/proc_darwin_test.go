package terminal

import (
	"encoding/binary"
	"slices"
	"testing"
)

func TestParseProcArgs2(t *testing.T) {
	argc := func(n int32) []byte { return binary.NativeEndian.AppendUint32(nil, uint32(n)) }
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	for _, tc := range []struct {
		name    string
		in      []byte
		want    []string
		wantErr bool
	}{
		{"two args", cat(argc(2), []byte("/bin/sleep\x00\x00\x00\x00sleep\x00100\x00HOME=/x\x00")), []string{"sleep", "100"}, false},
		{"no padding", cat(argc(1), []byte("/bin/ls\x00ls\x00")), []string{"ls"}, false},
		{"too short", []byte{1, 0}, nil, true},
		{"missing args", cat(argc(3), []byte("/bin/ls\x00ls\x00")), nil, true},
		{"negative argc", cat(argc(-1), []byte("/bin/ls\x00")), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProcArgs2(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseProcArgs2 error = %v, want error: %v", err, tc.wantErr)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("parseProcArgs2 = %q, want %q", got, tc.want)
			}
		})
	}
}
