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
#   vet      go vet -tags nogui ./...
#   windows  GOOS=windows go build and go vet -tags nogui ./...
#   darwin   GOOS=darwin CGO_ENABLED=0 go vet -tags nogui ./...
#   nocgo    CGO_ENABLED=0 go build -tags nogui ./...
#   test     go test -race -tags nogui -count=1 ./...
#   fuzz     every `func FuzzXxx` in the tree for $FUZZTIME (default 10s)
#
# test and fuzz run with LANG=en_US.UTF-8 and the XDG base directories pointed
# at a fresh temporary directory, so they neither read nor write the user's
# configuration, state or sockets.
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

step_vet() {
	header "go vet -tags $TAGS ./..."
	go vet -tags "$TAGS" ./...
	footer
}

step_windows() {
	header "GOOS=windows go build + go vet -tags $TAGS ./..."
	GOOS=windows go build -tags "$TAGS" ./...
	GOOS=windows go vet -tags "$TAGS" ./...
	footer
}

step_darwin() {
	header "GOOS=darwin CGO_ENABLED=0 go vet -tags $TAGS ./..."
	GOOS=darwin CGO_ENABLED=0 go vet -tags "$TAGS" ./...
	footer
}

step_nocgo() {
	header "CGO_ENABLED=0 go build -tags $TAGS ./..."
	CGO_ENABLED=0 go build -tags "$TAGS" ./...
	footer
}

step_test() {
	isolate
	header "go test -race -tags $TAGS -count=1 ./...   ($(go version | cut -d' ' -f3-), LANG=$LANG)"
	CGO_ENABLED=1 go test -race -tags "$TAGS" -count=1 ./...
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

step_fuzz() {
	isolate
	local targets dir name
	targets=$(fuzz_targets || true)
	if [ -z "$targets" ]; then
		header "fuzz: no fuzz targets in the tree"
		footer
		return 0
	fi
	while read -r dir name; do
		header "fuzz $name in $dir for $FUZZTIME"
		go test -tags "$TAGS" -run '^$' -fuzz "^$name\$" -fuzztime="$FUZZTIME" "$dir" </dev/null
		footer
	done <<EOF
$targets
EOF
}

[ $# -gt 0 ] || {
	sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

for s in "$@"; do
	case $s in
	lint) steps="fmt vet windows darwin nocgo" ;;
	fmt | vet | windows | darwin | nocgo | test | fuzz) steps=$s ;;
	*)
		echo "check.sh: unknown step '$s' (see scripts/check.sh with no arguments)" >&2
		exit 2
		;;
	esac
	for st in $steps; do
		"step_$st"
	done
done
