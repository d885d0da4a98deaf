# weft — build, test, benchmark.  `make` builds build/libweft.so and build/weft.
CC      ?= gcc
# The instruction set: arch/$(ARCH)/ holds all code that knows it.  It is
# the compiler's (CC=aarch64-linux-gnu-gcc make), or named (make
# ARCH=aarch64, which picks Debian's cross compiler).  Another instruction
# set than this machine's builds into build/$(ARCH) and its programs run
# under qemu-user (tests/qemu.sh).
HOST_ARCH := $(shell uname -m)
ifeq ($(origin ARCH),undefined)
ARCH    := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))
else ifeq ($(origin CC),default)
ifneq ($(ARCH),$(HOST_ARCH))
CC      := $(ARCH)-linux-gnu-gcc
endif
endif
CXX_FOR := $(patsubst %gcc,%g++,$(filter %gcc,$(CC)))
CXX     := $(if $(CXX_FOR),$(CXX_FOR),g++)
DEB_ARCH_aarch64 := arm64
DEB_ARCH_x86_64  := amd64
DEB_ARCH := $(DEB_ARCH_$(ARCH))
ifeq ($(DEB_ARCH),)
$(error weft: ARCH=$(ARCH) is not supported (arch/ has: $(patsubst arch/%/arch.h,%,$(wildcard arch/*/arch.h))))
endif
CFLAGS  ?= -O2 -g
# make DEBUG=1: the lock-order check (sched/base/lockrank.c) is compiled in.
ifeq ($(DEBUG),1)
CFLAGS  += -DWT_DEBUG_LOCKS
endif
WFLAGS  := -Wall -Wextra -Wno-unused-parameter -std=gnu11
# The runtime never uses the stack protector: g0 may run on another TCB.
LIBFLAGS := -fPIC -fvisibility=hidden -fno-stack-protector -D_GNU_SOURCE -pthread -Isched -Iarch/$(ARCH)
# DEBS: the Debian packages (make deps); a|b|c is the first of a, b, c the
# release has: Debian 12 has OpenJDK 17, Debian 13 21 and 25; criterion's
# library links libgit2-1.5 on 12, libgit2-1.9 on 13; unstable's static
# qemu-user has no -static package of its own.  mariadb-server, sysbench
# and ripgrep: make bench-real; tmux: make test-tools (weft top's live
# view).
ifeq ($(ARCH),$(HOST_ARCH))
B       ?= build
DEBS    := libunwind-dev libcriterion-dev liburing-dev python3 gdb tmux zstd xz-utils memcached nginx-light libtsan2 libasan8 libgc-dev guile-3.0 man-db \
           openjdk-17-jdk-headless|openjdk-21-jdk-headless|openjdk-25-jdk-headless stress-ng \
           redis-server redis-tools libjemalloc2 libtcmalloc-minimal4|libtcmalloc-minimal4t64 \
           libmimalloc2.0|libmimalloc3 mariadb-server sysbench ripgrep g++
else
B       ?= build/$(ARCH)
DEBS    := gcc-$(ARCH)-linux-gnu g++-$(ARCH)-linux-gnu qemu-user-static|qemu-user-binfmt python3 \
           libc6:$(DEB_ARCH) libunwind-dev:$(DEB_ARCH) liburing-dev:$(DEB_ARCH) \
           libffi8:$(DEB_ARCH) libgit2-1.5:$(DEB_ARCH)|libgit2-1.9:$(DEB_ARCH) libgc-dev:$(DEB_ARCH) libcriterion-dev
endif

LIB_SRC := $(wildcard sched/*/*.c) $(wildcard shim/*.c) $(wildcard arch/$(ARCH)/*.c)
LIB_ASM := $(wildcard arch/$(ARCH)/*.S)
LIB_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC)) $(patsubst %.S,$(B)/obj/%.o,$(LIB_ASM))

all: deps $(B)/libweft.so $(B)/weft $(B)/weft-measure $(B)/man/weft.1 $(B)/man/weft.7

# Debian packages the build and tests need: installed when root, else named
# (tools/deps.sh; a|b: the first of them the release has).
deps: $(B)/.deps
$(B)/.deps:
	@mkdir -p $(B)
	@sh tools/deps.sh $(DEB_ARCH) $(foreach p,$(DEBS),'$(p)')
	@touch $@

# weft needs glibc 2.34 or later (docs/building.md, "glibc and Debian releases"): the version
# the compiler builds against, checked before anything is compiled.
GLIBC_MIN := 2.34
glibc-check:
	@v=$$(printf '#include <features.h>\n__GLIBC__ __GLIBC_MINOR__\n' | $(CC) -E -P - 2>/dev/null | tail -n1); \
	set -- $$v; \
	if [ "$$1" != 2 ] || [ "$${2:-0}" -lt $(word 2,$(subst ., ,$(GLIBC_MIN))) ] 2>/dev/null; then \
	  echo "weft: needs glibc $(GLIBC_MIN) or later; $(CC) builds against $$(echo $$v | tr ' ' .)"; exit 1; \
	fi

# The anonymous version script, made from the WT_EXPORT markers in shim/.
shim/exports.map: $(wildcard shim/*.c) tools/gen-exports.sh
	sh tools/gen-exports.sh shim/*.c > $@

# Each object depends on the headers it includes (-MMD -MP: build/obj/*.d).
$(B)/obj/%.o: %.c | glibc-check deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(LIBFLAGS) -MMD -MP -c $< -o $@

$(B)/obj/%.o: %.S | glibc-check deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -Iarch/$(ARCH) -MMD -MP -c $< -o $@

-include $(LIB_OBJ:.o=.d)

# -z noseparate-code: two loadable segments, not four (the headers and
# read-only data share the code's): every process the library is
# preloaded into maps it with 2 system calls fewer and a page fault or two
# fewer (sched/core/start.c: a dormant process costs what the loader does).
# sched/bss.ld puts what the loader writes on one page; -z norelro keeps
# .dynamic and .got on it (RELRO would give them a page of their own and
# an mprotect; .got.plt, lazily bound, is writable either way).
# -fini names no symbol, so there is no DT_FINI: crti's empty _fini, at
# the end of the code, cost a page fault at every exit.
$(B)/libweft.so: $(LIB_OBJ) shim/exports.map sched/bss.ld
	$(CC) -shared -o $@ $(LIB_OBJ) -Wl,--version-script=shim/exports.map -Wl,-z,nodelete \
	  -Wl,-z,noseparate-code -Wl,-z,norelro -Wl,-fini=wt_no_fini -Wl,-T,sched/bss.ld \
	  -ldl -pthread
	@set -- $$(readelf -SW $@ | sed 's/^.*\] *//' | awk '$$1 == ".dynamic" || $$1 == ".data" { print $$3, $$5 }'); \
	if [ $$((0x$$1 / 4096)) -ne $$(((0x$$3 + 0x$$4 - 1) / 4096)) ]; then \
	  echo "weft: .dynamic and the end of .data lie on different pages (sched/bss.ld)"; rm -f $@; exit 1; fi

VERSION := $(shell cat VERSION)

$(B)/weft: tools/weft.sh VERSION
	@mkdir -p $(B)
	sed 's/@VERSION@/$(VERSION)/' $< > $@ && chmod +x $@

# weft compare's runner (tools/weft-measure.c): static, so that the
# programs it forks start with none of its pages and LD_PRELOAD skips it.
$(B)/weft-measure: tools/weft-measure.c | deps
	@mkdir -p $(B)
	$(CC) $(CFLAGS) $(WFLAGS) -static -o $@ $<

# The manual pages, made of the Markdown (tools/md2man.py), one source:
# weft(1) the commands and settings (README.md, docs/usage.md), weft(7)
# the model and its limits (README.md, docs/design.md, docs/limits.md).
$(B)/man/weft.1: README.md docs/usage.md tools/md2man.py VERSION
	@mkdir -p $(dir $@)
	python3 tools/md2man.py weft 1 $(VERSION) "run threaded programs as goroutine-like tasks" \
	  README.md "(intro)=DESCRIPTION" "Use=USAGE" \
	  docs/usage.md "Commands" "Exit status" "Seeing inside" "WEFTDEBUG" \
	  README.md "Settings=ENVIRONMENT" > $@.tmp
	printf '.SH SEE ALSO\n\\fBweft\\fR(7), \\fBgdb\\fR(1), \\fBld.so\\fR(8)\n' >> $@.tmp
	mv $@.tmp $@
$(B)/man/weft.7: README.md docs/design.md docs/limits.md tools/md2man.py VERSION
	@mkdir -p $(dir $@)
	python3 tools/md2man.py weft 7 $(VERSION) "goroutine-style tasks for unmodified pthread programs" \
	  README.md "(intro)=DESCRIPTION" "What works and what does not" \
	  docs/design.md "(all)=HOW IT WORKS" \
	  docs/limits.md "(all)=GUARANTEES AND KNOWN LIMITS" > $@.tmp
	printf '.SH SEE ALSO\n\\fBweft\\fR(1), \\fBpthreads\\fR(7)\n' >> $@.tmp
	mv $@.tmp $@

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the launcher, the
# library, the helper scripts and the manual pages.  ldconfig runs when
# installing for real, so LD_PRELOAD=libweft.so finds the library by name.
PREFIX  ?= /usr/local
INSTALL_FILES := bin/weft lib/libweft.so lib/weft/weft-measure share/weft/compare.py \
                 share/weft/trace.py share/weft/stack.py share/weft/pprof.py share/weft/top.py \
                 share/weft/weft-gdb.py \
                 share/man/man1/weft.1 share/man/man7/weft.7
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/weft $(DESTDIR)$(PREFIX)/share/weft \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(B)/weft $(DESTDIR)$(PREFIX)/bin/weft
	install -m 755 $(B)/libweft.so $(DESTDIR)$(PREFIX)/lib/libweft.so
	install -m 755 $(B)/weft-measure $(DESTDIR)$(PREFIX)/lib/weft/weft-measure
	install -m 644 tools/compare.py tools/trace.py tools/stack.py tools/pprof.py tools/top.py \
		tools/weft-gdb.py \
	  $(DESTDIR)$(PREFIX)/share/weft/
	install -m 644 $(B)/man/weft.1 $(DESTDIR)$(PREFIX)/share/man/man1/weft.1
	install -m 644 $(B)/man/weft.7 $(DESTDIR)$(PREFIX)/share/man/man7/weft.7
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALL_FILES))
	-rmdir $(DESTDIR)$(PREFIX)/share/weft $(DESTDIR)$(PREFIX)/lib/weft 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

# Fails when libweft.so exports anything that is not an interposed name.
check-exports: $(B)/libweft.so
	sh tools/check-exports.sh $(B)/libweft.so shim/exports.map

# Fails, one line per include, when a file of sched/, shim/ or arch/
# includes a header of a folder the layer table in sched/README.md does
# not let it depend on (tools/check-layers.py).
check-layers:
	python3 tools/check-layers.py

include tests/tests.mk
include bench/bench.mk

# --one-file-system: nothing mounted under $(B) (test-glibc's chroots bind
# /proc, /sys and /dev while they run) is emptied.
clean:
	rm -rf --one-file-system $(B)

.PHONY: all deps glibc-check check-exports check-layers clean install uninstall
