package review

import (
	"strings"

	"github.com/paneflow-go/paneflow/proto"
)

// contextLines is how many lines above and below a comment's code are
// kept to tell two places holding the same code apart.
const contextLines = 3

// capture returns lines start..end (1-based, inclusive) of a file and up
// to contextLines around them. The caller checks the bounds.
func capture(lines []string, start, end int) (code, before, after []string) {
	code = append([]string(nil), lines[start-1:end]...)
	before = append([]string{}, lines[max(0, start-1-contextLines):start-1]...)
	after = append([]string{}, lines[end:min(len(lines), end+contextLines)]...)
	return code, before, after
}

// fileIndex is one file's lines and, for each line's trimmed text, the
// 0-based positions holding it: a comment's candidates are found by its
// first line, not by a scan of the file.
type fileIndex struct {
	lines []string
	at    map[string][]int
}

// newFileIndex indexes lines.
func newFileIndex(lines []string) *fileIndex {
	ix := &fileIndex{lines: lines, at: make(map[string][]int, len(lines))}
	for i, l := range lines {
		k := strings.TrimSpace(l)
		ix.at[k] = append(ix.at[k], i)
	}
	return ix
}

// splitLines splits a file's text into lines without their line ends
// ("\n" or "\r\n"); a last line without one counts.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// reanchor finds c's code in the file as it is now (ix; nil when the file
// is gone) and moves c there: among the places where the code's lines
// read the same (exactly, or else with their leading and trailing blanks
// ignored: a re-indented block), the one whose context matches most
// lines wins, then the one nearest c's last place. The context is taken
// again from the new place. Code found nowhere marks c outdated and
// leaves its lines as they were. It reports whether c changed.
func reanchor(c *proto.ReviewComment, ix *fileIndex) bool {
	if ix == nil || len(c.Code) == 0 {
		changed := !c.Outdated
		c.Outdated = true
		return changed
	}
	n := len(c.Code)
	best, bestScore, bestDist := -1, -1, 0
	for _, p := range ix.at[strings.TrimSpace(c.Code[0])] {
		if p+n > len(ix.lines) {
			break // positions ascend
		}
		exact, same := true, true
		for j := 0; j < n && same; j++ {
			got, want := ix.lines[p+j], c.Code[j]
			if got != want {
				exact = false
				same = strings.TrimSpace(got) == strings.TrimSpace(want)
			}
		}
		if !same {
			continue
		}
		score := contextScore(ix.lines, p, n, c.Before, c.After)
		if exact {
			score += 2*contextLines + 1 // exact code beats any context
		}
		dist := p - (c.StartLine - 1)
		if dist < 0 {
			dist = -dist
		}
		if score > bestScore || score == bestScore && dist < bestDist {
			best, bestScore, bestDist = p, score, dist
		}
	}
	if best < 0 {
		changed := !c.Outdated
		c.Outdated = true
		return changed
	}
	start, end := best+1, best+n
	changed := c.Outdated || c.StartLine != start || c.EndLine != end
	c.Outdated = false
	c.StartLine, c.EndLine = start, end
	if changed {
		_, c.Before, c.After = capture(ix.lines, start, end)
	}
	return changed
}

// contextScore counts the context lines that still surround code placed
// at p (n lines): before, nearest first, and after.
func contextScore(lines []string, p, n int, before, after []string) int {
	score := 0
	for j := 1; j <= len(before) && p-j >= 0; j++ {
		if strings.TrimSpace(lines[p-j]) != strings.TrimSpace(before[len(before)-j]) {
			break
		}
		score++
	}
	for j := 0; j < len(after) && p+n+j < len(lines); j++ {
		if strings.TrimSpace(lines[p+n+j]) != strings.TrimSpace(after[j]) {
			break
		}
		score++
	}
	return score
}
