package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	mitText = "MIT License\n\nCopyright (c) 2020 Jane Doe\n\nPermission is hereby granted, free of charge, to any person\n"
	bsdText = "Copyright 2009 The Go Authors.\n\nRedistribution and use in source and binary forms, with or without\nmodification, are permitted.\n   * Neither the name of Google Inc. nor ...\n"
	apache  = "                                 Apache License\n                           Version 2.0, January 2004\n"
	oflText = "Copyright 2016 The Inter Project Authors.\n\nThis Font Software is licensed under the SIL Open Font License, Version 1.1.\n"
)

// fakeModCache makes a module cache holding example.com/Upper/mod@v1.0.0
// (MIT, with fonts under the OFL in a subdirectory, and licences of a
// command and of test data that do not count) and example.com/nolicence@v0.1.0.
func fakeModCache(t *testing.T) (cache, goroot string) {
	t.Helper()
	dir := t.TempDir()
	cache, goroot = filepath.Join(dir, "mod"), filepath.Join(dir, "go")
	m := mkdir(t, filepath.Join(cache, "example.com", "!upper", "mod@v1.0.0"))
	write(t, m, "LICENSE", []byte(mitText))
	write(t, mkdir(t, filepath.Join(m, "font")), "LICENSE_Inter.txt", []byte(oflText))
	write(t, filepath.Join(m, "font"), "COPYING", []byte(apache))
	write(t, mkdir(t, filepath.Join(m, "cmd", "tool")), "LICENSE", []byte("other"))
	write(t, mkdir(t, filepath.Join(m, "testdata")), "LICENSE", []byte("other"))
	write(t, mkdir(t, filepath.Join(cache, "example.com", "nolicence@v0.1.0")), "go.mod", []byte("module example.com/nolicence\n"))
	write(t, mkdir(t, goroot), "LICENSE", []byte(bsdText))
	return cache, goroot
}

func TestCopyrightText(t *testing.T) {
	cache, goroot := fakeModCache(t)
	head := "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\nFiles: *\nCopyright: 2026 Paneflow developers\nLicense: LicenseRef-proprietary\n no licence yet\n\n"
	got, err := copyrightText(head, goroot, cache, []module{{"example.com/Upper/mod", "v1.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		head[:len(head)-1] + "\nFiles: go/*\nCopyright: 2009 The Go Authors.\nLicense: BSD-3-Clause\n Copyright 2009 The Go Authors.\n .\n Redistribution",
		"Comment: the Go standard library and runtime, compiled into the programs (LICENSE).\n",
		"\nFiles: vendor/example.com/Upper/mod/*\nCopyright: 2020 Jane Doe\nLicense: MIT\n MIT License\n .\n",
		"Comment: Go module example.com/Upper/mod v1.0.0, compiled into the programs (LICENSE).\n",
		// Two licences in one directory: one stanza, both named, the
		// Apache text referred to Debian's copy.
		"\nFiles: vendor/example.com/Upper/mod/font/*\nCopyright: the authors of example.com/Upper/mod\n 2016 The Inter Project Authors.\nLicense: Apache-2.0 and OFL-1.1\n On Debian systems, the full text of this licence (font/COPYING) is in\n /usr/share/common-licenses/Apache-2.0.\n .\n Copyright 2016",
		"Comment: Go module example.com/Upper/mod v1.0.0, compiled into the programs (font/COPYING, font/LICENSE_Inter.txt).\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the copyright file lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "other") || strings.Contains(got, "\n\n\n") {
		t.Errorf("the copyright file has a command's or test data's licence, or two blank lines in a row:\n%s", got)
	}
	if _, err := copyrightText(head, goroot, cache, []module{{"example.com/nolicence", "v0.1.0"}}); err == nil ||
		!strings.Contains(err.Error(), "no licence file") {
		t.Errorf("a module without a licence: err = %v, want 'no licence file'", err)
	}
	if _, err := copyrightText(head, goroot, cache, []module{{"example.com/absent", "v1.0.0"}}); err == nil ||
		!strings.Contains(err.Error(), "go mod download") {
		t.Errorf("a module not in the cache: err = %v, want a hint to download it", err)
	}
}

func TestWriteCopyrightReadsBuildInfo(t *testing.T) {
	// The test binary links no module (pkgtool uses the standard library
	// only): its copyright file is the header and the Go stanza.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mods, err := linkedModules([]string{self})
	if err != nil || len(mods) != 0 {
		t.Fatalf("linkedModules(test binary) = %v, %v; want none", mods, err)
	}
	cache, goroot := fakeModCache(t)
	dir := t.TempDir()
	header := write(t, dir, "header", []byte("Format: x\n"))
	out := filepath.Join(dir, "copyright")
	if err := writeCopyright(out, header, goroot, cache, []string{self}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(b), "Format: x\n\nFiles: go/*\n") || strings.Contains(string(b), "vendor/") {
		t.Errorf("copyright file:\n%s", b)
	}
	if err := writeCopyright(out, header, goroot, cache, []string{header}); err == nil {
		t.Error("writeCopyright accepted a file that is not a Go program")
	}
}

func TestLicencePieces(t *testing.T) {
	for text, want := range map[string]string{
		mitText: "MIT", bsdText: "BSD-3-Clause", apache: "Apache-2.0", oflText: "OFL-1.1",
		"Redistribution and use in source and binary forms, with or without": "BSD-2-Clause",
		"Permission to use, copy, modify, and/or distribute this software":   "ISC",
		"provided 'as-is', without any express or implied warranty":          "Zlib",
		"Mozilla Public License Version 2.0":                                 "MPL-2.0",
		"Some licence of our own":                                            "LicenseRef-example.com-x-LICENSE",
	} {
		if got := licenceID(text, "example.com/x/LICENSE"); got != want {
			t.Errorf("licenceID(%.30q) = %s, want %s", text, got, want)
		}
	}
	if got := escapeModulePath("github.com/BurntSushi/toml"); got != "github.com/!burnt!sushi/toml" {
		t.Errorf("escapeModulePath = %s", got)
	}
	if got := dep5Text("a\r\n\r\nb  \n\n"); got != " a\n .\n b\n" {
		t.Errorf("dep5Text = %q", got)
	}
	if got := holders("Copyright (c) 2020 A\nCopyright © 2021 B\ncopyright 2020 A\nno year Copyright holder", "fallback"); strings.Join(got, "|") != "2020 A|2021 B" {
		t.Errorf("holders = %q", got)
	}
	if got := holders("no notice", "fallback"); strings.Join(got, "|") != "fallback" {
		t.Errorf("holders without a notice = %q", got)
	}
}
