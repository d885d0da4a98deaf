# Unit tests: criterion, linking selected sched/ sources directly with the
# test doubles in tests/unit/stubs.c (not libweft.so, not under LD_PRELOAD).
# `make test-unit` builds $(B)/tests/unit/unit and $(B)/tests/unit/proc (the
# scheduler, below) and runs them; test-unit-tsan and test-unit-asan run
# the same under the sanitizers.
UNIT_DIR    := $(B)/tests/unit
UNIT_SCHED  := sched/core/runq.c sched/core/park.c sched/core/timer.c sched/base/lock.c sched/base/print.c sched/base/throw.c \
               sched/base/slab.c arch/$(ARCH)/syscall.c \
               sched/stack/stack.c sched/stack/stack_pack.c sched/core/unjoined.c sched/io/netpoll.c sched/core/rtq.c \
               sched/process/shmap.c
UNIT_SRC    := $(wildcard tests/unit/*.c)
UNIT_ASM    := arch/$(ARCH)/syscall_sigok.S
UNIT_OBJ    := $(patsubst %.c,$(UNIT_DIR)/obj/%.o,$(UNIT_SCHED) $(UNIT_SRC)) \
               $(patsubst %.S,$(UNIT_DIR)/obj/%.o,$(UNIT_ASM))
UNIT_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
               -D_GNU_SOURCE -pthread -fno-stack-protector -I. -Isched -Iarch/$(ARCH)

# criterion for another instruction set: its Debian packages cannot be
# installed beside this machine's (the two libnanomsg5 builds differ in
# version), so the .debs are unpacked into $(B)/sysroot and the tests
# linked against them there (the headers are the native package's).
ifeq ($(ARCH),$(HOST_ARCH))
CRITERION := -lcriterion
else
CRIT_LIB  := $(B)/sysroot/usr/lib/$(ARCH)-linux-gnu
CRITERION := $(CRIT_LIB)/libcriterion.so.3 -Wl,--disable-new-dtags -Wl,-rpath,$(abspath $(CRIT_LIB)) \
             -Wl,-rpath-link,$(CRIT_LIB)
$(CRIT_LIB)/libcriterion.so.3: | deps
	rm -rf $(B)/debs && mkdir -p $(B)/debs
	cd $(B)/debs && apt-get download -q libcriterion3:$(DEB_ARCH) libnanomsg5:$(DEB_ARCH) 2>&1 | { grep -v unsandboxed || true; }
	for d in $(B)/debs/*.deb; do dpkg-deb -x $$d $(B)/sysroot || exit 1; done
	test -f $@
endif

$(UNIT_DIR)/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

-include $(UNIT_OBJ:.o=.d)

$(UNIT_DIR)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(UNIT_DIR)/unit: $(UNIT_OBJ) $(filter %.so.3,$(CRITERION))
	$(CC) -pthread -o $@ $(UNIT_OBJ) $(CRITERION)

# The scheduler tests (tests/unit/proc): the real core/proc.c, core/worker.c and
# context switch run test tasks on real worker threads, with the test
# doubles of tests/unit/proc/stubs_proc.c.  A binary of their own: the
# doubles above replace core/proc.c.
PROC_SCHED := sched/core/proc.c sched/core/runq.c sched/core/rtq.c sched/core/park.c sched/core/timer.c sched/base/lock.c sched/base/print.c \
              sched/base/throw.c sched/base/slab.c sched/core/worker.c sched/core/thread.c arch/$(ARCH)/syscall.c arch/$(ARCH)/ctx.c \
              $(wildcard arch/$(ARCH)/tp.c)
PROC_SRC   := $(wildcard tests/unit/proc/*.c) tests/unit/criterion_tsan.c
PROC_ASM   := arch/$(ARCH)/syscall_sigok.S arch/$(ARCH)/switch.S arch/$(ARCH)/entry.S
PROC_OBJ   := $(patsubst %.c,$(UNIT_DIR)/obj/%.o,$(PROC_SCHED) $(PROC_SRC)) \
              $(patsubst %.S,$(UNIT_DIR)/obj/%.o,$(PROC_ASM))
-include $(PROC_OBJ:.o=.d)

$(UNIT_DIR)/proc: $(PROC_OBJ) $(filter %.so.3,$(CRITERION))
	$(CC) -pthread -o $@ $(PROC_OBJ) $(CRITERION)

test-unit: $(UNIT_DIR)/unit $(UNIT_DIR)/proc
	$(UNIT_DIR)/unit
	$(UNIT_DIR)/proc

# The same two binaries built with ThreadSanitizer and AddressSanitizer
# (gcc's libtsan2 / libasan8): test-unit-tsan, test-unit-asan, part of
# `make test`.  Every test runs in every build.  The scheduler tests switch
# stacks: the TSan build makes each context a TSan fiber (the wrapper of
# wt_ctx_switch in tests/unit/proc/stubs_proc.c); ASan needs nothing (it
# asks for the stack only at noreturn calls, none of which runs on a test
# task, and for fake stacks, off by default).  Criterion itself needs help
# to start under TSan: tests/unit/criterion_tsan.c.  A report fails its
# test (halt_on_error: the test's process dies, which criterion counts as a
# failure); LeakSanitizer ignores criterion's own allocations.
SAN := tsan asan
SAN_FLAGS_tsan := -fsanitize=thread -Wno-tsan
SAN_FLAGS_asan := -fsanitize=address -fno-omit-frame-pointer
PROC_LDFLAGS_tsan := -Wl,--wrap=wt_ctx_switch # TSan fibers: tests/unit/proc/stubs_proc.c
SAN_ENV_tsan := TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
SAN_ENV_asan := ASAN_OPTIONS="halt_on_error=1 detect_leaks=1" \
                LSAN_OPTIONS="suppressions=$(abspath tests/unit/lsan.supp) print_suppressions=0"

define san_rules
$(B)/tests/unit-$(1)/obj/%.o: %.c | deps
	@mkdir -p $$(dir $$@)
	$$(CC) $$(UNIT_CFLAGS) $$(SAN_FLAGS_$(1)) -MMD -MP -c $$< -o $$@

$(B)/tests/unit-$(1)/obj/%.o: %.S
	@mkdir -p $$(dir $$@)
	$$(CC) -c $$< -o $$@

-include $$(patsubst $$(UNIT_DIR)/%.o,$(B)/tests/unit-$(1)/%.d,$$(UNIT_OBJ) $$(PROC_OBJ))

$(B)/tests/unit-$(1)/unit: $$(patsubst $$(UNIT_DIR)/%,$(B)/tests/unit-$(1)/%,$$(UNIT_OBJ))
	$$(CC) $$(SAN_FLAGS_$(1)) -pthread -o $$@ $$^ -lcriterion

$(B)/tests/unit-$(1)/proc: $$(patsubst $$(UNIT_DIR)/%,$(B)/tests/unit-$(1)/%,$$(PROC_OBJ))
	$$(CC) $$(SAN_FLAGS_$(1)) $$(PROC_LDFLAGS_$(1)) -pthread -o $$@ $$^ -lcriterion

test-unit-$(1): $(B)/tests/unit-$(1)/unit $(B)/tests/unit-$(1)/proc
	$$(SAN_ENV_$(1)) $(B)/tests/unit-$(1)/unit
	$$(SAN_ENV_$(1)) $(B)/tests/unit-$(1)/proc
endef
$(foreach s,$(SAN),$(eval $(call san_rules,$(s))))

.PHONY: $(patsubst %,test-unit-%,$(SAN))
