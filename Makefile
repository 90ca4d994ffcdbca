# ccski: build, test and benchmark. `make bench` runs the benchmark suite at
# 1k, 5k, 10k and 50k skills and writes docs/benchmarks.md (several minutes;
# the 50k tree is about 500 MB, in a temporary folder unless BENCH_WORKDIR is
# set, which also keeps the trees for the next run). BENCH_BASELINE=<commit>
# also runs the MCP sessions with ccski built at that commit, for the
# throughput and memory rows.

GO ?= go
BENCH_SIZES ?= 1000,5000,10000,50000
BENCH_RUNS ?= 5
BENCH_WORKDIR ?=
BENCH_BASELINE ?=

.PHONY: build test bench bench-smoke

build:
	$(GO) build -o ccski ./cmd/ccski

test:
	$(GO) test -race ./...

bench:
	$(GO) run ./internal/bench -sizes $(BENCH_SIZES) -runs $(BENCH_RUNS) -out docs/benchmarks.md $(if $(BENCH_WORKDIR),-workdir $(BENCH_WORKDIR)) $(if $(BENCH_BASELINE),-baseline $(BENCH_BASELINE))

bench-smoke:
	$(GO) run ./internal/bench -sizes 200 -runs 1 -calls 2000 -out -
