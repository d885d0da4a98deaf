# Tests: `make test` runs the unit tests (criterion, linking sched/ objects
# directly; built plain, with ThreadSanitizer and with AddressSanitizer) and
# the preload tests (ordinary pthread programs, run natively and under weft,
# outputs compared).
TB := $(B)/tests
# Programs that reproduce a failure not fixed yet: built by
# make $(TB)/preload/NAME, run by neither make test nor make soak.
PRELOAD_PENDING :=
PRELOAD_C   := $(filter-out $(PRELOAD_PENDING:%=tests/preload/%.c),$(wildcard tests/preload/*.c))
PRELOAD_CXX := $(wildcard tests/preload/*.cc)
PRELOAD_BIN := $(patsubst tests/preload/%.c,$(TB)/preload/%,$(PRELOAD_C)) \
               $(patsubst tests/preload/%.cc,$(TB)/preload/%,$(PRELOAD_CXX))

$(TB)/preload/%: tests/preload/%.c tests/preload/weft_check.h tests/preload/test_util.h tests/preload/spawn_util.h tests/preload/pingpong.h tests/preload/pshared_util.h tests/preload/sigstorm.h \
                  tests/preload/signal_util.h tests/preload/signal_storm.h tests/preload/prio_util.h \
                  tests/preload/deadlock_util.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $< -lm

# pipeline_sum runs the pipeline benchmark's queue.
$(TB)/preload/pipeline_sum: bench/queue.h
# dlopen_tls loads libraries with initial-exec TLS from its own directory.
$(TB)/preload/libtls_ie.so: tests/preload/lib/tls_ie.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -fPIC -shared -o $@ $<
$(TB)/preload/libtls_ie_big.so: tests/preload/lib/tls_ie.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -fPIC -shared -DNWORDS=120 -o $@ $<
$(TB)/preload/dlopen_tls: $(TB)/preload/libtls_ie.so $(TB)/preload/libtls_ie_big.so
# dtv_reuse loads a library with global-dynamic TLS from its own directory.
$(TB)/preload/libtls_gd.so: tests/preload/lib/tls_gd.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -fPIC -shared -o $@ $<
$(TB)/preload/dtv_reuse: $(TB)/preload/libtls_gd.so
# connect_nested links a library whose connect sleeps, then calls the next
# connect: under weft, weft's connect calls it inside its bracket.
$(TB)/preload/libslow_connect.so: tests/preload/lib/slow_connect.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -fPIC -shared -o $@ $<
$(TB)/preload/connect_nested: tests/preload/connect_nested.c tests/preload/weft_check.h $(TB)/preload/libslow_connect.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $< -L$(TB)/preload -lslow_connect -Wl,-rpath,'$$ORIGIN'
# dlopen_ctor_thread loads a library whose constructor makes a thread,
# then libtls_gd.so, from its own directory.
$(TB)/preload/libctor_thread.so: tests/preload/lib/ctor_thread.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -fPIC -shared -pthread -o $@ $<
$(TB)/preload/dlopen_ctor_thread: $(TB)/preload/libctor_thread.so $(TB)/preload/libtls_gd.so
# atfork_ctor links a library whose constructor registers atfork handlers.
$(TB)/preload/libatfork_ctor.so: tests/preload/lib/atfork_ctor.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -fPIC -shared -pthread -o $@ $<
$(TB)/preload/atfork_ctor: tests/preload/atfork_ctor.c tests/preload/weft_check.h $(TB)/preload/libatfork_ctor.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $< -L$(TB)/preload -latfork_ctor -Wl,-rpath,'$$ORIGIN'
# A malloc that creates threads from its first call (tests/real/run.sh
# preloads it beside libweft.so).
$(TB)/preload/liballoc_hook.so: tests/preload/lib/alloc_hook.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -fPIC -shared -pthread -o $@ $<

# OpenMP programs (libgomp's raw futex barriers): named openmp_*.
$(TB)/preload/openmp_%: tests/preload/openmp_%.c tests/preload/weft_check.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -fopenmp -o $@ $<

# Programs linking Boehm GC (libgc-dev), registered threads: named gc_*.
$(TB)/preload/gc_%: tests/preload/gc_%.c tests/preload/weft_check.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $< -lgc

# Programs linking liburing (liburing-dev), its own system calls: uring_*.
$(TB)/preload/uring_%: tests/preload/uring_%.c tests/preload/weft_check.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $< -luring

$(TB)/preload/%: tests/preload/%.cc tests/preload/weft_check.h
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -Wall -std=c++20 -pthread -o $@ $<

# The library and the preload test programs (test-glibc builds these in
# each chroot, then runs them as test-preload does).
preload-build: $(B)/libweft.so $(PRELOAD_BIN)

# Twice: the default GOMAXPROCS, and GOMAXPROCS=1 (where a wait that blocks
# its worker instead of parking shows up as a hang).
test-preload: preload-build
	sh tests/run-preload.sh $(abspath $(B)/libweft.so) $(TB)/preload $(PRELOAD_BIN)
	GOMAXPROCS=1 sh tests/run-preload.sh $(abspath $(B)/libweft.so) $(TB)/preload $(PRELOAD_BIN)

# Real programs from Debian, native and under weft, outputs compared.
test-real: $(B)/libweft.so $(TB)/preload/dlopen_tls $(TB)/preload/alloc_threads $(TB)/preload/liballoc_hook.so
	sh tests/real/run.sh $(abspath $(B)/libweft.so)

# What schedtrace, SIGQUIT's task dump and tools/weft-gdb.py show.
$(TB)/observe/parked: tests/observe/parked.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $<

test-observe: $(B)/libweft.so $(TB)/observe/parked $(TB)/preload/runqueues
	cp $(TB)/preload/runqueues $(TB)/observe/runqueues
	CC=$(CC) sh tests/observe/run.sh $(abspath $(B)/libweft.so) $(TB)/observe

# The preload tests once more against the lock-order-checking build
# (make DEBUG=1 into build/debug: sched/base/lockrank.c aborts with a "weft: lock
# order" line at the first acquisition out of order).  Outputs in a
# directory of their own: under make -j it runs beside test-preload.
# sleep_cpu is left out there: it bounds CPU time, which the checking
# build doubles (its locks are the timer's and the parking lot's, which
# other tests take too); test-preload runs it.
test-lockrank: $(PRELOAD_BIN)
	$(MAKE) --no-print-directory B=$(B)/debug DEBUG=1 $(B)/debug/libweft.so
	@mkdir -p $(B)/debug/preload-out
	sh tests/run-preload.sh $(abspath $(B)/debug/libweft.so) $(B)/debug/preload-out $(filter-out %/sleep_cpu,$(PRELOAD_BIN))

# Long stress runs (not part of make test): make stress STRESS_SECONDS=N
# runs each of four parts (contend and a loop of the contention-style
# preload tests, at GOMAXPROCS 2 and 1) for N seconds.
STRESS_SECONDS ?= 75
$(TB)/stress/contend: tests/stress/contend.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $<

stress: $(B)/libweft.so $(PRELOAD_BIN) $(TB)/stress/contend
	sh tests/stress/run.sh $(abspath $(B)/libweft.so) $(STRESS_SECONDS) $(TB)/preload $(TB)/stress/contend

# make soak [SOAK_S=seconds, 1800 by default]: rounds of the preload tests
# (the signal tests and the sigstorm_* storms among them) and the
# real-program tests under weft, at GOMAXPROCS 1, 2 and 4, beside a CPU hog
# and a sender of SIGUSR2 to the programs that take it (tests/soak/soak.py).
# Each crash, hang (with weft's task dump) and wrong result is kept in
# $(B)/soak/<date-time>/, with its core; the last line sums them up.  Not
# part of make test.
SOAK_S ?= 1800
soak: preload-build $(TB)/preload/dlopen_tls $(TB)/preload/alloc_threads $(TB)/preload/liballoc_hook.so
	python3 tests/soak/soak.py --lib $(B)/libweft.so --bindir $(TB)/preload --secs $(SOAK_S) $(if $(SOAK_WRONG_OK),--wrong-ok) \
	  --real $(PRELOAD_BIN)

# The launcher, weft compare, weft stack, weft top, traces of process trees, make
# install and the manual pages.
$(TB)/tools/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $<
test-tools: all $(TB)/preload/basic_join $(TB)/tools/stack_target $(TB)/tools/top_target $(TB)/tools/fork_trace $(TB)/tools/core_abort $(TB)/tools/cpu_burn $(TB)/tools/lock_hot $(TB)/tools/block_mix
	sh tests/tools/run.sh $(B) $(abspath $(TB)/preload/basic_join) $(abspath $(TB)/tools)

-include tests/unit/unit.mk

test: all check-exports check-layers test-unit test-unit-tsan test-unit-asan test-preload test-lockrank test-real test-observe test-tools

# weft built, and its preload tests run (both GOMAXPROCS values), with the
# glibc and gcc of other Debian releases: a debootstrap chroot of each in
# $(B)/glibc, kept for the next run (tests/glibc/run.sh).  Needs root.
GLIBC_RELEASES ?= trixie sid
test-glibc:
	@sh tools/deps.sh $(DEB_ARCH) debootstrap
	sh tests/glibc/run.sh $(B)/glibc $(GLIBC_RELEASES)

# aarch64 on this machine: built with Debian's cross compiler into
# build/aarch64 and run under qemu-user (tests/qemu.sh): the unit tests,
# the preload tests (native and under weft, both GOMAXPROCS values) and the
# observability checks.  Left out there: the sanitizer builds (TSan and
# ASan do not run under qemu-user), the lock-order build (the same sources
# as test-preload), the real programs (Debian's x86_64 binaries) and the
# tools checks (the launcher is a shell script, the same on both).
test-aarch64:
	$(MAKE) --no-print-directory ARCH=aarch64 test-emulated
#
# qemu-user 7.2 (Debian 12's) keeps 24 bytes of its own for every mapped
# guest page, so weft's 64 TiB stack arena would cost it 400 GB: the run is
# made under a 100 GiB address-space limit (RLIMIT_AS), where weft takes a
# 64 GiB arena (1,024 tasks) and says so, and WEFT_TEST_THREADS caps the
# tests that start more threads than that at 1,000 (test_util.h).
EMU_VMEM_KB := 104857600
test-emulated: all
	sh tests/qemu.sh $(ARCH)
	ulimit -v $(EMU_VMEM_KB) && WEFT_EMULATED=1 WEFT_TEST_THREADS=1000 \
	  $(MAKE) --no-print-directory ARCH=$(ARCH) test-unit test-preload test-observe

.PHONY: preload-build soak stress test test-glibc test-aarch64 test-emulated test-tools test-preload test-lockrank test-unit test-unit-tsan test-unit-asan test-real test-observe
