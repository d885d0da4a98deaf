# weft — build, test, benchmark.  `make` builds build/libweft.so and build/weft.
CC      ?= gcc
CFLAGS  ?= -O2 -g
WFLAGS  := -Wall -Wextra -Wno-unused-parameter -std=gnu11
# The runtime never uses the stack protector: g0 may run on another TCB.
LIBFLAGS := -fPIC -fvisibility=hidden -fno-stack-protector -D_GNU_SOURCE -pthread
B       := build
DEBS    := libunwind-dev libelf-dev libcriterion-dev python3 gdb zstd xz-utils

LIB_SRC := $(wildcard sched/*.c) $(wildcard shim/*.c) $(wildcard arch/x86_64/*.c)
LIB_ASM := $(wildcard arch/x86_64/*.S)
LIB_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC)) $(patsubst %.S,$(B)/obj/%.o,$(LIB_ASM))
HDRS    := $(wildcard sched/*.h) $(wildcard shim/*.h)

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

$(B)/obj/%.o: %.c $(HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(LIBFLAGS) -c $< -o $@

$(B)/obj/%.o: %.S | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

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
