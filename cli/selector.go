package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/user"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/ipc"
)

// surfaceInfo is one row of surface.list's "surfaces", as selectors see it.
type surfaceInfo struct {
	ID        uint64  `json:"surface_id"`
	Name      string  `json:"name"`
	Title     string  `json:"title"`
	Cwd       *string `json:"cwd"`
	Cmd       *string `json:"cmd"`
	Workspace int     `json:"workspace"`
	// Team and Teammate name the Claude Code agent team the pane is in
	// and its teammate ("" for the lead), when it is in one.
	Team     string `json:"team,omitempty"`
	Teammate string `json:"teammate,omitempty"`
	// TeamName is the team's name from Claude Code's config.json, when it
	// differs from Team; ls shows it instead.
	TeamName string `json:"team_name,omitempty"`
}

// surfaceList is surface.list's result.
type surfaceList struct {
	PaneCount int           `json:"pane_count"`
	Workspace int           `json:"workspace"`
	Surfaces  []surfaceInfo `json:"surfaces"`
}

// selectorKind is the form of a target selector.
type selectorKind int

const (
	byName    selectorKind = iota // case-insensitive exact name, else prefix
	byID                          // digits: the surface_id
	byCmdline                     // "cmdline:<s>": case-insensitive substring of cmd
	byCwd                         // "cwd:<p>": cwd is p or below it
)

// selector is a parsed target selector (spec cli.md §3, with cwd: matching on
// path-component boundaries and "~"/relative paths resolved on the client).
type selector struct {
	raw  string // as the user wrote it, for messages
	kind selectorKind
	id   uint64 // byID
	text string // byName, byCmdline: lower-cased; byCwd: absolute, cleaned path
}

// parseSelector parses raw; abs turns a cwd: path into a clean absolute one.
// An empty selector or path is a usage error; a path that cannot be
// resolved (HOME unset, unknown ~user) a plain one.
func parseSelector(raw string, abs func(string) (string, error)) (selector, error) {
	sel := selector{raw: raw}
	switch {
	case raw == "":
		return sel, exitErrorf(ExitUsage, "empty target selector")
	case strings.HasPrefix(raw, "cmdline:"):
		sel.kind, sel.text = byCmdline, strings.ToLower(raw[len("cmdline:"):])
	case strings.HasPrefix(raw, "cwd:"):
		p := raw[len("cwd:"):]
		if p == "" {
			return sel, exitErrorf(ExitUsage, "empty path in target '%s'", raw)
		}
		ap, err := abs(p)
		if err != nil {
			return sel, fmt.Errorf("target '%s': %v", raw, err)
		}
		sel.kind, sel.text = byCwd, ap
	default:
		if id, err := strconv.ParseUint(raw, 10, 64); err == nil {
			sel.kind, sel.id = byID, id
		} else {
			sel.kind, sel.text = byName, strings.ToLower(raw)
		}
	}
	return sel, nil
}

