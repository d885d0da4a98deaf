/* text.h — the code ranges of weft and of the libraries it relies on (text.c). */
#ifndef WEFT_TEXT_H
#define WEFT_TEXT_H

#include "base/base.h"

void wt_text_init(void);                   /* initial thread, at start */
bool wt_pc_in_weft(uintptr_t pc);          /* libweft's own code */
bool wt_pc_no_switch(uintptr_t pc);        /* libweft, libc, ld.so, ... : no preemption */
/* pc lies in wt_syscall6_sigok (arch/interface.h): the waits weft makes
 * holding nothing, where a program's handler may run. */
bool wt_pc_in_sigok(uintptr_t pc);

#endif
