# weft — build, test, benchmark.  `make` builds build/libweft.so and build/weft.
CC      ?= gcc
# The instruction set: arch/$(ARCH)/ holds all code that knows it.
ARCH    ?= x86_64
CFLAGS  ?= -O2 -g
# make DEBUG=1: the lock-order check (sched/lockrank.c) is compiled in.
ifeq ($(DEBUG),1)
CFLAGS  += -DWT_DEBUG_LOCKS
endif
WFLAGS  := -Wall -Wextra -Wno-unused-parameter -std=gnu11
# The runtime never uses the stack protector: g0 may run on another TCB.
LIBFLAGS := -fPIC -fvisibility=hidden -fno-stack-protector -D_GNU_SOURCE -pthread -Iarch/$(ARCH)
B       := build
DEBS    := libunwind-dev libelf-dev libcriterion-dev python3 gdb zstd xz-utils memcached nginx-light libtsan2 libasan8 libgc-dev guile-3.0

LIB_SRC := $(wildcard sched/*.c) $(wildcard shim/*.c) $(wildcard arch/$(ARCH)/*.c)
LIB_ASM := $(wildcard arch/$(ARCH)/*.S)
LIB_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC)) $(patsubst %.S,$(B)/obj/%.o,$(LIB_ASM))

all: deps $(B)/libweft.so $(B)/weft

# Debian packages the build and tests need: installed when root, else named.
deps: $(B)/.deps
$(B)/.deps:
	@mkdir -p $(B)
	@missing=""; \
	for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "weft: installing$$missing"; \
	    (apt-get install -y $$missing >/dev/null 2>&1 || \
	     (apt-get update >/dev/null 2>&1 && apt-get install -y $$missing >/dev/null)) || \
	     { echo "weft: could not install$$missing"; exit 1; }; \
	  else echo "weft: missing Debian packages:$$missing (run: sudo apt-get install$$missing)"; exit 1; fi; \
	fi
	@touch $@

# The anonymous version script, made from the WT_EXPORT markers in shim/.
shim/exports.map: $(wildcard shim/*.c) tools/gen-exports.sh
	sh tools/gen-exports.sh shim/*.c > $@

# Each object depends on the headers it includes (-MMD -MP: build/obj/*.d).
$(B)/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(LIBFLAGS) -MMD -MP -c $< -o $@

$(B)/obj/%.o: %.S | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -Iarch/$(ARCH) -MMD -MP -c $< -o $@

-include $(LIB_OBJ:.o=.d)

$(B)/libweft.so: $(LIB_OBJ) shim/exports.map
	$(CC) -shared -o $@ $(LIB_OBJ) -Wl,--version-script=shim/exports.map -Wl,-z,nodelete \
	  -ldl -lunwind -lelf -pthread

$(B)/weft: tools/weft.sh
	@mkdir -p $(B)
	cp $< $@ && chmod +x $@

# Fails when libweft.so exports anything that is not an interposed name.
check-exports: $(B)/libweft.so
	sh tools/check-exports.sh $(B)/libweft.so shim/exports.map

include tests/tests.mk
include bench/bench.mk

clean:
	rm -rf $(B)

.PHONY: all deps check-exports clean
