# Benchmarks: `make bench` (full, a few minutes) and `make demo` (short).
# Plain pthread programs in bench/, run natively and under weft by
# bench/run.py, which prints them side by side.
BB         := $(B)/bench
BENCH_SRC  := $(wildcard bench/*.c)
BENCH_BIN  := $(patsubst bench/%.c,$(BB)/%,$(BENCH_SRC))

$(BB)/%: bench/%.c bench/bench.h bench/queue.h
	@mkdir -p $(BB)
	$(CC) -O2 -g -Wall -pthread -o $@ $<

# Go's side of the experiments (bench/go/NAME.go -> go_NAME), where a Go
# toolchain is installed (apt-get install golang-go); run.py adds Go's
# rows when the binaries exist.
GO := $(shell command -v go 2>/dev/null)
ifneq ($(GO),)
BENCH_BIN += $(patsubst bench/go/%.go,$(BB)/go_%,$(wildcard bench/go/*.go))
$(BB)/go_%: bench/go/%.go
	@mkdir -p $(BB)
	GOCACHE=$(abspath $(B))/gocache $(GO) build -o $@ $<
endif

# Rust's side (bench/rust/NAME.rs -> rust_NAME: std only, its channels and
# locks are futex-based), where rustc is installed (apt-get install rustc).
RUSTC := $(shell command -v rustc 2>/dev/null)
ifneq ($(RUSTC),)
BENCH_BIN += $(patsubst bench/rust/%.rs,$(BB)/rust_%,$(wildcard bench/rust/*.rs))
$(BB)/rust_%: bench/rust/%.rs
	@mkdir -p $(BB)
	$(RUSTC) -O -o $@ $<
endif

bench-progs: $(BENCH_BIN)

# make bench and make bench-real also write their figures as JSON, copy
# them to docs/results/ and rewrite docs/benchmarks.md and its charts from
# them (tools/benchdoc.py), so the page names the machine, date and commit
# of the run; commit the files a run worth keeping changed.
bench: $(B)/libweft.so $(BENCH_BIN)
	python3 bench/run.py --full --results=$(BB)/results.json
	cp $(BB)/results.json docs/results/bench.json
	python3 tools/benchdoc.py

demo: $(B)/libweft.so $(BENCH_BIN)
	python3 bench/run.py --demo

.PHONY: bench demo bench-progs

# Real programs from Debian packages (bench/real/run.py): each through
# `weft compare -n 5 --json`, one table of the medians and the geometric
# mean of the wall-time ratios; the JSON is kept in $(B)/bench-real, the
# medians in $(B)/bench-real/results.json.
bench-real: deps $(B)/libweft.so $(B)/weft
	python3 bench/real/run.py --weft $(B)/weft --out $(B)/bench-real; rc=$$?; \
	  cp $(B)/bench-real/results.json docs/results/bench-real.json && python3 tools/benchdoc.py; exit $$rc

# What the profiles cost: bench-real's threaded cases under weft, plain
# and with each of WEFTDEBUG's cpuprofile, mutexprofile and blockprofile
# (bench/real/profile_cost.py).
bench-profile: deps $(B)/libweft.so $(B)/weft
	python3 bench/real/profile_cost.py --weft $(B)/weft --out $(B)/bench-real

.PHONY: bench-real bench-profile
