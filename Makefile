# Ossie: build, demo, test. `make help` lists the targets.
GO           ?= go
BIN          ?= bin
TEST_TIMEOUT ?= 25m
FUZZTIME     ?= 10s
# Every build, test and benchmark reads DuckDB answers as Arrow record
# batches (engine/duckdb/fetch_arrow.go): the driver builds its Arrow
# interface only with this tag. Without it (plain `go build`) answers are
# read row by row, the same values, slower (docs/development.md).
GO_TAGS      ?= duckdb_arrow
export GOFLAGS := $(strip $(GOFLAGS) -tags=$(GO_TAGS))
# Go files we own (skips caches and built binaries).
GOFILES = $(shell find . -name '*.go' -not -path './.cache/*' -not -path './$(BIN)/*' -not -path './.git/*')

.PHONY: all help build ossiectl demo cluster-demo fetch-flights kube-tools trino moto mcp-python pyclient pg-python node-pg pgjdbc test differential soak soak-memory bench bench-e2e bench-trino lint fuzz clean image-check chart-crds

all: build

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 16

build: ## compile every package and the binaries bin/ossiectl, bin/server, bin/operator
	$(GO) build ./...
	$(GO) build -o $(BIN)/ossiectl ./cmd/ossiectl
	$(GO) build -o $(BIN)/server ./cmd/server
	$(GO) build -o $(BIN)/operator ./cmd/operator

ossiectl: ## only the CLI, bin/ossiectl (no control plane, no server; the quickest start)
	$(GO) build -o $(BIN)/ossiectl ./cmd/ossiectl

fetch-flights: ## get the 3 M-row flights data (falls back to the committed sample)
	@scripts/fetch-flights.sh >/dev/null

demo: ## answer questions on the flights data (full 3 M rows when available)
	@data=$$(scripts/fetch-flights.sh) && $(GO) run ./examples/flights/demo --data "$$data"

# Builds what is missing (bin/k8s once, bin/operator, bin/server), then runs
# until Ctrl-C; a second run reuses the builds. A built binary rather than
# `go run`, which turns the Ctrl-C into exit status 1. test/localcluster is the code,
# and its test runs it end to end in `make test`.
cluster-demo: ## the operator + server on a local kube-apiserver with PostgreSQL and the flights data, until Ctrl-C
	@$(GO) build -o $(BIN)/cluster-demo ./examples/flights/cluster
	@data=$$(scripts/fetch-flights.sh) && exec $(BIN)/cluster-demo --data "$$data"

kube-tools: ## build kube-apiserver, etcd, kubectl for the control-plane tests into bin/k8s/ (slow the first time)
	@BIN=$(BIN) scripts/kube-tools.sh >/dev/null

trino: ## fetch the Trino server and plugins (memory, iceberg) into bin/trino/ and the Iceberg REST catalog fixture into bin/iceberg-rest/ (about 620 MB, once)
	@BIN=$(BIN) scripts/trino.sh >/dev/null
	@BIN=$(BIN) scripts/iceberg-rest.sh >/dev/null

pyclient: ## install the Python client with pyarrow, pandas and pytest into bin/pyclient/ (about 370 MB, once) for its tests
	@BIN=$(BIN) scripts/pyclient.sh >/dev/null

moto: ## install moto's server mode, the Glue implementation the Glue tests run against, into bin/moto/ (about 320 MB, once)
	@BIN=$(BIN) scripts/moto.sh >/dev/null

pgjdbc: ## fetch the PostgreSQL JDBC driver into bin/pgjdbc/ and compile the SQL endpoint's JDBC test program (about 1 MB, once)
	@BIN=$(BIN) scripts/pgjdbc.sh >/dev/null

mcp-python: ## install the official MCP Python SDK the MCP client test drives /mcp with, into bin/mcp-python/ (about 70 MB, once)
	@BIN=$(BIN) scripts/mcp-python.sh >/dev/null

