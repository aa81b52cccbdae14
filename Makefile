# Paneflow developer entry points; `make help` lists them. The step logic lives
# in scripts/: deps.sh installs system packages, check.sh runs the checks.

# Go's official install location, for shells whose PATH lacks it.
export PATH := $(PATH):/usr/local/go/bin

GO      ?= go
BIN     := bin
MODULE  := github.com/paneflow-go/paneflow
# Build tags for `make build`/`make run`: TAGS=nogui builds the binary without
# the desktop window, statically (CGO_ENABLED=0): no C toolchain, and the CLI
# starts faster without the dynamic loader.
TAGS    ?=
# Empty when git has no commits yet; version.String then falls back to what
# the go command recorded.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS := $(if $(VERSION),-X $(MODULE)/version.Version=$(VERSION))
# Arguments for `make run`, e.g. make run ARGS=version.
ARGS    ?=

EXE := $(if $(filter Windows_NT,$(OS)),.exe)
# HAS_DISPLAY is "yes" when a window could open: macOS and Windows always have
# a display; other systems announce X11 or Wayland in the environment.
UNAME_S := $(shell uname -s 2>/dev/null)
HAS_DISPLAY := $(if $(filter Darwin MINGW% MSYS% CYGWIN%,$(UNAME_S))$(filter Windows_NT,$(OS))$(DISPLAY)$(WAYLAND_DISPLAY),yes)

.PHONY: help run build test lint fuzz bench deps clean

help:
	@echo "make run     build $(BIN)/paneflow and run it (ARGS=... passes arguments)"
	@echo "make test    install missing packages, then lint, race tests and brief fuzzing"
	@echo "make lint    static checks only: gofmt, vet, Windows/macOS/no-cgo builds"
	@echo "make fuzz    run every fuzz target for FUZZTIME (default 2m each)"
	@echo "make bench   throughput and memory against tmux (scripts/bench.sh)"
	@echo "make build   build every binary under cmd/ into $(BIN)/ (TAGS=nogui for no window)"
	@echo "make deps    install missing system packages (Debian/Ubuntu, root or sudo)"
	@echo "make clean   remove $(BIN)/ and test leftovers"

# The desktop window does not exist yet, so `run` needs only Go. When it lands,
# the default build needs cgo and the "gui" package group: make `run` depend on
# deps then.
run: build
ifeq ($(HAS_DISPLAY)$(ARGS),)
	@echo "make run: built $(BIN)/paneflow$(EXE) ($$(./$(BIN)/paneflow$(EXE) version)), but there is no display"
	@echo "  (DISPLAY and WAYLAND_DISPLAY are unset), so no window could open here."
	@echo "  On a headless machine use \`$(BIN)/paneflow serve\`, the headless server."
else
	./$(BIN)/paneflow$(EXE) $(ARGS)
endif

build:
	$(if $(findstring nogui,$(TAGS)),CGO_ENABLED=0) $(GO) build $(if $(TAGS),-tags '$(TAGS)') $(if $(LDFLAGS),-ldflags '$(LDFLAGS)') -o $(BIN)/ ./cmd/...

deps:
	@bash scripts/deps.sh

test: deps
	@FUZZTIME=$(or $(FUZZTIME),10s) bash scripts/check.sh lint test fuzz

lint:
	@bash scripts/check.sh lint

fuzz: deps
	@FUZZTIME=$(or $(FUZZTIME),2m) bash scripts/check.sh fuzz

bench: deps
	@if [ -f scripts/bench.sh ]; then bash scripts/bench.sh; \
	else echo "make bench: scripts/bench.sh does not exist yet" >&2; exit 1; fi

clean:
	rm -rf $(BIN) artifacts
	find . -name .git -prune -o -type d -path '*/testdata/failed' -prune -exec rm -rf {} +
	find . -name .git -prune -o -type f \( -name '*.test' -o -name '*.prof' \) -exec rm -f {} +
