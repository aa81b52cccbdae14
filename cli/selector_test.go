package cli

import (
	"context"
	"slices"
	"testing"
)

func TestSelectorMatch(t *testing.T) {
	tests := []struct {
		sel  string
		want []uint64
	}{
		{"2", []uint64{2}},
		{"9", nil},
		{"shell", []uint64{1}},
		{"SHELL", []uint64{1}},
		{"claude", []uint64{2}}, // exact beats the prefix match of claude-2
		{"Claude-2", []uint64{3}},
		{"cla", []uint64{2, 3}}, // no exact match: every prefix match
		{"vi", []uint64{4}},
		{"nope", nil},
		{"cmdline:CLAUDE", []uint64{2, 3}},
		{"cmdline:--res", []uint64{2}},
		{"cmdline:bash", []uint64{1}},
		{"cmdline:vite", nil}, // a null cmd never matches
		{"cmdline:", []uint64{1, 2, 3}},
		{"cwd:/home/u/proj", []uint64{1, 2}}, // not /home/u/proj-backend
		{"cwd:/home/u/proj/", []uint64{1, 2}},
		{"cwd:/home/u//proj", []uint64{1, 2}},
		{"cwd:/home/u/proj/api", []uint64{2}},
		{"cwd:/home/u/pro", nil}, // a string prefix is not a path prefix
		{"cwd:/home/u/proj-backend", []uint64{3}},
		{"cwd:/", []uint64{1, 2, 3}}, // a null cwd never matches
		{"cwd:~/proj", []uint64{1, 2}},
		{"cwd:~", []uint64{1, 2, 3}},
		{"cwd:api", []uint64{2}}, // relative to the working directory /home/u/proj
		{"cwd:../proj-backend", []uint64{3}},
		{"cwd:.", []uint64{1, 2}},
	}
	s := newSession(&fakeServer{}, nil, nil)
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			sel, err := parseSelector(tt.sel, s.absPath)
			if err != nil {
				t.Fatalf("parseSelector(%q): %v", tt.sel, err)
			}
			var got []uint64
			for _, m := range sel.match(fixture(), "linux") {
				got = append(got, m.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("selector %q matched %v, want %v", tt.sel, got, tt.want)
			}
		})
	}
}

func TestParseSelectorErrors(t *testing.T) {
	s := newSession(&fakeServer{}, nil, nil)
	noHome := newSession(&fakeServer{}, nil, nil)
	noHome.getenv = func(string) string { return "" }
	tests := []struct {
		name     string
		s        *session
		sel      string
		wantCode int
	}{
		{"empty", s, "", ExitUsage},
		{"empty cwd", s, "cwd:", ExitUsage},
		{"tilde without HOME", noHome, "cwd:~/x", ExitFailure},
		{"unknown user", s, "cwd:~no-such-user-paneflow/x", ExitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSelector(tt.sel, tt.s.absPath)
			if err == nil {
				t.Fatalf("parseSelector(%q) succeeded, want an error", tt.sel)
			}
			code := ExitFailure
			if ee, ok := err.(*exitError); ok {
				code = ee.Code
			}
			if code != tt.wantCode {
				t.Errorf("parseSelector(%q) error %q has exit code %d, want %d", tt.sel, err, code, tt.wantCode)
			}
		})
	}
}

func TestPathWithin(t *testing.T) {
	tests := []struct {
		p, dir, goos string
		want         bool
	}{
		{"/a/proj", "/a/proj", "linux", true},
		{"/a/proj/x", "/a/proj", "linux", true},
		{"/a/proj/x/y", "/a/proj", "linux", true},
		{"/a/proj-backend", "/a/proj", "linux", false},
		{"/a/projx/y", "/a/proj", "linux", false},
		{"/a", "/a/proj", "linux", false},
		{"/a/proj/", "/a/proj", "linux", true},
		{"/a/proj", "/a/proj/", "linux", true},
		{"/anything", "/", "linux", true},
		{"/A/Proj", "/a/proj", "linux", false},
		{`C:\Users\me\proj\x`, `c:\users\me\proj`, "windows", true},
		{`C:\Users\me\proj-b`, `C:\Users\me\proj`, "windows", false},
		{`C:/Users/me/proj/x`, `C:\Users\me\proj`, "windows", true},
		{`C:\x`, `C:\`, "windows", true},
	}
	for _, tt := range tests {
		if got := pathWithin(tt.p, tt.dir, tt.goos); got != tt.want {
			t.Errorf("pathWithin(%q, %q, %s) = %v, want %v", tt.p, tt.dir, tt.goos, got, tt.want)
		}
	}
}

func TestAbsPath(t *testing.T) {
	s := newSession(&fakeServer{}, nil, nil)
	tests := []struct{ in, want string }{
		{"~", "/home/u"},
		{"~/", "/home/u"},
		{"~/code/x", "/home/u/code/x"},
		{"sub", "/home/u/proj/sub"},
		{"./sub/../other", "/home/u/proj/other"},
		{"..", "/home/u"},
		{"/abs//path/", "/abs/path"},
	}
	for _, tt := range tests {
		got, err := s.absPath(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("absPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestResolveOne(t *testing.T) {
	tests := []struct {
		sel      string
		wantID   uint64
		wantCode int
		wantMsg  string
	}{
		{sel: "claude", wantID: 2},
		{sel: "cla", wantCode: ExitNoTarget, wantMsg: "ambiguous target 'cla'; matches: 2(claude), 3(claude-2)"},
		{sel: "cwd:/home/u/proj", wantCode: ExitNoTarget, wantMsg: "ambiguous target 'cwd:/home/u/proj'; matches: 1(shell), 2(claude)"},
		{sel: "zzz", wantCode: ExitNoTarget, wantMsg: "no pane matches target 'zzz'"},
		{sel: "77", wantCode: ExitNoTarget, wantMsg: "no pane matches target '77'"},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			f := &fakeServer{t: t, surfaces: fixture()}
			s := newSession(f, nil, nil)
			got, err := s.resolveOne(context.Background(), f, tt.sel)
			if tt.wantMsg == "" {
				if err != nil || got.ID != tt.wantID {
					t.Fatalf("resolveOne(%q) = %d, %v; want %d", tt.sel, got.ID, err, tt.wantID)
				}
				return
			}
			ee, ok := err.(*exitError)
			if !ok {
				t.Fatalf("resolveOne(%q) error = %v, want an exit error", tt.sel, err)
			}
			if ee.Code != tt.wantCode || ee.Err.Error() != tt.wantMsg {
				t.Errorf("resolveOne(%q) = exit %d %q, want exit %d %q", tt.sel, ee.Code, ee.Err, tt.wantCode, tt.wantMsg)
			}
		})
	}
}
