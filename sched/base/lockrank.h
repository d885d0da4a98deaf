/*
 * lockrank.h — every runtime lock, in the order it may be taken.
 *
 * A thread that holds a lock may take only locks of a higher rank (a
 * wt_trylock may be taken out of order: it cannot wait).  The order is
 * data, as Go's lockrank is: a debug build (make DEBUG=1, WT_DEBUG_LOCKS)
 * records the locks each OS thread holds and stops with a "weft: lock
 * order" line at the first acquisition that breaks it, so a cycle is found
 * by any test that takes its two halves, not only by the unlucky run that
 * deadlocks.  Locks are held by OS threads, not tasks: a task parks while
 * it holds a bucket lock and its worker's g0 releases it (wt_park_commit).
 * Every build counts the locks a context holds (lock.h: wt_locks_held),
 * which holds program signal handlers back while any is held.
 *
 * The table, outermost first.  The nestings that exist (seen by a debug
 * build that logged every pair over the whole test suite) are:
 *   START -> ALLTASKS, SLAB, ...   starting the runtime creates main's task
 *   TLS_SYNC -> ALLTASKS           a dlopen's static TLS reaches every task
 *   TIMELINE -> SYMBOL             the trace writer names start functions
 *   PARK -> TIMERS                 a waiter adds its deadline under its bucket
 *   any -> SLAB                    slabs allocate under their callers' locks
 *   STACK_PACK -> STACK            a new pack claims an arena slot
 *   URING_INIT -> NETPOLL_INIT     the ring joins the epoll set as it is made
 *   URING_SQ -> URING_CQ           a full completion queue is drained to submit
 *   URING_CQ -> PARK, SCHED        a completion unparks its task
 *   SETXID, SYMBOL, TIMELINE, RTQ -> PRIVFD
 *                                  a file of weft's read in its own table
 * Every other lock is taken alone: notably a waker readies tasks (SCHED)
 * after it drops the bucket, and timer callbacks run without TIMERS.
 * Ranks between locks that never nest only fix an order for new code.
 *   START         core/start.c: start_lock
 *   SETXID        process/setxid.c: one change of ids at a time
 *   PTRACE        process/tracer.c: one ptrace request sent to another worker at a
 *                 time, and its table of tracers
 *   TLS_SYNC      stack/tls_static.c: sync_lock
 *   TIMELINE      observe/timeline_write.c: one writer of the trace file at a time
 *   SYMBOL        observe/symbol.c: the symbol tables
 *   URING_INIT    io/uring.c: creating the io_uring instance
 *   NETPOLL_INIT  io/netpoll.c: creating the epoll instance
 *   STACK_INIT    stack/stack.c: reserving the arena
 *   URING_SQ      io/uring.c: the submission queue
 *   URING_CQ      io/uring.c: draining the completion queue
 *   ALLTASKS      wt_sched.alllock: the list of all tasks
 *   PARK          core/park.c: the parking lot's buckets (wt_spin_t, its only
 *                 users); two buckets are never held at once
 *   TIMERS        core/timer.c: the deadline heap
 *   SCHED         wt_sched.lock: global run queue, idle procs and workers
 *   RTQ           core/rtq.c: the real-time run queue and every task's policy
 *                 and priority; taken under SCHED (a real-time task put on
 *                 the global queue goes here), ALLTASKS (priority
 *                 inheritance finds the holder) and PARK
 *   STACK_PACK    stack/stack_pack.c: the lists of packed stacks' units
 *   STACK         stack/stack.c: the arena's slot hints
 *   UNJOINED      core/unjoined.c: exited tasks by pthread_t
 *   PSHARED       process/pshared.c: the blocks of owner ids beyond the pid's
 *   SHMAP         process/shmap.c: the table of shared ranges (its readers take
 *                 no lock); taken alone, by the program's mmap and kin
 *   SLAB          slab.c: each slab's free list
 *   RNG           stack/getrandom.c: the getrandom states of ended tasks;
 *                 taken alone
 *   PRIVFD        io/privfd.c: the helper's mailbox, one request at a time; innermost
 *                 (files are opened for callers that hold any of the above)
 */
#ifndef WEFT_LOCKRANK_H
#define WEFT_LOCKRANK_H

enum wt_lockrank {
	WT_RANK_NONE = 0,       /* not ranked: a debug build refuses it */
	WT_RANK_START,
	WT_RANK_SETXID,
	WT_RANK_PTRACE,
	WT_RANK_TLS_SYNC,
	WT_RANK_TIMELINE,
	WT_RANK_SYMBOL,
	WT_RANK_URING_INIT,
	WT_RANK_NETPOLL_INIT,
	WT_RANK_STACK_INIT,
	WT_RANK_URING_SQ,
	WT_RANK_URING_CQ,
	WT_RANK_ALLTASKS,
	WT_RANK_PARK,
	WT_RANK_TIMERS,
	WT_RANK_SCHED,
	WT_RANK_RTQ,
	WT_RANK_STACK_PACK,
	WT_RANK_STACK,
	WT_RANK_UNJOINED,
	WT_RANK_PSHARED,
	WT_RANK_SHMAP,
	WT_RANK_SLAB,
	WT_RANK_RNG,
	WT_RANK_PRIVFD,
	WT_RANK_COUNT
};

#ifdef WT_DEBUG_LOCKS
/* lockrank.c: record that the calling OS thread takes / took / dropped l. */
void wt_lockrank_acquire(const void *l, int rank, bool try);
void wt_lockrank_release(const void *l);
void wt_lockrank_fork_reset(void);         /* fork child: nothing is held */
#else
static inline void wt_lockrank_acquire(const void *l, int rank, bool try)
{
	(void)l, (void)rank, (void)try;
}
static inline void wt_lockrank_release(const void *l) { (void)l; }
static inline void wt_lockrank_fork_reset(void) {}
#endif

#endif
