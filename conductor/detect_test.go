package conductor

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
)

func TestMatchProcess(t *testing.T) {
	tests := []struct {
		comm     string
		argv     []string
		wantTool string
	}{
		{"claude", []string{"claude"}, "claude"},
		{"claude", nil, "claude"}, // a zombie has no cmdline
		{"cursor-agent", []string{"cursor-agent"}, "cursor-agent"},
		{"2.1.3", []string{"/home/u/.local/bin/claude", "-p", "hi"}, "claude"},
		{"codex.exe", []string{`C:\Users\u\bin\codex.exe`}, "codex"},
		{"node", []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}, "claude"},
		{"node", []string{"node", "--max-old-space-size=8192", "/opt/gemini.js"}, "gemini"},
		{"node", []string{"/usr/bin/node", "/usr/local/bin/opencode"}, "opencode"},
		{"node", []string{"node", "/x/node_modules/@openai/codex/bin/codex.js"}, "codex"},
		{"bun", []string{"bun", "/x/node_modules/@sourcegraph/amp/dist/main.js"}, "amp"},
		{"MainThread", []string{"node", "/x/node_modules/@github/copilot/index.js"}, "copilot"},
		{"deno", []string{"deno", "run", "-A", "npm:@google/gemini-cli"}, "gemini"},
		{"python3", []string{"python3", "/usr/bin/qodercli"}, "qodercli"},
		{"node", []string{"node", "server.js", "claude"}, ""},
		{"node", []string{"node"}, ""},
		{"grep", []string{"grep", "claude", "notes.txt"}, ""},
		{"claude-code", []string{"claude-code"}, ""},
		{"Claude", []string{"Claude"}, ""},
		{"bash", []string{"-bash"}, ""},
		{"", nil, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s%q", tt.comm, tt.argv), func(t *testing.T) {
			got, ok := proto.MatchProcess(tt.comm, tt.argv)
			if got != tt.wantTool || ok != (tt.wantTool != "") {
				t.Errorf("proto.MatchProcess(%q, %q) = %q, %v, want %q", tt.comm, tt.argv, got, ok, tt.wantTool)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		in      string
		want    process
		wantErr bool
	}{
		{"42 (bash) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 0 0", process{PID: 42, PPID: 1, Start: 12345, Comm: "bash"}, false},
		{"43 (a) (b) c) R 42 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 99 0 0", process{PID: 43, PPID: 42, Start: 99, Comm: "a) (b) c"}, false},
		{"44 (x y) S 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 5", process{PID: 44, PPID: 7, Start: 5, Comm: "x y"}, false},
		{"45 (short) S 1 2 3", process{}, true},
		{"(nopid) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 5", process{}, true},
		{"46 noparens S 1", process{}, true},
		{"47 (bad) S x 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 5", process{}, true},
		{"48 (claude) Z 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 5", process{PID: 48, PPID: 1, Start: 5, Comm: "claude", Dead: true}, false},
		{"", process{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseStat([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseStat error = %v, want error %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseStat = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDetectFakeProc runs detection on the fake /proc in
// testdata/proc/tree.txt, with and without the kernel's children files.
func TestDetectFakeProc(t *testing.T) {
	tests := []struct {
		root    int
		want    []detected
		wantErr bool
	}{
		{100, nil, false},
		{200, []detected{{Tool: "claude", PID: 201, Start: 2001}, {Tool: "codex", PID: 204, Start: 2004}}, false},
		{300, []detected{{Tool: "claude", PID: 301, Start: 3001}}, false},
		{400, []detected{{Tool: "gemini", PID: 401, Start: 4001}}, false},
		{500, []detected{{Tool: "gemini", PID: 501, Start: 5001}}, false},
		{600, nil, false},
		{700, []detected{{Tool: "cursor-agent", PID: 701, Start: 7001}}, false},
		{800, []detected{{Tool: "codex", PID: 800, Start: 8000}}, false},
		{999, nil, true},
	}
	for _, children := range []bool{true, false} {
		procs := loadProcTree(t, filepath.Join("testdata", "proc", "tree.txt"))
		if !children {
			procs.noChildren = true
			procs.rebuild()
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("children=%v/pane %d", children, tt.root), func(t *testing.T) {
				tree, err := procs.Descendants(tt.root, maxScanPIDs)
				if (err != nil) != tt.wantErr {
					t.Fatalf("Descendants(%d) error = %v, want error %v", tt.root, err, tt.wantErr)
				}
				if got := detect(tree, ""); !reflect.DeepEqual(got, tt.want) {
					t.Errorf("detect(tree of %d) = %+v, want %+v", tt.root, got, tt.want)
				}
			})
		}
	}
}

// TestDescendantsOrderAndLimit checks breadth-first order, that each pid
// is read once, and the per-pane cap.
func TestDescendantsOrderAndLimit(t *testing.T) {
	procs := loadProcTree(t, filepath.Join("testdata", "proc", "tree.txt"))
	tree, err := procs.Descendants(200, maxScanPIDs)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range tree {
		pids = append(pids, p.PID)
	}
	if want := []int{200, 201, 202, 203, 204}; !reflect.DeepEqual(pids, want) {
		t.Errorf("Descendants(200) = %v, want %v", pids, want)
	}

	many := []fakeProc{{pid: 1000, ppid: 1, start: 1, comm: "bash"}}
	for i := 1; i <= 600; i++ {
		many = append(many, fakeProc{pid: 1000 + i, ppid: 1000, start: 2, comm: "sleep"})
	}
	big := newFakeProcs(many...)
	tree, err = big.Descendants(1000, maxScanPIDs)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) != maxScanPIDs {
		t.Errorf("Descendants of a 601-process tree = %d processes, want the cap %d", len(tree), maxScanPIDs)
	}
}

func TestAncestorIn(t *testing.T) {
	procs := loadProcTree(t, filepath.Join("testdata", "proc", "tree.txt"))
	panes := map[int]bool{100: true, 200: true, 300: true, 800: true}
	in := func(pid int) bool { return panes[pid] }
	tests := []struct {
		pid    int
		want   int
		wantOK bool
	}{
		{204, 200, true}, // codex run by claude's Bash tool
		{201, 200, true},
		{200, 200, true}, // the pane's own process
		{800, 800, true},
		{103, 100, true},
		{401, 0, false}, // pane 400 is not a pane here
		{10, 0, false},
		{1, 0, false},
		{12345, 0, false}, // no such process
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.pid), func(t *testing.T) {
			got, ok := ancestorIn(procs, tt.pid, in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ancestorIn(%d) = %d, %v, want %d, %v", tt.pid, got, ok, tt.want, tt.wantOK)
			}
		})
	}

	// A chain longer than the hop limit is not followed to its end.
	chain := []fakeProc{{pid: 2, ppid: 1, start: 1, comm: "root"}}
	for i := 3; i <= 2+maxAncestorHops+5; i++ {
		chain = append(chain, fakeProc{pid: i, ppid: i - 1, start: 1, comm: "sh"})
	}
	long := newFakeProcs(chain...)
	if _, ok := ancestorIn(long, 2+maxAncestorHops+5, func(pid int) bool { return pid == 2 }); ok {
		t.Errorf("ancestorIn followed a chain of %d hops, want at most %d", maxAncestorHops+5, maxAncestorHops)
	}
	// A self-parent stops the walk.
	loop := newFakeProcs(fakeProc{pid: 5, ppid: 5, start: 1, comm: "odd"})
	if _, ok := ancestorIn(loop, 5, func(pid int) bool { return false }); ok {
		t.Errorf("ancestorIn in a self-parent loop = ok, want not found")
	}
}
