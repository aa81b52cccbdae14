// Package clocale lets Fyne start quietly under the C locale with a
// codeset, such as LANG=C.UTF-8 (the default of Debian and Ubuntu images,
// containers and many ssh sessions).
//
// Fyne's lang package picks its translation when it is initialised, from
// the locales github.com/jeandeaual/go-locale reads in LC_ALL, LC_MESSAGES
// and LANG. That library knows "C" and "POSIX" as the untranslated locale,
// but not "C.UTF-8": it drops the codeset and hands "C" on, which is no
// BCP 47 tag, and Fyne logs "Fyne error: Error parsing user locale C" on
// stderr before main runs (in every command of the desktop binary,
// `version` included), then falls back to English anyway.
//
// When the locale is C or POSIX with a codeset or modifier and LANGUAGE is
// not set, this package's init sets LANGUAGE=en, which go-locale then reads
// instead: the same English, without the error. It imports only syscall,
// so it is initialised before package os and thus before go-locale and
// Fyne (Go initialises, among the packages whose imports are ready, the
// first by import path). [Restore] takes LANGUAGE away again once the
// packages are initialised, so the programs the app starts (the server,
// the panes' shells) get the user's environment unchanged.
//
// It does not change the locale of anything else, nor help Fyne with
// other malformed locale names.
//
// # Concurrency
//
// [Restore] must be called before other goroutines read the environment,
// as from package main's init.
package clocale

import "syscall"

// set says this package's init set LANGUAGE.
var set bool

func init() {
	if needsFallback(syscall.Getenv) {
		set = syscall.Setenv("LANGUAGE", "en") == nil
	}
}

// Restore unsets LANGUAGE if this package's init set it; otherwise it does
// nothing. Fyne's lang package has read it by the time package main is
// initialised.
func Restore() {
	if set {
		_ = syscall.Unsetenv("LANGUAGE")
		set = false
	}
}

// needsFallback reports whether the locale that go-locale would read
// (the first of LC_ALL, LC_MESSAGES and LANG that is set) is C or POSIX
// with a codeset or modifier ("C.UTF-8", "POSIX.utf8", "C@x"), while
// LANGUAGE, which go-locale would read instead, is empty. Plain "C" and
// "POSIX" need nothing: go-locale knows them.
func needsFallback(getenv func(string) (string, bool)) bool {
	if v, _ := getenv("LANGUAGE"); v != "" {
		return false
	}
	loc := ""
	for _, k := range [...]string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v, _ := getenv(k); v != "" {
			loc = v
			break
		}
	}
	name := loc
	for i := 0; i < len(loc); i++ {
		if loc[i] == '.' || loc[i] == '@' {
			name = loc[:i]
			break
		}
	}
	return name != loc && (name == "C" || name == "POSIX")
}
