#!/usr/bin/env bash
# check.sh runs the repository's checks as named steps, in the order given,
# with a header per step; it stops at the first failure. The Makefile's lint,
# test and fuzz targets call it.
#
#   scripts/check.sh STEP...
#
# Steps:
#   lint     fmt, vet, windows, darwin and nocgo, in that order
#   fmt      gofmt: fail listing the files it would change
#   vet      go vet -tags nogui ./... (and the client build of cmd/paneflow)
#   windows  GOOS=windows go build and go vet -tags nogui ./... (and the client)
#   darwin   GOOS=darwin CGO_ENABLED=0 go vet -tags nogui ./..., less the
#            packages whose dependencies need cgo on macOS (Fyne's widgets)
#   nocgo    CGO_ENABLED=0 go build -tags nogui ./...
#   test     go test -race -tags nogui -count=1 -timeout 25m ./... except test/gui,
#            then -tags nogui,client the packages with files for the CLI client
#   gui      test/gui, the desktop app's end-to-end tests under Xvfb, against
#            the binary $PANEFLOW_GUI_BIN (cgo, default tags; built into a
#            temporary directory when unset; `make test` builds
#            bin/paneflow-gui and sets it). Not vetted with the default tags:
#            go vet would rebuild the cgo dependencies (minutes, cold), and
#            the build already type-checks the one file the nogui vet misses.
#            $GUI_RUN, when set, runs only the tests it matches (go test
#            -run) and $GUI_TIMEOUT replaces the 10m timeout (make stress-gui).
#            TestClaudeSidebar runs the real Claude Code CLI (scripts/agents.sh
#            installs it when missing; `make test` runs `make agents` first).
#   fuzz     every `func FuzzXxx` in the tree for $FUZZTIME (default 10s)
#   package  the installable bundles, built and validated (Linux only):
#            packaging/package.sh selftest actionlint linux check windows
#            wine darwin,
#            reusing the desktop app $PANEFLOW_GUI_BIN (see package.sh);
#            installs its tools first (scripts/deps.sh package)
#
# test, gui and fuzz run with LANG=en_US.UTF-8 and the XDG base directories
# pointed at a fresh temporary directory, so they neither read nor write the
# user's configuration, state or sockets.
#
# Bash 3.2 compatible (macOS's /bin/bash).
set -euo pipefail

cd "$(dirname "$0")/.."
# Go's official install location, for shells whose PATH lacks it.
export PATH="$PATH:/usr/local/go/bin"

TAGS=nogui
FUZZTIME=${FUZZTIME:-10s}

step_start=0

header() {
	step_start=$SECONDS
	printf '\n==> %s\n' "$*"
}

footer() {
	printf -- '--- ok (%ds)\n' $((SECONDS - step_start))
}

# isolate points LANG and the XDG base directories at a fresh temporary
# directory, removed on exit. It is short and under /tmp on purpose: Unix
# socket paths beneath XDG_RUNTIME_DIR must stay under ~104 bytes.
isolated=""
isolate() {
	[ -z "$isolated" ] || return 0
	# Go's build cache defaults to $XDG_CACHE_HOME/go-build: keep the
	# user's, or every run would compile every test binary from scratch.
	GOCACHE=${GOCACHE:-$(go env GOCACHE)}
	export GOCACHE
	isolated=$(mktemp -d /tmp/paneflow-test.XXXXXX)
	trap 'rm -rf "$isolated"' EXIT
	local d
	for d in config state runtime data cache; do
		mkdir -m 700 "$isolated/$d"
	done
	export XDG_CONFIG_HOME="$isolated/config" XDG_STATE_HOME="$isolated/state" \
		XDG_RUNTIME_DIR="$isolated/runtime" XDG_DATA_HOME="$isolated/data" \
		XDG_CACHE_HOME="$isolated/cache"
	# LC_ALL and LC_CTYPE would override LANG (and make tmux leave UTF-8 mode).
	export LANG=en_US.UTF-8
	unset LC_ALL LC_CTYPE
}

go_files() {
	find . \( -name .git -o -name testdata -o -name vendor -o -name bin \) -prune \
		-o -type f -name '*.go' -print
}

