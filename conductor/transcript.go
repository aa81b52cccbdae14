package conductor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
)

// maxTranscript is how much of a transcript's end is read (spec limits.md:
// 4 MiB). The original skipped bigger files; the last turn is at the end,
// so we read the tail instead.
const maxTranscript = 4 << 20

// readTranscriptLocked reads the turn summary from a Claude Code
// transcript on a goroutine of its own and gives it to session id if the
// session has had no frame since (seq) and still has no result.
func (c *Conductor) readTranscriptLocked(id, seq uint64, path string) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		text := lastAssistantText(path)
		if text == "" {
			return
		}
		c.mu.Lock()
		s := c.sessions[id]
		if c.closed || s == nil || s.seq != seq || s.lastResult != "" {
			c.mu.Unlock()
			return
		}
		s.lastResult = text
		c.emitStateLocked(s, s.state)
		c.mu.Unlock()
		c.flush()
	}()
}

// transcriptLine is the part of a Claude Code transcript line we read.
type transcriptLine struct {
	Type        string `json:"type"`
	IsSidechain bool   `json:"isSidechain"`
	Message     struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// lastAssistantText returns the text of the last main-thread assistant
// message of a JSONL transcript (its text blocks joined by newlines),
// sanitized and cut to MaxLastResult; "" when there is none or the file
// cannot be read. Only the last maxTranscript bytes are read.
func lastAssistantText(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	var r io.Reader = f
	partial := false
	if st.Size() > maxTranscript {
		if _, err := f.Seek(st.Size()-maxTranscript, io.SeekStart); err != nil {
			return ""
		}
		r, partial = io.LimitReader(f, maxTranscript), true
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTranscript)
	last := ""
	for sc.Scan() {
		line := sc.Bytes()
		if partial {
			partial = false // the first line is cut
			continue
		}
		if !bytes.Contains(line, []byte(`"assistant"`)) {
			continue
		}
		var tl transcriptLine
		if json.Unmarshal(line, &tl) != nil || tl.Type != "assistant" || tl.IsSidechain {
			continue
		}
		if text := contentText(tl.Message.Content); text != "" {
			last = text
		}
	}
	return sanitize(last, MaxLastResult, false)
}

// contentText joins the text blocks of a message content (an array of
// blocks, or a plain string).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}