pg-python: ## install psycopg 3 and SQLAlchemy 2, the Python clients the SQL endpoint's client test drives, into bin/pg-python/ (about 70 MB, once)
	@BIN=$(BIN) scripts/pg-python.sh >/dev/null

node-pg: ## install node-postgres (npm pg), the Node.js client the SQL endpoint's client test drives, into bin/node-pg/ (about 1 MB, once)
	@BIN=$(BIN) scripts/node-pg.sh >/dev/null

# The control-plane suites need a real kube-apiserver and etcd: they are built
# from their Go modules once (10-40 minutes cold on 2 cores, by load; README) and reused. PostgreSQL is
# part of the machine, Trino and the Iceberg REST catalog fixture are
# fetched through Maven (scripts/trino.sh, scripts/iceberg-rest.sh, about
# 80 s cold) and moto and the MCP Python SDK through pip (scripts/moto.sh, 1-3 min cold;
# scripts/mcp-python.sh, about 40 s cold; scripts/pg-python.sh, about 40 s
# cold), node-postgres through npm (scripts/node-pg.sh, about 10 s cold),
# pgjdbc through Maven (scripts/pgjdbc.sh, about 30 s cold),
# so their suites must run, never skip.
test: ## go vet + every test (fuzz targets run their seed corpus only)
	$(GO) vet ./...
	scripts/install-deps.sh                   # PostgreSQL 15 server binaries, Maven, a JDK, python3-venv and Node.js, when missing
	scripts/install-chromium.sh >/dev/null   # the web explorer test drives headless Chromium
	KUBEBUILDER_ASSETS=$$(BIN=$(BIN) scripts/kube-tools.sh | tail -n1) OSSIE_REQUIRE_POSTGRES=1 OSSIE_REQUIRE_BROWSER=1 OSSIE_REQUIRE_PSQL=1 \
		OSSIE_TRINO_HOME=$$(BIN=$(BIN) scripts/trino.sh | tail -n1) OSSIE_REQUIRE_TRINO=1 \
		OSSIE_ICEBERG_REST_HOME=$$(BIN=$(BIN) scripts/iceberg-rest.sh | tail -n1) \
		OSSIE_MOTO_HOME=$$(BIN=$(BIN) scripts/moto.sh | tail -n1) OSSIE_REQUIRE_MOTO=1 \
		OSSIE_MCP_PYTHON_HOME=$$(BIN=$(BIN) scripts/mcp-python.sh | tail -n1) OSSIE_REQUIRE_MCP_PYTHON=1 \
		OSSIE_PYCLIENT_HOME=$$(BIN=$(BIN) scripts/pyclient.sh | tail -n1) OSSIE_REQUIRE_PYCLIENT=1 \
		OSSIE_PG_PYTHON_HOME=$$(BIN=$(BIN) scripts/pg-python.sh | tail -n1) OSSIE_REQUIRE_PG_PYTHON=1 \
		OSSIE_NODE_PG_HOME=$$(BIN=$(BIN) scripts/node-pg.sh | tail -n1) OSSIE_REQUIRE_NODE_PG=1 \
		OSSIE_PGJDBC_HOME=$$(BIN=$(BIN) scripts/pgjdbc.sh | tail -n1) OSSIE_REQUIRE_PGJDBC=1 \
		$(GO) test -timeout $(TEST_TIMEOUT) ./...
# The row path alone, as a build without the tag has it.
	$(GO) test -tags= -count=1 ./engine/duckdb/
# The chart tests are a module of their own (test/chart/go.mod): Helm's dependencies stay out of ours.
	cd test/chart && $(GO) vet ./... && KUBEBUILDER_ASSETS=$$(cd ../.. && BIN=$(BIN) scripts/kube-tools.sh | tail -n1) \
		$(GO) test -timeout $(TEST_TIMEOUT) ./...