// match returns the surfaces the selector picks, in list order. goos decides
// how paths compare for cwd: (Windows: case-insensitive, either slash).
func (sel selector) match(surfaces []surfaceInfo, goos string) []surfaceInfo {
	var out []surfaceInfo
	switch sel.kind {
	case byID:
		for _, s := range surfaces {
			if s.ID == sel.id {
				out = append(out, s)
			}
		}
	case byCmdline:
		for _, s := range surfaces {
			if s.Cmd != nil && strings.Contains(strings.ToLower(*s.Cmd), sel.text) {
				out = append(out, s)
			}
		}
	case byCwd:
		for _, s := range surfaces {
			if s.Cwd != nil && pathWithin(*s.Cwd, sel.text, goos) {
				out = append(out, s)
			}
		}
	case byName:
		for _, s := range surfaces {
			if strings.ToLower(s.Name) == sel.text {
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			for _, s := range surfaces {
				if strings.HasPrefix(strings.ToLower(s.Name), sel.text) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// pathWithin reports whether path p is dir or lies below it, comparing whole
// path components: "/a/proj" contains "/a/proj" and "/a/proj/x" but not
// "/a/proj-backend". Both are cleaned first, so trailing separators do not
// matter. On Windows the comparison ignores case and treats "/" as "\".
func pathWithin(p, dir, goos string) bool {
	sep := "/"
	if goos == "windows" {
		sep = `\`
		p = strings.ToLower(strings.ReplaceAll(p, "/", sep))
		dir = strings.ToLower(strings.ReplaceAll(dir, "/", sep))
	}
	p, dir = cleanPath(p, sep), cleanPath(dir, sep)
	if p == dir {
		return true
	}
	if !strings.HasPrefix(p, dir) {
		return false
	}
	// dir is a root ("/", `C:\`) that already ends in the separator, or the
	// next byte of p must start a new component.
	return strings.HasSuffix(dir, sep) || strings.HasPrefix(p[len(dir):], sep)
}

// cleanPath removes repeated and trailing separators (except a root's).
func cleanPath(p, sep string) string {
	for strings.Contains(p, sep+sep) {
		p = strings.ReplaceAll(p, sep+sep, sep)
	}
	if len(p) > 1 && strings.HasSuffix(p, sep) && !strings.HasSuffix(p, ":"+sep) {
		p = strings.TrimSuffix(p, sep)
	}
	return p
}

// absPath expands a leading "~" or "~user" and makes p absolute against the
// working directory, then cleans it (the spec's client-side cwd rule).
func (s *session) absPath(p string) (string, error) {
	if s.host != nil {
		// The host's paths: only it could expand ~ or resolve a
		// relative path, and the verbs that go over the socket ask it
		// neither.
		if !path.IsAbs(p) {
			return "", fmt.Errorf("with --host, '%s' must be an absolute path on %s (~ and relative paths would resolve on this machine)", p, s.host.host)
		}
		return path.Clean(p), nil
	}
	if strings.HasPrefix(p, "~") {
		name, rest, _ := strings.Cut(p[1:], "/")
		if s.goos == "windows" {
			name, rest, _ = strings.Cut(strings.ReplaceAll(p[1:], `\`, "/"), "/")
		}
		var home string
		if name == "" {
			home = s.getenv("HOME")
			if home == "" && s.goos == "windows" {
				home = s.getenv("USERPROFILE")
			}
			if home == "" {
				return "", fmt.Errorf("cannot expand '~' in '%s': HOME is not set", p)
			}
		} else {
			u, err := user.Lookup(name)
			if err != nil {
				return "", fmt.Errorf("cannot expand '~%s' in '%s': %v", name, p, err)
			}
			home = u.HomeDir
		}
		p = filepath.Join(home, filepath.FromSlash(rest))
	}
	if !filepath.IsAbs(p) {
		wd, err := s.getwd()
		if err != nil {
			return "", fmt.Errorf("cannot resolve relative path '%s': %v", p, err)
		}
		p = filepath.Join(wd, p)
	}
	return filepath.Clean(p), nil
}

// listSurfaces calls surface.list.
func listSurfaces(ctx context.Context, c caller) (surfaceList, error) {
	var l surfaceList
	_, err := callInto(ctx, c, "surface.list", emptyParams, &l)
	return l, err
}

// errListFailed marks a failure of the surface.list call behind a selector,
// so verbs that map resolution failures to other codes can tell it from a
// no-match.
type errListFailed struct{ err error }

func (e *errListFailed) Error() string { return e.err.Error() }
func (e *errListFailed) Unwrap() error { return e.err }

// resolve returns every surface the selector raw matches: at least one, or an
// ExitNoTarget error. A failing surface.list call is returned wrapped in
// *errListFailed (exit 1); an empty selector is a usage error.
func (s *session) resolve(ctx context.Context, c caller, raw string) ([]surfaceInfo, error) {
	sel, err := parseSelector(raw, s.absPath)
	if err != nil {
		return nil, err
	}
	l, err := listSurfaces(ctx, c)
	if err != nil {
		return nil, &errListFailed{err}
	}
	m := sel.match(l.Surfaces, s.goos)
	if len(m) == 0 {
		return nil, exitErrorf(ExitNoTarget, "no pane matches target '%s'", raw)
	}
	return m, nil
}

// resolveOne is resolve for verbs that need exactly one surface: several
// matches are an ExitNoTarget error listing them.
func (s *session) resolveOne(ctx context.Context, c caller, raw string) (surfaceInfo, error) {
	m, err := s.resolve(ctx, c, raw)
	if err != nil {
		return surfaceInfo{}, err
	}
	if len(m) > 1 {
		ids := make([]string, len(m))
		for i, x := range m {
			ids[i] = fmt.Sprintf("%d(%s)", x.ID, x.Name)
		}
		return surfaceInfo{}, exitErrorf(ExitNoTarget, "ambiguous target '%s'; matches: %s", raw, strings.Join(ids, ", "))
	}
	return m[0], nil
}

// callTarget calls a read-only method on the single pane the selector raw
// names, with params["surface_id"] set, decoding the result into out. A
// numeric selector is sent as is, saving the surface.list round trip; only
// when the server rejects it (-32602) is the selector resolved the slow way,
// so that a pane that does not exist still gets the no-match message and
// exit code 3.
func (s *session) callTarget(ctx context.Context, c caller, raw, method string, params map[string]any, out any) (json.RawMessage, error) {
	sel, err := parseSelector(raw, s.absPath)
	if err != nil {
		return nil, err
	}
	if sel.kind == byID {
		params["surface_id"] = sel.id
		res, err := callInto(ctx, c, method, params, out)
		var e *ipc.Error
		if err == nil || !errors.As(err, &e) || e.Code != ipc.CodeInvalidParams {
			return res, err
		}
		if _, rerr := s.resolveOne(ctx, c, raw); rerr != nil {
			return nil, rerr
		}
		return nil, err
	}
	t, err := s.resolveOne(ctx, c, raw)
	if err != nil {
		return nil, err
	}
	params["surface_id"] = t.ID
	return callInto(ctx, c, method, params, out)
}
