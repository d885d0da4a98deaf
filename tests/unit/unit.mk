# Unit tests: criterion, linking selected sched/ sources directly with the
# test doubles in tests/unit/stubs.c (not libweft.so, not under LD_PRELOAD).
# `make test-unit` builds $(B)/tests/unit/unit and runs it.
UNIT_DIR    := $(B)/tests/unit
UNIT_SCHED  := sched/runq.c sched/park.c sched/timer.c sched/lock.c sched/print.c sched/throw.c \
               sched/slab.c arch/$(ARCH)/syscall.c \
               sched/stack.c sched/netpoll.c
UNIT_SRC    := $(wildcard tests/unit/*.c)
UNIT_ASM    := arch/$(ARCH)/syscall_sigok.S
UNIT_OBJ    := $(patsubst %.c,$(UNIT_DIR)/obj/%.o,$(UNIT_SCHED) $(UNIT_SRC)) \
               $(patsubst %.S,$(UNIT_DIR)/obj/%.o,$(UNIT_ASM))
UNIT_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
               -D_GNU_SOURCE -pthread -fno-stack-protector -I. -Iarch/$(ARCH)

$(UNIT_DIR)/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

-include $(UNIT_OBJ:.o=.d)

$(UNIT_DIR)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(UNIT_DIR)/unit: $(UNIT_OBJ)
	$(CC) -pthread -o $@ $(UNIT_OBJ) -lcriterion


# The scheduler tests (tests/unit/proc): the real proc.c, worker.c and
# context switch run test tasks on real worker threads, with the test
# doubles of tests/unit/proc/stubs_proc.c.  A binary of their own: the
# doubles above replace proc.c.
PROC_SCHED := sched/proc.c sched/runq.c sched/park.c sched/timer.c sched/lock.c sched/print.c \
              sched/throw.c sched/slab.c sched/worker.c arch/$(ARCH)/syscall.c arch/$(ARCH)/ctx.c
PROC_SRC   := $(wildcard tests/unit/proc/*.c)
PROC_ASM   := arch/$(ARCH)/syscall_sigok.S arch/$(ARCH)/switch.S arch/$(ARCH)/entry.S
PROC_OBJ   := $(patsubst %.c,$(UNIT_DIR)/obj/%.o,$(PROC_SCHED) $(PROC_SRC)) \
              $(patsubst %.S,$(UNIT_DIR)/obj/%.o,$(PROC_ASM))
-include $(PROC_OBJ:.o=.d)

$(UNIT_DIR)/proc: $(PROC_OBJ)
	$(CC) -pthread -o $@ $(PROC_OBJ) -lcriterion

test-unit: $(UNIT_DIR)/unit $(UNIT_DIR)/proc
	$(UNIT_DIR)/unit
	$(UNIT_DIR)/proc
