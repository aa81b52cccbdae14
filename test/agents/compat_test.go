//go:build linux

package agents

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The README's compatibility table: one row per agent, its columns after
// "agent" and "version" are compatColumns, and each cell starts with
// "yes", "no", "not tested" or "n/a".
var compatColumns = []string{"hooks", "states", "last_result", "permission wait", "MCP", "teams", "usage", "resume"}

// compatNames are the README's names of the agents.
var compatNames = map[string]string{"Claude Code": "claude", "Codex": "codex", "Gemini CLI": "gemini", "opencode": "opencode"}

var (
	provenMu sync.Mutex
	proven   = map[string]string{} // "tool/column" → "yes" or "no"
)

// prove records, when t passes, that it showed the column of tool to be
// value ("yes" or "no") for the README's table.
func prove(t testing.TB, tool, column, value string) {
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		provenMu.Lock()
		defer provenMu.Unlock()
		proven[tool+"/"+column] = value
	})
}

// checkCompat compares the README's table with what the tests proved:
// every "yes"/"no" cell must have been proven so, every proven cell must
// say so, and each version must be the one scripts/agents.sh pins. It runs
// after all tests passed and only when no -run filter left some out.
func checkCompat() error {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		return nil
	}
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "README.md"))
	if err != nil {
		return err
	}
	text := string(data)
	start := strings.Index(text, "<!-- agents-compat")
	end := strings.Index(text, "<!-- /agents-compat -->")
	if start < 0 || end < start {
		return fmt.Errorf("README.md has no <!-- agents-compat --> table")
	}
	var problems []string
	claimed := map[string]string{}
	rows := 0
	for _, line := range strings.Split(text[start:end], "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| agent") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		tool, ok := compatNames[strings.TrimSpace(cells[0])]
		if !ok || len(cells) != 2+len(compatColumns) {
			problems = append(problems, fmt.Sprintf("bad row %q", line))
			continue
		}
		rows++
		if v := strings.TrimSpace(cells[1]); v != versions[tool] {
			problems = append(problems, fmt.Sprintf("%s: README says version %s, scripts/agents.sh pins %s", cells[0], v, versions[tool]))
		}
		for i, col := range compatColumns {
			cell := strings.TrimSpace(cells[2+i])
			switch {
			case strings.HasPrefix(cell, "not tested"), strings.HasPrefix(cell, "n/a"):
			case strings.HasPrefix(cell, "yes"):
				claimed[tool+"/"+col] = "yes"
			case strings.HasPrefix(cell, "no"):
				claimed[tool+"/"+col] = "no"
			default:
				problems = append(problems, fmt.Sprintf("%s %s: cell %q starts with none of yes, no, not tested, n/a", cells[0], col, cell))
			}
		}
	}
	if rows != len(compatNames) {
		problems = append(problems, fmt.Sprintf("%d rows, want one per agent (%d)", rows, len(compatNames)))
	}
	provenMu.Lock()
	defer provenMu.Unlock()
	for k, v := range claimed {
		if proven[k] != v {
			problems = append(problems, fmt.Sprintf("README claims %s = %s; the tests proved %q", k, v, proven[k]))
		}
	}
	for k, v := range proven {
		if claimed[k] != v {
			problems = append(problems, fmt.Sprintf("the tests proved %s = %s; README says %q", k, v, claimed[k]))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("README.md's agent compatibility table disagrees with test/agents:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}
