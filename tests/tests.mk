# Tests: `make test` runs the unit tests (criterion, linking sched/ objects
# directly) and the preload tests (ordinary pthread programs, run natively
# and under weft, outputs compared).
TB := $(B)/tests
PRELOAD_C   := $(wildcard tests/preload/*.c)
PRELOAD_CXX := $(wildcard tests/preload/*.cc)
PRELOAD_BIN := $(patsubst tests/preload/%.c,$(TB)/preload/%,$(PRELOAD_C)) \
               $(patsubst tests/preload/%.cc,$(TB)/preload/%,$(PRELOAD_CXX))

$(TB)/preload/%: tests/preload/%.c tests/preload/weft_check.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -pthread -o $@ $< -lm

$(TB)/preload/%: tests/preload/%.cc tests/preload/weft_check.h
	@mkdir -p $(dir $@)
	g++ -O2 -g -Wall -std=c++20 -pthread -o $@ $<

test-preload: $(B)/libweft.so $(PRELOAD_BIN)
	sh tests/run-preload.sh $(abspath $(B)/libweft.so) $(TB)/preload $(PRELOAD_BIN)

-include tests/unit/unit.mk

test: all check-exports test-unit test-preload

.PHONY: test test-preload test-unit
