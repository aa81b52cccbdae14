package main

import (
	"debug/buildinfo"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// module is one Go module linked into a packaged program.
type module struct {
	Path, Version string
}

// linkedModules returns the modules the Go programs bins were built from
// (their build information, as `go version -m` prints it), each once,
// sorted by path; a replaced module counts as its replacement.
func linkedModules(bins []string) ([]module, error) {
	seen := map[module]bool{}
	for _, b := range bins {
		bi, err := buildinfo.ReadFile(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b, err)
		}
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			seen[module{d.Path, d.Version}] = true
		}
	}
	mods := make([]module, 0, len(seen))
	for m := range seen {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool {
		if mods[i].Path != mods[j].Path {
			return mods[i].Path < mods[j].Path
		}
		return mods[i].Version < mods[j].Version
	})
	return mods, nil
}

// escapeModulePath is a module path as the module cache spells it: each
// upper-case letter as ! and its lower case.
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// licenceFile matches the names of licence files.
var licenceFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying)([-._].*)?$`)

// skipDirs are module directories whose licences do not reach the
// programs: tests, examples and other commands.
var skipDirs = map[string]bool{"testdata": true, "cmd": true, "example": true, "examples": true, "_examples": true, ".git": true}

// licenceFiles returns the licence files of the module in dir, relative to
// it: the top-level ones and those of subdirectories (fonts, bundled C
// sources), sorted.
func licenceFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if licenceFile.MatchString(d.Name()) {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// licenceID names the licence a text states, as an SPDX identifier; an
// unrecognised text gets LicenseRef-<name>.
func licenceID(text, name string) string {
	t := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	switch {
	case strings.Contains(t, "apache license") && strings.Contains(t, "version 2.0"):
		return "Apache-2.0"
	case strings.Contains(t, "mozilla public license") && strings.Contains(t, "2.0"):
		return "MPL-2.0"
	case strings.Contains(t, "sil open font license"):
		return "OFL-1.1"
	case strings.Contains(t, "bitstream vera"):
		return "Bitstream-Vera"
	case strings.Contains(t, "permission is hereby granted, free of charge"):
		return "MIT"
	case strings.Contains(t, "redistribution and use in source and binary forms") && strings.Contains(t, "neither the name"):
		return "BSD-3-Clause"
	case strings.Contains(t, "redistribution and use in source and binary forms"):
		return "BSD-2-Clause"
	case strings.Contains(t, "permission to use, copy, modify, and/or distribute"),
		strings.Contains(t, "permission to use, copy, modify, and distribute this software for any purpose with or without fee"):
		return "ISC"
	case strings.Contains(t, "provided 'as-is', without any express or implied warranty"):
		return "Zlib"
	}
	return "LicenseRef-" + regexp.MustCompile(`[^A-Za-z0-9.]+`).ReplaceAllString(name, "-")
}

// commonLicences are the licences Debian keeps in /usr/share/common-licenses:
// the copyright file points there instead of repeating the text.
var commonLicences = map[string]string{"Apache-2.0": "Apache-2.0", "MPL-2.0": "MPL-2.0"}

// copyrightLine matches a licence text's copyright notices.
var copyrightLine = regexp.MustCompile(`(?i)^\s*copyright\s+(\(c\)\s*|©\s*)?(.*\d{4}.*)$`)

// holders returns the copyright notices of a licence text (at most five),
// or who the module belongs to when the text names nobody.
func holders(text, fallback string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if m := copyrightLine.FindStringSubmatch(l); m != nil {
			h := strings.TrimSpace(m[2])
			if !seen[h] && len(out) < 5 {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	if len(out) == 0 {
		out = []string{fallback}
	}
	return out
}

// dep5Text is text as the continuation lines of a DEP-5 field: each line
// indented by a space, an empty one written " .".
func dep5Text(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n \t"), "\n") {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			b.WriteString(" .\n")
		} else {
			b.WriteString(" " + l + "\n")
		}
	}
	return b.String()
}

// writeCopyright writes the DEP-5 copyright file of a package holding the
// Go programs bins: header (Paneflow's own stanzas) followed by one stanza
// per licence file of the Go standard library (goroot) and of every module
// the programs link, read from the module cache modcache. A module without
// a licence file is an error: its terms would be missing.
func writeCopyright(out, header, goroot, modcache string, bins []string) error {
	head, err := os.ReadFile(header)
	if err != nil {
		return err
	}
	mods, err := linkedModules(bins)
	if err != nil {
		return err
	}
	text, err := copyrightText(string(head), goroot, modcache, mods)
	if err != nil {
		return err
	}
	return writeFile(out, []byte(text), 0o644)
}

// copyrightText is the copyright file writeCopyright writes, for the
// modules mods.
func copyrightText(head, goroot, modcache string, mods []module) (string, error) {
	var err error
	var b strings.Builder
	b.WriteString(strings.TrimRight(string(head), "\n") + "\n")
	type src struct {
		name, version, dir, files string
	}
	srcs := []src{{"the Go standard library and runtime", "", goroot, "go/*"}}
	for _, m := range mods {
		dir := filepath.Join(modcache, escapeModulePath(m.Path)+"@"+m.Version)
		srcs = append(srcs, src{m.Path, m.Version, dir, "vendor/" + m.Path + "/*"})
	}
	for _, s := range srcs {
		files := []string{"LICENSE"}
		if s.version != "" {
			if files, err = licenceFiles(s.dir); err != nil {
				return "", fmt.Errorf("%s %s: %w (is it in the module cache? go mod download)", s.name, s.version, err)
			}
			if len(files) == 0 {
				return "", fmt.Errorf("%s %s: no licence file in %s", s.name, s.version, s.dir)
			}
		}
		// One stanza per directory: the licence files of one directory
		// (fonts under several licences) cover the same files.
		byDir := map[string][]string{}
		var dirs []string
		for _, f := range files {
			d := filepath.ToSlash(filepath.Dir(f))
			if byDir[d] == nil {
				dirs = append(dirs, d)
			}
			byDir[d] = append(byDir[d], f)
		}
		for _, d := range dirs {
			pattern := s.files
			if d != "." {
				pattern = strings.TrimSuffix(pattern, "*") + d + "/*"
			}
			var ids, hs, texts []string
			for _, f := range byDir[d] {
				text, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(f)))
				if err != nil {
					return "", err
				}
				id := licenceID(string(text), strings.TrimSuffix(s.name+"-"+f, filepath.Ext(f)))
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
				for _, h := range holders(string(text), "the authors of "+s.name) {
					if !slices.Contains(hs, h) {
						hs = append(hs, h)
					}
				}
				if common, ok := commonLicences[id]; ok {
					texts = append(texts, fmt.Sprintf("On Debian systems, the full text of this licence (%s) is in\n/usr/share/common-licenses/%s.", f, common))
				} else {
					texts = append(texts, string(text))
				}
			}
			what := s.name
			if s.version != "" {
				what = "Go module " + s.name + " " + s.version
			}
			fmt.Fprintf(&b, "\nFiles: %s\nCopyright: %s\nLicense: %s\n%s", pattern, strings.Join(hs, "\n "),
				strings.Join(ids, " and "), dep5Text(strings.Join(texts, "\n\n")))
			fmt.Fprintf(&b, "Comment: %s, compiled into the programs (%s).\n", what, strings.Join(byDir[d], ", "))
		}
	}
	return b.String(), nil
}
