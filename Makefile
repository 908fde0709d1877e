# Ossie: build, demo, test. `make help` lists the targets.
GO           ?= go
BIN          ?= bin
TEST_TIMEOUT ?= 15m
FUZZTIME     ?= 10s
# Go files we own (skips caches and built binaries).
GOFILES = $(shell find . -name '*.go' -not -path './.cache/*' -not -path './$(BIN)/*' -not -path './.git/*')

.PHONY: all help build demo fetch-flights test bench lint fuzz clean

all: build

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 16

build: ## compile every package and the binaries bin/ossiectl, bin/server
	$(GO) build ./...
	$(GO) build -o $(BIN)/ossiectl ./cmd/ossiectl
	$(GO) build -o $(BIN)/server ./cmd/server

fetch-flights: ## get the 3 M-row flights data (falls back to the committed sample)
	@scripts/fetch-flights.sh >/dev/null

demo: ## answer questions on the flights data (full 3 M rows when available)
	@data=$$(scripts/fetch-flights.sh) && $(GO) run ./examples/flights/demo --data "$$data"

test: ## go vet + every test (fuzz targets run their seed corpus only)
	$(GO) vet ./...
	$(GO) test -timeout $(TEST_TIMEOUT) ./...

bench: ## benchmarks with memory stats (run `make fetch-flights` first for the 3 M-row numbers)
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

lint: ## gofmt check + go vet
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

fuzz: ## run each Fuzz target for FUZZTIME (default 10s)
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

clean: ## remove built binaries (keeps downloaded data)
	rm -rf $(BIN)
