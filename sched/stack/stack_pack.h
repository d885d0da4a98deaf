/*
 * stack_pack.h — small fixed stacks packed in arena slots (stack_pack.c),
 * and the arena calls stack.c gives that file.
 */
#ifndef WEFT_STACK_PACK_H
#define WEFT_STACK_PACK_H

#include "core/runtime.h"

#define WT_SLOT_SIZE (64ul << 20) /* an arena slot (stack.c) */
#define WT_PACK_TAG 1ul          /* low bit of a slot's owner word: a pack, not a task */
#define WT_PACK_MAX (256ul << 10) /* largest stack packed */

/* stack.c, for packs: a free slot owned by `owner` (-1: none), its base,
 * guard pages (markers or PROT_NONE), an ascending sort. */
int wt_stack_slot_claim(uintptr_t owner);
char *wt_stack_slot_base(int s);
void wt_stack_guard(char *p, size_t len);
void wt_stack_remapped(char *p, size_t len); /* mapped afresh: in or out of a core as its slot */
void wt_sort_ints(int *v, int n);

/* stack_pack.c.  tag: the pack's slot owner word. */
int wt_pack_alloc(struct wt_task *t, size_t size, size_t glen); /* -ENOSPC: not packed */
void wt_pack_free(struct wt_task *t, uintptr_t tag, int ended);
struct wt_task *wt_pack_owner(uintptr_t tag, uintptr_t addr);
int wt_pack_ended(uintptr_t tag, uintptr_t addr);
void wt_pack_touched(uintptr_t tag, uintptr_t lo, uintptr_t hi);
void wt_pack_scavenge(int64_t now);
void wt_pack_fork_reset(void);

#endif
