# Paneflow developer entry points; `make help` lists them. The step logic lives
# in scripts/: deps.sh installs system packages, check.sh runs the checks,
# bench.sh the benchmarks.

# Go's official install location, for shells whose PATH lacks it.
export PATH := $(PATH):/usr/local/go/bin

GO      ?= go
BIN     := bin
MODULE  := github.com/paneflow-go/paneflow
# Build tags for `make build`: TAGS=nogui builds only the headless binaries
# (no desktop app, so no cgo and no GL/X11 headers needed).
TAGS    ?=
# Empty when git has no commits yet; version.String then falls back to what
# the go command recorded.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS := $(if $(VERSION),-X $(MODULE)/version.Version=$(VERSION))
# Arguments for `make run`, e.g. make run ARGS=version.
ARGS    ?=

EXE := $(if $(filter Windows_NT,$(OS)),.exe)
# GUI is the desktop app: cmd/paneflow with the default tags, which needs cgo
# (Fyne's GLFW driver). $(BIN)/paneflow is the same program built with the
# nogui tag and CGO_ENABLED=0: a static CLI and headless server that starts
# faster and runs anywhere.
GUI := $(BIN)/paneflow-gui$(EXE)
# The desktop app is a position-independent executable on Linux, as
# distributions require of packaged binaries (packaging/package.sh checks).
GUIMODE := $(if $(filter Linux,$(shell uname -s 2>/dev/null)),-buildmode=pie)

.PHONY: help run gui build test lint fuzz bench deps clean package $(GUI)

help:
	@echo "make run     build the desktop app ($(GUI)) and start it: it attaches to your server, starting one if none runs (ARGS=... passes arguments)"
	@echo "make test    install missing packages, then lint, race tests, the GUI under Xvfb, brief fuzzing"
	@echo "make lint    static checks only: gofmt, vet, Windows/macOS/no-cgo builds"
	@echo "make fuzz    run every fuzz target for FUZZTIME (default 2m each)"
	@echo "make stress-gui  end the desktop app every way it can end while busy, ROUNDS times each (default 13)"
	@echo "make bench   throughput and memory against tmux, GUI rendering (scripts/bench.sh)"
	@echo "make build   build $(BIN)/paneflow-gui, the CLI client $(BIN)/paneflow, $(BIN)/paneflow-server and the other cmd/ binaries (static) into $(BIN)/"
	@echo "make gui     build the desktop app only: $(GUI)"
	@echo "make deps    install missing system packages (Debian/Ubuntu, root or sudo)"
	@echo "make agents  install the pinned agent CLIs the interop tests run (npm, cached outside the clone)"
	@echo "make package build the installable bundles into dist/ (packaging/package.sh): .deb, .rpm, .tar.xz, the Windows installer, the macOS bundle layout"
	@echo "make clean   remove $(BIN)/ and test leftovers"

# run starts the desktop app, which attaches to the user's server (starting
# a detached `paneflow serve` when none answers). Without a display (Linux/BSD with neither
# DISPLAY nor WAYLAND_DISPLAY) the app itself says so, points at
# `paneflow serve`, and exits 2, which fails this target: nothing is masked.
run: deps $(GUI)
	./$(GUI) $(ARGS)

gui: $(GUI)

# Phony on purpose: the go command's cache decides what to rebuild (a cold
# build of Fyne and go-gl takes minutes, an up-to-date one seconds).
$(GUI):
	CGO_ENABLED=1 $(GO) build $(GUIMODE) $(if $(TAGS),-tags '$(TAGS)') $(if $(LDFLAGS),-ldflags '$(LDFLAGS)') -o $@ ./cmd/paneflow

# The installed layout: $(BIN)/paneflow is the command-line client (tags
# nogui,client: no server linked in, so every CLI call starts faster), which
# hands `serve` over to $(BIN)/paneflow-server (the full headless program)
# and the desktop app over to $(GUI).
build: $(if $(findstring nogui,$(TAGS)),,$(GUI))
	CGO_ENABLED=0 $(GO) build -tags '$(sort nogui $(TAGS))' $(if $(LDFLAGS),-ldflags '$(LDFLAGS)') -o $(BIN)/ ./cmd/...
	CGO_ENABLED=0 $(GO) build -tags '$(sort nogui $(TAGS))' $(if $(LDFLAGS),-ldflags '$(LDFLAGS)') -o $(BIN)/paneflow-server$(EXE) ./cmd/paneflow
	CGO_ENABLED=0 $(GO) build -tags '$(sort client nogui $(TAGS))' $(if $(LDFLAGS),-ldflags '$(LDFLAGS)') -o $(BIN)/paneflow$(EXE) ./cmd/paneflow

deps:
	@bash scripts/deps.sh

# The desktop app is built once, here, and its end-to-end tests (test/gui,
# the "gui" step) run that binary under Xvfb.
test: deps agents vttest $(GUI)
	@PANEFLOW_GUI_BIN="$(abspath $(GUI))" FUZZTIME=$(or $(FUZZTIME),10s) bash scripts/check.sh lint test gui fuzz package

# agents installs the pinned real agent CLIs (Claude Code, Codex, Gemini CLI,
# opencode) that test/agents drives, into ~/.cache/paneflow/agents (outside the
# clone; a second run downloads nothing).
.PHONY: agents
agents: deps
	@bash scripts/agents.sh

# vttest installs the pinned vttest test/conform runs (Debian's .deb, checked
# against its SHA-256, into ~/.cache/paneflow/tools: a second run downloads nothing).
.PHONY: vttest
vttest: deps
	@bash scripts/vttest.sh

lint:
	@bash scripts/check.sh lint

# stress-gui ends the desktop app in each way it can end while a pane floods
# output and the pointer moves (test/gui's TestQuitWhileBusy: SIGTERM,
# SIGINT, closing the window, the quit keystroke), ROUNDS times each: 52
# endings by default. `make test` runs 2 of each.
.PHONY: stress-gui
stress-gui: deps $(GUI)
	@PANEFLOW_GUI_BIN="$(abspath $(GUI))" PANEFLOW_QUIT_ROUNDS=$(or $(ROUNDS),13) GUI_RUN='^TestQuitWhileBusy$$' GUI_TIMEOUT=60m bash scripts/check.sh gui

fuzz: deps
	@FUZZTIME=$(or $(FUZZTIME),2m) bash scripts/check.sh fuzz

bench: deps agents $(GUI)
	@bash scripts/deps.sh bench
	@if [ -f scripts/bench.sh ]; then PANEFLOW_GUI_BIN="$(abspath $(GUI))" bash scripts/bench.sh; \
	else echo "make bench: scripts/bench.sh does not exist yet" >&2; exit 1; fi

# package reuses the desktop app `make gui` built (never a second cgo build).
package: deps $(GUI)
	@bash scripts/deps.sh package
	@PANEFLOW_GUI_BIN="$(abspath $(GUI))" bash packaging/package.sh linux windows darwin

clean:
	rm -rf $(BIN) dist artifacts test/gui/artifacts
	find . -name .git -prune -o -type d -path '*/testdata/failed' -prune -exec rm -rf {} +
	find . -name .git -prune -o -type f \( -name '*.test' -o -name '*.prof' \) -exec rm -f {} +