step_fmt() {
	header "gofmt"
	local bad
	bad=$(go_files | xargs gofmt -l)
	if [ -n "$bad" ]; then
		echo "gofmt would change these files (run: gofmt -w <file>):"
		echo "$bad" | sed 's/^/    /'
		return 1
	fi
	footer
}

# clientPkg is also built with the client tag: the command-line client
# (serve_client.go instead of the server).
clientPkg=./cmd/paneflow

step_vet() {
	header "go vet -tags $TAGS ./... (and -tags $TAGS,client $clientPkg)"
	go vet -tags "$TAGS" ./...
	go vet -tags "$TAGS,client" "$clientPkg"
	footer
}

step_windows() {
	header "GOOS=windows go build + go vet -tags $TAGS ./... (and -tags $TAGS,client $clientPkg)"
	GOOS=windows go build -tags "$TAGS" ./...
	GOOS=windows go vet -tags "$TAGS" ./...
	GOOS=windows go vet -tags "$TAGS,client" "$clientPkg"
	footer
}

step_darwin() {
	header "GOOS=darwin CGO_ENABLED=0 go vet -tags $TAGS ./... except packages that need cgo on macOS"
	local needcgo pkgs skipped
	# Some dependencies need cgo on macOS only (Fyne's widgets call AppKit),
	# so the packages above them cannot be type-checked without a macOS C
	# toolchain: vet the others, and name the ones left out.
	needcgo=$(GOOS=darwin CGO_ENABLED=1 go list -tags "$TAGS" -deps \
		-f '{{if .CgoFiles}}{{.ImportPath}}{{end}}' ./... | grep -vx 'runtime/cgo' || true)
	pkgs=$(GOOS=darwin CGO_ENABLED=1 go list -tags "$TAGS" \
		-f '{{.ImportPath}}{{range .Deps}} {{.}}{{end}}' ./... |
		awk -v needcgo="$needcgo" 'BEGIN { n = split(needcgo, l, "\n"); for (i = 1; i <= n; i++) if (l[i] != "") bad[l[i]] = 1 }
			{ for (i = 2; i <= NF; i++) if ($i in bad) { print "-" $1; next } print $1 }')
	skipped=$(echo "$pkgs" | sed -n 's/^-//p')
	[ -z "$skipped" ] || echo "not vetted for macOS here (they need cgo there):" $skipped
	# shellcheck disable=SC2046 # one package per word
	GOOS=darwin CGO_ENABLED=0 go vet -tags "$TAGS" $(echo "$pkgs" | grep -v '^-')
	footer
}

step_nocgo() {
	header "CGO_ENABLED=0 go build -tags $TAGS ./..."
	CGO_ENABLED=0 go build -tags "$TAGS" ./...
	footer
}

# guiTests is the package of the desktop app's end-to-end tests. It drives a
# real window, so it runs in its own step (gui) against a binary built once,
# not in the race run, where it would only find its binary missing.
guiTests=./test/gui

step_test() {
	isolate
	header "go test -race -tags $TAGS -count=1 ./... except $guiTests   ($(go version | cut -d' ' -f3-), LANG=$LANG)"
	local mod pkgs
	mod=$(go list -m)
	pkgs=$(go list -tags "$TAGS" ./... | grep -vxF "$mod/${guiTests#./}")
	# The timeout is per package: test/agents drives the real agent CLIs
	# (232 s on a quiet 2-core machine, over 10 min at load 20 under the
	# race detector); each of its waits has a bound of its own, so a hang
	# still ends there first.
	# shellcheck disable=SC2086 # one package per word
	CGO_ENABLED=1 go test -race -tags "$TAGS" -count=1 -timeout 25m $pkgs
	footer
	# The command-line client users run is the client build: the packages
	# with files of their own for it (the calls it hands to paneflow-server,
	# what it leaves out) are tested in that build too.
	local clientPkgs
	clientPkgs=$(grep -rlE --include='*.go' '^//go:build .*\bclient\b' . | xargs -n1 dirname | sort -u)
	header "go test -race -tags $TAGS,client -count=1 $(echo "$clientPkgs" | tr "\n" " ")"
	# shellcheck disable=SC2086 # one package per word
	CGO_ENABLED=1 go test -race -tags "$TAGS,client" -count=1 $clientPkgs
	footer
}

step_gui() {
	isolate
	if [ "$(uname -s)" != Linux ]; then
		header "gui: the end-to-end GUI tests run on Linux (Xvfb) only"
		footer
		return 0
	fi
	local bin=${PANEFLOW_GUI_BIN:-}
	if [ -z "$bin" ]; then
		bin="$isolated/paneflow-gui"
		header "go build -o $bin ./cmd/paneflow (the desktop app, cgo)"
		CGO_ENABLED=1 go build -o "$bin" ./cmd/paneflow
		footer
	fi
	header "go test -count=1 -v ${GUI_RUN:+-run $GUI_RUN }$guiTests   (PANEFLOW_GUI_BIN=$bin, under Xvfb)"
	PANEFLOW_GUI_BIN=$bin go test -count=1 -v -timeout "${GUI_TIMEOUT:-10m}" ${GUI_RUN:+-run "$GUI_RUN"} "$guiTests" </dev/null
	footer
}

# fuzz_targets prints "<package dir> <FuzzName>" for every fuzz function
# declared at the top level of a _test.go file.
fuzz_targets() {
	grep -rEo --include='*_test.go' --exclude-dir=.git --exclude-dir=testdata \
		--exclude-dir=vendor '^func Fuzz[A-Za-z0-9_]*\(' . |
		sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|\1 \2|' |
		sort -u
}

# fuzz_deadline_race reports whether the fuzz run logged in $1 failed only
# with the bare "context deadline exceeded" of Go's fuzz coordinator at the
# end of -fuzztime (go.dev/issue/75804): no failing input written, no panic,
# no other failure message.
fuzz_deadline_race() {
	grep -q '^    context deadline exceeded$' "$1" &&
		! grep -q 'Failing input written\|panic:\|--- FAIL: .*\n.*Error' "$1" &&
		[ "$(grep -c '^    ' "$1")" -eq 1 ]
}

step_fuzz() {
	isolate
	local targets dir name
	targets=$(fuzz_targets || true)
	if [ -z "$targets" ]; then
		header "fuzz: no fuzz targets in the tree"
		footer
		return 0
	fi
	local out rc
	out=$(mktemp)
	while read -r dir name; do
		header "fuzz $name in $dir for $FUZZTIME"
		rc=0
		go test -tags "$TAGS" -run '^$' -fuzz "^$name\$" -fuzztime="$FUZZTIME" "$dir" </dev/null 2>&1 | tee "$out" || rc=$?
		[ "$rc" -ne 0 ] || rc=$(grep -c '^FAIL' "$out" || true)
		if [ "$rc" -ne 0 ] && fuzz_deadline_race "$out"; then
			echo "(ignored: Go 1.26's fuzz coordinator reported its own -fuzztime deadline as a failure,"
			echo " go.dev/issue/75804, fixed in Go 1.27; no failing input was found or written)"
			rc=0
		fi
		if [ "$rc" -ne 0 ]; then
			rm -f "$out"
			return 1
		fi
		footer
	done <<EOF
$targets
EOF
}

step_package() {
	if [ "$(uname -s)" != Linux ]; then
		header "package: the bundles are built and checked on Linux (the workflows build the others on their runners)"
		footer
		return 0
	fi
	bash scripts/deps.sh package
	# The user's Go build cache (isolate keeps GOCACHE; run alone, this
	# step's go reads it from the environment as usual): the cross-built
	# desktop app and the macOS binaries take minutes cold and seconds
	# cached. package.sh runs the installed programs under its own isolated
	# HOME and XDG directories.
	bash packaging/package.sh selftest actionlint linux check windows wine darwin
}

[ $# -gt 0 ] || {
	sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

for s in "$@"; do
	case $s in
	lint) steps="fmt vet windows darwin nocgo" ;;
	fmt | vet | windows | darwin | nocgo | test | gui | fuzz | package) steps=$s ;;
	*)
		echo "check.sh: unknown step '$s' (see scripts/check.sh with no arguments)" >&2
		exit 2
		;;
	esac
	for st in $steps; do
		"step_$st"
	done
done