# `make test` runs the hand cases, the regression seeds and seeds 1..12;
# this runs seeds 1..N (and the others) on the three engines with the
# Kubernetes-mode cells: about 8 s a seed (docs/development.md).
N ?= 200
differential: ## the differential test on seeds 1..N (default 200): every entry point, format and engine against the reference evaluator
	scripts/install-deps.sh
	KUBEBUILDER_ASSETS=$$(BIN=$(BIN) scripts/kube-tools.sh | tail -n1) OSSIE_REQUIRE_POSTGRES=1 \
		OSSIE_TRINO_HOME=$$(BIN=$(BIN) scripts/trino.sh | tail -n1) OSSIE_REQUIRE_TRINO=1 \
		$(GO) test -timeout 0 -run TestDifferential ./test/differential -args -seeds=$(N)

# `make test` runs one round of the fault soak over 6 cases (about a
# minute); this runs ROUNDS rounds over 12 cases with 5 s of load between
# faults (docs/development.md, "Fault soak").
ROUNDS ?= 5
soak: ## the fault soak at length: PostgreSQL and Trino restarts, SIGTERM/SIGKILL, broken ConfigMaps and tokens, the API server away, the operator's status, under mixed load (ROUNDS rounds, default 5)
	scripts/install-deps.sh
	KUBEBUILDER_ASSETS=$$(BIN=$(BIN) scripts/kube-tools.sh | tail -n1) OSSIE_REQUIRE_POSTGRES=1 \
		OSSIE_TRINO_HOME=$$(BIN=$(BIN) scripts/trino.sh | tail -n1) OSSIE_REQUIRE_TRINO=1 \
		$(GO) test -count=1 -timeout 0 -run TestSoak -v ./test/soak -args -soak.rounds=$(ROUNDS) -soak.cases=12 -soak.load=5s -soak.cache-fill=1000 -soak.trino

# The memory soak (docs/development.md, "Memory soak"): one server on
# DuckDB over the flights data (3 M rows after `make fetch-flights`) and
# generated cases, DURATION of varied load, RSS and the Go heap, result
# cache and DuckDB gauges sampled every 5 s into $(SOAK_CSV).
DURATION ?= 30m
SOAK_WARMUP ?= 5m
SOAK_CSV ?= soak-memory.csv
SOAK_SERVER_ARGS ?=
soak-memory: ## the memory soak: DURATION (default 30m) of mixed queries, formats, roles, reloads and cache churn; RSS after warm-up reported, samples in SOAK_CSV
	@scripts/fetch-flights.sh >/dev/null
	$(GO) test -count=1 -timeout 0 -run TestMemorySoak -v ./test/soak -args -soak.memory=$(DURATION) -soak.warmup=$(SOAK_WARMUP) \
		-soak.csv=$(abspath $(SOAK_CSV)) -soak.server-args="$(SOAK_SERVER_ARGS)"

bench: ## benchmarks with memory stats (run `make fetch-flights` first for the 3 M-row numbers)
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

bench-e2e: ## server vs engine on the 3 M-row flights data: p50/p99, RSS, cached answers, 8-client throughput
	@GO=$(GO) BIN=$(BIN) scripts/bench-e2e.sh

bench-trino: ## server over HTTP vs hand-written SQL through trino-go-client, the flights questions on the 3 M rows in Trino (Hive connector)
	@GO=$(GO) BIN=$(BIN) scripts/bench-trino.sh

lint: ## gofmt check + go vet
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

fuzz: ## run each Fuzz target for FUZZTIME (default 10s)
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

image-check: ## build the image's binaries with the Dockerfile's flags, check --version and libc needs (no Docker needed)
	@GO=$(GO) BIN=$(BIN) scripts/image-check.sh

chart-crds: ## copy config/crd/bases into charts/ossie/crds (scripts/generate.sh does it too; a chart test fails when stale)
	cp config/crd/bases/*.yaml charts/ossie/crds/

clean: ## remove built binaries (keeps downloaded data)
	rm -rf $(BIN)
