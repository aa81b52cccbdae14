package review

import (
	"fmt"
	"strings"

	"github.com/paneflow-go/paneflow/proto"
)

// reviewPrompt is the one prompt review.send types into the agent's pane:
// every comment with its file, lines and the code it is about, fenced in
// Markdown with a fence longer than any run of backticks in the code,
// then the comment. Control characters other than tab and newline are
// dropped from code and comments (they would be keys to the agent's TUI).
func reviewPrompt(root string, cs []proto.ReviewComment) string {
	var b strings.Builder
	n := "comment"
	if len(cs) != 1 {
		n = "comments"
	}
	fmt.Fprintf(&b, "Review of your changes in %s: %d %s. Change the code as each one asks, then say what you did.\n", clean(root), len(cs), n)
	for i, c := range cs {
		lines := fmt.Sprintf("line %d", c.StartLine)
		if c.EndLine != c.StartLine {
			lines = fmt.Sprintf("lines %d-%d", c.StartLine, c.EndLine)
		}
		code := clean(strings.Join(c.Code, "\n"))
		f := fenceFor(code)
		fmt.Fprintf(&b, "\n%d. %s, %s:\n%s\n%s\n%s\n%s\n", i+1, clean(c.Path), lines, f, code, f, clean(c.Body))
	}
	return b.String()
}

// fenceFor is a Markdown code fence longer than any run of backticks in
// code (at least three).
func fenceFor(code string) string {
	longest, run := 0, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// clean drops the control characters of s but tab and newline (and turns
// CR LF into LF).
func clean(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
}
