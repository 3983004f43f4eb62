# clai — build, test, lint, bench.
GO          ?= go
BIN         ?= bin/clai
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# TAGS: urfave_cli_no_docs leaves out the CLI library's man page and Markdown
# output, which clai never writes, and the Markdown parser whose initialisers
# every command would run at start-up (docs/performance.md#start-up). The
# tests build clai with the same tags (internal/testprog.Tags).
TAGS        ?= urfave_cli_no_docs
# STATIC_TAGS: on Linux, netgo and osusergo leave out the C resolver and user
# lookup, the only users of cgo in clai, so that clai is linked statically:
# no dynamic loader and no libc mapped in every run (about 1 MiB of resident
# memory, docs/performance.md#memory). Other systems keep their own resolver.
STATIC_TAGS ?= netgo,osusergo
comma       := ,
BUILD_TAGS  := $(TAGS)$(if $(filter linux,$(shell $(GO) env GOOS)),$(comma)$(STATIC_TAGS))

.PHONY: all build test e2e lint cross tidy-check update-golden bench fuzz ci clean

all: build

## build: clai, clai-full and clai-hook (which the shell hooks of clai init
## run) in bin/. clai is the lean clai (the tag clai_lean): it links no human
## loop and hands the commands and runs that need it to clai-full beside it
## (docs/performance.md#two-binaries)
build:
	$(GO) build -tags '$(BUILD_TAGS),clai_lean' -o $(BIN) ./cmd/clai
	$(GO) build -tags '$(BUILD_TAGS)' -o $(dir $(BIN))clai-full ./cmd/clai
	$(GO) build -tags '$(BUILD_TAGS)' -o $(dir $(BIN))clai-hook ./cmd/clai-hook

## test: the hermetic tier, with the race detector (the README's test
## command): Go, git, a POSIX shell and the fakes of testdata/fakes, nothing
## else: no npm, no browser, no network; the same on every machine
test:
	$(GO) test -race -count=1 ./...

## e2e: the second tier: the whole suite built with the tag e2e, which adds
## the tests of real programs (tmux, dialog, whiptail, zsh, fish, bc,
## Chromium, Node.js, Claude Code, Codex CLI, Gemini CLI and create-vite
## from npm). A missing one skips its test, or fails it with
## CLAI_E2E_REQUIRE=1 (.ci/run sets it)
e2e:
	$(GO) test -race -count=1 -tags e2e ./...

## lint: gofmt, go vet and staticcheck must report nothing, in both tiers'
## builds (with and without the tag e2e), and the lean clai's (clai_lean)
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags e2e ./...
	$(GO) vet -tags clai_lean,e2e ./cmd/clai
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags e2e ./...
	$(GO) run $(STATICCHECK) -tags clai_lean,e2e ./cmd/clai

## cross: every package, tests of both tiers included, must build and vet
## for macOS and FreeBSD (CI runs the tests on Linux only)
CROSS_GOOS ?= darwin freebsd
cross:
	@set -e; for os in $(CROSS_GOOS); do \
	  echo "GOOS=$$os go vet ./..."; GOOS=$$os $(GO) vet ./...; \
	  echo "GOOS=$$os go vet -tags e2e ./..."; GOOS=$$os $(GO) vet -tags e2e ./...; \
	  echo "GOOS=$$os go vet -tags clai_lean,e2e ./cmd/clai"; GOOS=$$os $(GO) vet -tags clai_lean,e2e ./cmd/clai; done

## tidy-check: go mod tidy must change nothing
tidy-check:
	@cp go.mod /tmp/clai.go.mod.$$$$ && cp go.sum /tmp/clai.go.sum.$$$$; \
	  $(GO) mod tidy; \
	  if ! git diff --quiet -- go.mod go.sum; then \
	    echo "go mod tidy changes go.mod/go.sum:"; git --no-pager diff -- go.mod go.sum; \
	    cp /tmp/clai.go.mod.$$$$ go.mod; cp /tmp/clai.go.sum.$$$$ go.sum; exit 1; fi; \
	  rm -f /tmp/clai.go.mod.$$$$ /tmp/clai.go.sum.$$$$

## update-golden: rewrite every golden file (and the CLI scripts' expected
## output) after an intended change of output: the tests of each package that
## imports internal/golden, run with -update
update-golden:
	@pkgs=$$($(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | \
	  awk '{ for (i = 2; i <= NF; i++) if ($$i == "github.com/clai-sh/clai/internal/golden") { print $$1; next } }'); \
	  if [ -z "$$pkgs" ]; then echo "no package imports internal/golden"; exit 1; fi; \
	  echo $(GO) test -count=1 $$pkgs -update; $(GO) test -count=1 $$pkgs -update

## bench: Go benchmarks, then whole-process workloads W0–W13 against a floor
## measured in the same run, WM, peak memory beside its bounds, and WH, 20
## runs on one Telegram bot through the hub against one owning it (RUNS=N
## runs each, ONLY=W1,W2 to pick, BEFORE=a clai binary of an earlier commit
## measured in the same runs)
RUNS ?= 5
ONLY ?=
BEFORE ?=
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./runner/... ./playbooks/...
	$(GO) run ./internal/cmd/bench -runs $(RUNS) -only "$(ONLY)" -before "$(BEFORE)"

## fuzz: each fuzz target in turn, FUZZTIME each (go test runs one target of a
## package at a time); FUZZFLAGS go to go test, e.g. FUZZFLAGS=-parallel=1.
## Their seed corpora run in make test.
FUZZTIME  ?= 30s
FUZZFLAGS ?=
fuzz:
	@set -e; for file in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
	  for target in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$file); do \
	    echo "$$target ($$(dirname $$file)), $(FUZZTIME)"; \
	    $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$(dirname $$file); \
	  done; \
	done

## ci: everything CI checks (.ci/run also installs the e2e tier's programs
## and sets CLAI_E2E_REQUIRE=1)
ci: test e2e lint cross tidy-check

clean:
	rm -rf bin
