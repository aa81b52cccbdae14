package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/paneflow-go/paneflow/internal/vis"
)

// printRaw writes a JSON result from the server pretty-printed (two-space
// indent, keys in the server's order) and a newline.
func (s *session) printRaw(raw json.RawMessage) error {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return fmt.Errorf("unexpected result from the server: %v", err)
	}
	b.WriteByte('\n')
	_, err := s.stdout.Write(b.Bytes())
	return err
}

// printJSON writes v as pretty JSON and a newline, without escaping <, >
// and & (terminal text is shown as it is).
func (s *session) printJSON(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := s.stdout.Write(b.Bytes())
	return err
}

// withFields returns the JSON object raw with the given key/value pairs
// appended (keys must not already be present), keeping the server's order.
func withFields(raw json.RawMessage, kv ...any) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	obj := b.Bytes()
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("result is not a JSON object")
	}
	out := append([]byte(nil), obj[:len(obj)-1]...)
	for i := 0; i+1 < len(kv); i += 2 {
		k, err := json.Marshal(kv[i])
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

// orDash returns *p, or "-" when p is nil or empty.
func orDash(p *string) string {
	if p == nil || *p == "" {
		return "-"
	}
	return *p
}

// deref returns *p, or "" when p is nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// writeLines writes lines joined with newlines and a final newline, in one
// write.
//
// Every line is passed through vis.String: the tables and texts of the
// verbs hold text programs set (titles, cwds, command lines, pane names,
// agents' messages), which must not write escape sequences into the
// user's terminal. The verbs escape their fields themselves too, before
// padding, so that columns line up; this is the last guard.
func writeLines(w io.Writer, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	shown := make([]string, len(lines))
	for i, l := range lines {
		shown[i] = vis.String(l)
	}
	_, err := io.WriteString(w, strings.Join(shown, "\n")+"\n")
	return err
}

// teamLabel is how ls and ps show a pane's agent team: "team/teammate"
// for a teammate, "team (lead)" for a lead, "" outside teams.
func teamLabel(team, teammate string) string {
	switch {
	case teammate != "" && team != "":
		return team + "/" + teammate
	case teammate != "":
		return teammate
	case team != "":
		return team + " (lead)"
	}
	return ""
}

// shownTeam is the team name ls and ps show: name (from Claude Code's
// config.json) when set, else the team id.
func shownTeam(team, name string) string {
	if name != "" {
		return name
	}
	return team
}

// lsTeamLines is `ls --human` when some pane is in an agent team: the
// usual columns and a TEAM column.
func lsTeamLines(ss []surfaceInfo) []string {
	lines := []string{fmt.Sprintf("%4s  %-20s %-24s %-32s %s", "ID", "NAME", "CMD", "TEAM", "CWD")}
	for _, x := range ss {
		t := teamLabel(shownTeam(x.Team, x.TeamName), x.Teammate)
		if t == "" {
			t = "-"
		}
		row := fmt.Sprintf("%4d  %-20s %-24s %-32s %s", x.ID, vis.String(x.Name), vis.String(deref(x.Cmd)), vis.String(t), vis.String(deref(x.Cwd)))
		lines = append(lines, strings.TrimRight(row, " "))
	}
	return lines
}
