#include "CLeakGraphSupport.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

// A process that forks while another thread holds one of LeakGraph's locks gives its child a lock
// that nobody will ever release: the first allocation (whole-process tracking) or tracked object
// in the child then waits forever. Every lock a child may take is therefore held by the forking
// thread across fork() (pthread_atfork's prepare handler) and released on both sides after it:
// at the moment of the fork no other thread is inside a critical section, so what the locks
// guard is consistent in the child too.
//
// The Swift side's locks (`Locked(…, heldAcrossFork: true)`) may nest in more than one order,
// so they are taken all at once or not at all, retrying: never a lock-order deadlock with a
// thread that holds one and waits for another. The C tables' locks (process_tracking.c) are
// taken after them: no code waits for anything while holding one of those.

enum { lg_fork_capacity = 64 };
// Registered without a lock: a thread registering a lock (a lazy global's first use, perhaps
// inside a snapshot that holds the registry's lock) must never wait for a fork in progress,
// which may be waiting for that very registry lock.
static lg_mutex *_Atomic lg_fork_mutexes[lg_fork_capacity];
static _Atomic int lg_fork_reserved;
// The locks one fork took, for its release handlers; one fork at a time.
static lg_mutex *lg_fork_taken[lg_fork_capacity];
static int lg_fork_taken_count;
static pthread_mutex_t lg_fork_in_progress = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t lg_fork_installed = PTHREAD_ONCE_INIT;

/// Defined by the LeakGraph module (`beforeFork`): finishes the lazy globals a child needs.
extern void lg_swift_before_fork(void) __attribute__((weak));

static void lg_fork_prepare(void) {
    // A lazy global another thread is initialising at the moment of the fork never finishes in
    // the child, and the child's first allocation (the hook asks for the leak scope) waited on it
    // forever (4 of 100 children under the thread sanitizer). Touched first, before any lock: if
    // one is being initialised, this waits until it is done.
    if (lg_swift_before_fork != NULL) lg_swift_before_fork();
    pthread_mutex_lock(&lg_fork_in_progress);
    int reserved = atomic_load_explicit(&lg_fork_reserved, memory_order_acquire);
    if (reserved > lg_fork_capacity) reserved = lg_fork_capacity;
    for (;;) {
        lg_fork_taken_count = 0;
        int complete = 1;
        for (int slot = 0; slot < reserved; slot++) {
            lg_mutex *mutex = atomic_load_explicit(&lg_fork_mutexes[slot], memory_order_acquire);
            if (mutex == NULL) continue;  // being registered this very moment: new, so not held
            if (!lg_mutex_trylock(mutex)) {
                complete = 0;
                break;
            }
            lg_fork_taken[lg_fork_taken_count++] = mutex;
        }
        if (complete) break;
        while (lg_fork_taken_count > 0) lg_mutex_unlock(lg_fork_taken[--lg_fork_taken_count]);
        sched_yield();
    }
    lg_process_fork_prepare();
    lg_support_fork_prepare();
}

static void lg_fork_release(int child) {
    lg_support_fork_release(child);
    lg_process_fork_release();
    while (lg_fork_taken_count > 0) lg_mutex_unlock(lg_fork_taken[--lg_fork_taken_count]);
    pthread_mutex_unlock(&lg_fork_in_progress);
}

static _Atomic int lg_forked_child;

int lg_is_forked_child(void) { return lg_forked_child; }

static void lg_fork_parent(void) { lg_fork_release(0); }
// No Swift here: under the thread sanitizer every access to a Swift lazy global takes its once
// lock, which another thread of the parent may have held at the fork (the child then waited for
// it forever, about one fork-stress run in twenty). What the child forgets is C state.
static void lg_fork_child(void) {
    lg_forked_child = 1;
    lg_fork_release(1);
    lg_snapshot_releases_forget_other_threads();
}

static void lg_fork_install(void) { (void)pthread_atfork(lg_fork_prepare, lg_fork_parent, lg_fork_child); }

void lg_fork_install_handlers(void) { (void)pthread_once(&lg_fork_installed, lg_fork_install); }

int lg_fork_protect(lg_mutex *mutex) {
    lg_fork_install_handlers();
    int slot = atomic_fetch_add_explicit(&lg_fork_reserved, 1, memory_order_acq_rel);
    if (slot >= lg_fork_capacity) return 0;
    atomic_store_explicit(&lg_fork_mutexes[slot], mutex, memory_order_release);
    return 1;
}
