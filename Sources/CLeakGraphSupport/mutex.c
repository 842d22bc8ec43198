#define _GNU_SOURCE 1
#include "CLeakGraphSupport.h"

// A mutex whose uncontended lock and unlock are one atomic instruction each: the registry takes
// its lock about fifty times per subscription lifecycle, and glibc's pthread_mutex_lock/unlock
// pair cost ~55 instructions of the ~44,000 a map.filter lifecycle takes (Tools/Benchmarks/
// README.md). Out of line, in this C target, so that the thread sanitizer instruments the atomics
// and sees every unlock happen before the next lock (it cannot see Synchronization.Mutex's raw
// futex calls, which is why Locked used a pthread mutex).
//
// Linux: the three-state futex mutex of Drepper's "Futexes Are Tricky" (0 unlocked, 1 locked,
// 2 locked with possible waiters), with a short spin before sleeping. Elsewhere: a pthread mutex.

// Under the thread sanitizer the lock is also announced as a mutex, so that it reports lock-order
// inversions, double locks and unlocks of unlocked mutexes as it did for the pthread mutex (its
// atomics alone only give it the ordering).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LG_TSAN_ANNOTATIONS 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define LG_TSAN_ANNOTATIONS 1
#endif

#if LG_TSAN_ANNOTATIONS
// The sanitizer runtime's mutex annotations (compiler-rt's tsan_interface.h), declared here so
// the build needs no sanitizer headers.
void __tsan_mutex_create(void *address, unsigned flags);
void __tsan_mutex_destroy(void *address, unsigned flags);
void __tsan_mutex_pre_lock(void *address, unsigned flags);
void __tsan_mutex_post_lock(void *address, unsigned flags, int recursion);
int __tsan_mutex_pre_unlock(void *address, unsigned flags);
void __tsan_mutex_post_unlock(void *address, unsigned flags);
#define LG_TSAN(call) call
#else
#define LG_TSAN(call) ((void)0)
#endif

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static void lg_futex_wait(int *address, int expected) {
    syscall(SYS_futex, address, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void lg_futex_wake_one(int *address) {
    syscall(SYS_futex, address, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void lg_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

void lg_mutex_init(lg_mutex *mutex) {
    __atomic_store_n(&mutex->state, 0, __ATOMIC_RELAXED);
    LG_TSAN(__tsan_mutex_create(mutex, 0));
}

void lg_mutex_destroy(lg_mutex *mutex) {
    LG_TSAN(__tsan_mutex_destroy(mutex, 0));
    (void)mutex;
}

__attribute__((noinline)) static void lg_mutex_lock_contended(lg_mutex *mutex) {
    // Critical sections are short: spin a while on a plain load before sleeping.
    for (int spin = 0; spin < 100; spin++) {
        lg_cpu_relax();
        if (__atomic_load_n(&mutex->state, __ATOMIC_RELAXED) == 0) {
            int expected = 0;
            if (__atomic_compare_exchange_n(
                    &mutex->state, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
                return;
            }
        }
    }
    // Mark the mutex as having waiters; whoever unlocks it then wakes one.
    int previous = __atomic_exchange_n(&mutex->state, 2, __ATOMIC_ACQUIRE);
    while (previous != 0) {
        lg_futex_wait(&mutex->state, 2);
        previous = __atomic_exchange_n(&mutex->state, 2, __ATOMIC_ACQUIRE);
    }
}

void lg_mutex_lock(lg_mutex *mutex) {
    LG_TSAN(__tsan_mutex_pre_lock(mutex, 0));
    int expected = 0;
    if (__builtin_expect(
            !__atomic_compare_exchange_n(&mutex->state, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED), 0)) {
        lg_mutex_lock_contended(mutex);
    }
    LG_TSAN(__tsan_mutex_post_lock(mutex, 0, 0));
}

int lg_mutex_trylock(lg_mutex *mutex) {
    // The sanitizer's flags (tsan_interface.h): try_lock 1 << 4, try_lock_failed 1 << 5.
    LG_TSAN(__tsan_mutex_pre_lock(mutex, 1u << 4));
    int expected = 0;
    int taken = __atomic_compare_exchange_n(&mutex->state, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    LG_TSAN(__tsan_mutex_post_lock(mutex, taken ? 1u << 4 : (1u << 4) | (1u << 5), 0));
    return taken;
}

void lg_mutex_unlock(lg_mutex *mutex) {
    LG_TSAN(__tsan_mutex_pre_unlock(mutex, 0));
    if (__builtin_expect(__atomic_exchange_n(&mutex->state, 0, __ATOMIC_RELEASE) == 2, 0)) {
        lg_futex_wake_one(&mutex->state);
    }
    LG_TSAN(__tsan_mutex_post_unlock(mutex, 0));
}

#else
#include <pthread.h>
#include <stdlib.h>

void lg_mutex_init(lg_mutex *mutex) {
    pthread_mutex_t *inner = malloc(sizeof(pthread_mutex_t));
    if (inner == NULL) abort();
    pthread_mutex_init(inner, NULL);
    mutex->platform = inner;
}

void lg_mutex_destroy(lg_mutex *mutex) {
    pthread_mutex_destroy((pthread_mutex_t *)mutex->platform);
    free(mutex->platform);
    mutex->platform = NULL;
}

void lg_mutex_lock(lg_mutex *mutex) { pthread_mutex_lock((pthread_mutex_t *)mutex->platform); }

void lg_mutex_unlock(lg_mutex *mutex) { pthread_mutex_unlock((pthread_mutex_t *)mutex->platform); }

int lg_mutex_trylock(lg_mutex *mutex) { return pthread_mutex_trylock((pthread_mutex_t *)mutex->platform) == 0; }
#endif
