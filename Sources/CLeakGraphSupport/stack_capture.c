#define _GNU_SOURCE 1
#include "CLeakGraphSupport.h"
#include "frame_rules.h"
#include "keyed_stacks.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

// Stack capture: libunwind's `unw_backtrace`, loaded privately, or glibc's `backtrace` without it;
// on x86-64 Linux, a walk of learned frame rules in front of both.
//
// Why learned rules: `unw_backtrace` costs ~125 instructions a frame (its per-thread cache
// lookup and checks), 4,000 for the 32 frames a tracked allocation records by default — more than
// the rest of a tracked allocation. Optimised Swift on Linux keeps no frame pointers, so the rbp
// chain alone cannot be trusted. But how to find a frame's caller depends only on where the frame
// is executing: at a given return address, a function's canonical frame address (CFA, the stack
// pointer before the call that made the frame) is either its frame pointer + 16 or its stack
// pointer + a constant, and the caller's rbp is either untouched or saved at a constant offset
// from the CFA. Those three facts are learned once per return address from libunwind's own full
// unwind (`unw_step`, which reads the DWARF call-frame information) and kept in a table; a stack
// whose every return address is known is then walked with a table lookup and two loads a frame.
// Any unknown return address sends the whole capture to libunwind, which also teaches the table.
// And as most allocations of a thread share their outer frames with its previous one (the test
// runner, the test, the function that loops), a walk that reaches a frame of the thread's last
// walk in the same state reuses the rest after checking the words each step would read.
// Every load of the walk is checked against the thread's stack bounds, so a wrong rule (code
// unloaded and other code mapped at the same address, a damaged cache file) can give wrong
// frames but never a fault; a frame it reaches is handed to libunwind (which reads memory
// unchecked) only with its stack pointer in the stack and its pc in a loaded image.
// A frame without a rule is learned alone, one libunwind step from its own registers, and the
// rules are kept across runs per image build id (frame_rule_cache.c).
// Where libunwind's step has no constant rule (signal frames, realigned frames) the return
// address is marked so, and captures through it are libunwind's alone.
//
// Measured (`leakgraph-bench --case stack-capture-32`: 32 frames, 40 deep, instructions per
// capture under cachegrind): unw_backtrace 3,055; the learned rules and the last walk 872.

typedef int (*unw_backtrace_fn)(void **buffer, int size);

static unw_backtrace_fn lg_unw_backtrace = NULL;
static int lg_kind = 0;
static pthread_once_t lg_once = PTHREAD_ONCE_INIT;
// Set once lg_load_unwinder has run: the hot path tests it instead of calling pthread_once.
static _Atomic int lg_loaded = 0;

#if defined(__x86_64__) && defined(__linux__)
#define LG_LEARNED_RULES 1
#include <emmintrin.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older C libraries' headers lack the name
#endif
#include <ucontext.h>

// libunwind 1.x's x86-64 ABI (libunwind-x86_64.h, libunwind-common.h): an unw_cursor_t is 127
// words, the context is a ucontext_t, register numbers below, and unw_save_loc_t starts with its
// type (an enum) followed by the address, 8-byte aligned.
enum { lg_unw_rbp = 6, lg_unw_rsp = 7, lg_unw_rip = 16, lg_unw_slt_memory = 1 };
typedef struct {
    uint64_t words[160];
} lg_unw_cursor;
typedef struct {
    int type;
    uint64_t address;
    char extra[16];
} lg_unw_save_loc;

typedef int (*unw_getcontext_fn)(ucontext_t *);
typedef int (*unw_init_local_fn)(lg_unw_cursor *, ucontext_t *);
typedef int (*unw_step_fn)(lg_unw_cursor *);
typedef int (*unw_get_reg_fn)(lg_unw_cursor *, int, uint64_t *);
typedef int (*unw_get_save_loc_fn)(lg_unw_cursor *, int, lg_unw_save_loc *);

static unw_getcontext_fn lg_unw_getcontext = NULL;
static unw_init_local_fn lg_unw_init_local = NULL;
static unw_step_fn lg_unw_step = NULL;
static unw_get_reg_fn lg_unw_get_reg = NULL;
static unw_get_save_loc_fn lg_unw_get_save_loc = NULL;
static int lg_learns_rules = 0;
#endif

// How stacks were captured, for benchmarks and tests (relaxed counters, off the rules' path).
static _Atomic uint64_t lg_frames_learned_alone = 0;
static _Atomic uint64_t lg_whole_unwinds_learning = 0;
static _Atomic uint64_t lg_unwinder_captures = 0;
// This thread's captures libunwind (or glibc) walked whole, learning or not, and
// lg_capture_stack_with_unwinder left out: for tests, which run in parallel with others that use
// the unwinder on purpose.
static __thread uint64_t lg_unwinder_captures_here = 0;

void lg_stack_capture_statistics(uint64_t *framesLearnedAlone, uint64_t *wholeUnwindsLearning,
                                 uint64_t *unwinderCaptures) {
    *framesLearnedAlone = atomic_load_explicit(&lg_frames_learned_alone, memory_order_relaxed);
    *wholeUnwindsLearning = atomic_load_explicit(&lg_whole_unwinds_learning, memory_order_relaxed);
    *unwinderCaptures = atomic_load_explicit(&lg_unwinder_captures, memory_order_relaxed);
}

static void lg_load_unwinder(void) {
    // RTLD_LOCAL keeps libunwind's exported _Unwind_* and weak backtrace out of the global
    // namespace: the host's C++ exceptions and Swift's crash backtracer keep libgcc's unwinder.
    const char *names[] = {"libunwind.so.8", "libunwind.so", NULL};
    for (int i = 0; names[i] != NULL; i++) {
        void *handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) continue;
        void *symbol = dlsym(handle, "unw_backtrace");
        if (symbol != NULL) {
            lg_unw_backtrace = (unw_backtrace_fn)symbol;
            lg_kind = 1;
#if LG_LEARNED_RULES
            lg_unw_getcontext = (unw_getcontext_fn)dlsym(handle, "_Ux86_64_getcontext");
            lg_unw_init_local = (unw_init_local_fn)dlsym(handle, "_ULx86_64_init_local");
            lg_unw_step = (unw_step_fn)dlsym(handle, "_ULx86_64_step");
            lg_unw_get_reg = (unw_get_reg_fn)dlsym(handle, "_ULx86_64_get_reg");
            lg_unw_get_save_loc = (unw_get_save_loc_fn)dlsym(handle, "_ULx86_64_get_save_loc");
            lg_learns_rules = lg_unw_getcontext != NULL && lg_unw_init_local != NULL && lg_unw_step != NULL
                && lg_unw_get_reg != NULL && lg_unw_get_save_loc != NULL;
#endif
            atomic_store_explicit(&lg_loaded, 1, memory_order_release);
            return;
        }
    }
    lg_kind = 2;
    atomic_store_explicit(&lg_loaded, 1, memory_order_release);
}

int lg_unwinder_kind(void) {
    pthread_once(&lg_once, lg_load_unwinder);
    return lg_kind;
}

// The unwinder's own answer, inlined into its caller: `frames[0]` is the return address into that
// caller, `frames[1]` the one into the caller's caller, and so on; `first` is the first to keep.
__attribute__((always_inline)) static inline int lg_capture_with_unwinder(
    uintptr_t *buffer, int capacity, int first) {
    enum { maxFrames = 256 };
    void *frames[maxFrames];
    int wanted = capacity + first;
    if (wanted > maxFrames) wanted = maxFrames;
    int count = 0;
    atomic_fetch_add_explicit(&lg_unwinder_captures, 1, memory_order_relaxed);
    lg_unwinder_captures_here++;
    if (lg_kind == 1) {
        count = lg_unw_backtrace(frames, wanted);
    } else if (lg_kind == 2) {
        count = backtrace(frames, wanted);
    }
    int written = 0;
    for (int i = first; i < count && written < capacity; i++) {
        buffer[written++] = (uintptr_t)frames[i];
    }
    return written;
}

// Keeps a call out of tail position: the frame numbering below counts the caller's own frame.
#define LG_NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

#if defined(__linux__)
// This thread's stack as pthread_getattr_np gives it (which reads /proc/self/maps for the main
// thread): 1 when known.
static int lg_system_stack_bounds(uintptr_t *low, uintptr_t *high) {
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return 0;
    void *address = NULL;
    size_t size = 0;
    int known = pthread_attr_getstack(&attributes, &address, &size) == 0 && size > 0;
    if (known) {
        *low = (uintptr_t)address;
        *high = (uintptr_t)address + size;
    }
    pthread_attr_destroy(&attributes);
    return known;
}
#endif

#if LG_LEARNED_RULES

// A rule, packed in 64 bits (0 = no rule yet):
//   bit  0     learned
//   bit  1     CFA = rbp + delta (a frame pointer: delta 16, 32 in an async resume function);
//              else CFA = rsp + delta
//   bit  2     the caller's rbp is saved at CFA + offset (else the frame left rbp untouched)
//   bits 8-31  delta; 0 for the outermost frame (a CFA not above rsp ends every walk)
//   bits 32-63 offset, signed (negative: the slot is inside the frame)
//   or lg_rule_none (bit 3 alone): libunwind's step there has no constant rule (a signal frame, a
//   realigned frame): captures through it are libunwind's alone, without learning again.
enum { lg_rule_learned = 1, lg_rule_frame_pointer = 2, lg_rule_saves_rbp = 4 };
static const uint64_t lg_rule_outermost = lg_rule_learned;
static const uint64_t lg_rule_none = 8;
// The farthest a frame pointer's frame record (the caller's rbp, then the return address) is
// from the CFA in a rule: 16 in a standard frame, 32 in an async resume function.
enum { lg_frame_record_reach = 256 };

// 262,144 slots: GRDB's test suite (2,777 tests, SQLite, Foundation) needs 73,000 rules. With
// 65,536 the probes ran full, and every capture through a return address left out went to
// libunwind again (1.27 million frames learned alone and 607,000 whole unwinds in one run: the
// tracked suite used 1.56× the untracked CPU, 1.19× with this table).
enum { lg_rule_bits = 18, lg_rule_slots = 1 << lg_rule_bits, lg_rule_probes = 16 };

typedef struct {
    _Atomic uint64_t returnAddress;
    _Atomic uint64_t rule;
} lg_rule_slot;

// Zero-filled at load, touched page by page as return addresses are learned (4 MB at most).
static lg_rule_slot lg_rules[lg_rule_slots];

static inline uint64_t lg_rule_index(uint64_t returnAddress) {
    return (returnAddress * 0x9E3779B97F4A7C15ull) >> (64 - lg_rule_bits);
}

// The slots after a return address's home slot, for when another address took it first.
__attribute__((noinline)) static uint64_t lg_rule_after_home(uint64_t returnAddress) {
    uint64_t index = lg_rule_index(returnAddress);
    for (int probe = 1; probe < lg_rule_probes; probe++) {
        lg_rule_slot *slot = &lg_rules[(index + probe) & (lg_rule_slots - 1)];
        uint64_t key = atomic_load_explicit(&slot->returnAddress, memory_order_relaxed);
        if (key == returnAddress) return atomic_load_explicit(&slot->rule, memory_order_acquire);
        if (key == 0) return 0;
    }
    return 0;
}

// Rules this process learned itself (not read from the cache): none, and the cache has nothing
// new to be written at exit.
static _Atomic uint64_t lg_rules_learned_here = 0;

// Puts `rule` in the table unless `returnAddress` has one; whether it did.
static int lg_store_rule(uint64_t returnAddress, uint64_t rule) {
    uint64_t index = lg_rule_index(returnAddress);
    for (int probe = 0; probe < lg_rule_probes; probe++) {
        lg_rule_slot *slot = &lg_rules[(index + probe) & (lg_rule_slots - 1)];
        uint64_t key = atomic_load_explicit(&slot->returnAddress, memory_order_relaxed);
        if (key == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong_explicit(
                    &slot->returnAddress, &expected, returnAddress, memory_order_relaxed, memory_order_relaxed)) {
                atomic_store_explicit(&slot->rule, rule, memory_order_release);
                return 1;
            }
            key = expected;
        }
        // Another thread learned it first: the same code gives the same rule.
        if (key == returnAddress) return 0;
    }
    // The probes are full: this return address stays with libunwind.
    return 0;
}

static void lg_learn_rule(uint64_t returnAddress, uint64_t rule) {
    if (lg_store_rule(returnAddress, rule)) atomic_fetch_add_explicit(&lg_rules_learned_here, 1, memory_order_relaxed);
}

uint64_t lg_frame_rules_learned_here(void) { return atomic_load_explicit(&lg_rules_learned_here, memory_order_relaxed); }

int lg_frame_rule_slot_count(void) { return lg_rule_slots; }

uint64_t lg_frame_rule_at(int slot, uint64_t *rule) {
    uint64_t address = atomic_load_explicit(&lg_rules[slot].returnAddress, memory_order_acquire);
    *rule = address == 0 ? 0 : atomic_load_explicit(&lg_rules[slot].rule, memory_order_acquire);
    return *rule == 0 ? 0 : address;
}

void lg_frame_rule_insert(uint64_t returnAddress, uint64_t rule) { (void)lg_store_rule(returnAddress, rule); }

void lg_frame_rules_prepare_for(uint64_t count) {
    // Inserting a rule reads its slot, then writes it: a page's first read maps the shared zero
    // page and its first write faults again to copy it, so the cache's rules (about 12,000 in a
    // big test binary, spread over all 256 pages) cost some 500 faults in every process that
    // reads them. From 1,024 rules on nearly every page is touched anyway: all of them are made
    // resident and writable in one call instead (Linux 5.14; an older kernel refuses it and the
    // faults happen as before). It never changes what a page holds, so threads learning rules
    // meanwhile are unaffected.
    static _Atomic int prepared = 0;
    if (count < 1024 || atomic_exchange_explicit(&prepared, 1, memory_order_relaxed)) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)lg_rules & ~(page - 1);
    uintptr_t end = ((uintptr_t)lg_rules + sizeof lg_rules + page - 1) & ~(page - 1);
    (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

uint64_t lg_frame_rule_lookup(uint64_t returnAddress) {
    const lg_rule_slot *home = &lg_rules[lg_rule_index(returnAddress)];
    return atomic_load_explicit(&home->returnAddress, memory_order_relaxed) == returnAddress
        ? atomic_load_explicit(&home->rule, memory_order_acquire)
        : lg_rule_after_home(returnAddress);
}

int lg_frame_rule_is_valid(uint64_t rule) {
    if (rule == lg_rule_none || rule == lg_rule_outermost) return 1;
    uint32_t delta = (uint32_t)rule >> 8;
    if (!(rule & lg_rule_learned) || (rule & 0xF8) != 0 || delta < 8 || delta % 8 != 0) return 0;
    if (rule & lg_rule_frame_pointer) {
        // What the learner makes of a frame pointer: CFA = rbp + delta, the caller's rbp at
        // CFA - delta (where rbp points), delta 16 in a standard frame.
        return delta >= 16 && delta <= lg_frame_record_reach && (rule & lg_rule_saves_rbp)
            && (int32_t)(rule >> 32) == -(int32_t)delta;
    }
    // The caller's rbp, where saved, is a word inside the frame below the return address.
    if (rule & lg_rule_saves_rbp) {
        int32_t offset = (int32_t)(rule >> 32);
        return offset <= -16 && offset % 8 == 0 && (uint32_t)(-offset) <= delta;
    }
    return (rule >> 32) == 0;
}

// The current thread's stack, [low, high): read once per thread.
static __thread uintptr_t lg_stack_low = 0;
static __thread uintptr_t lg_stack_high = 0;
static __thread int lg_stack_known = 0;  // 1 known, -1 cannot be known
static __thread int lg_stack_bounds_by_entry = 0;  // 1: the main thread's, from __libc_stack_end (for tests)

// The last walk of this thread, innermost frame first, and the state of each frame: a later walk
// that reaches a frame of it at the same return address and stack pointer takes the rest from
// here, checking only what each step would read — the return address slot, and rbp where a
// frame's rule uses it — about a dozen instructions a frame instead of a table lookup and a step.
// A step reads nothing else, so the same words give the same walk.
typedef struct {
    uintptr_t pc, sp, rbp;
    uintptr_t rbpSlot;  // where the step to the caller read the caller's rbp; 0 when it did not
    uintptr_t usesFramePointer;  // the step to the caller found the CFA from rbp
} lg_frame_state;
enum { lg_memo_capacity = 64, lg_memo_beyond = 16 };
// Frames learned one at a time in one capture before a whole unwind learns the rest.
enum { lg_learned_per_capture = 8 };
static __thread lg_frame_state lg_memo[lg_memo_capacity];
static __thread int lg_memo_count = 0;
// Set while this thread walks with its memo: a capture from a signal handler that interrupted it
// walks without the memo, which the interrupted walk is reading and rewriting.
static __thread volatile int lg_memo_busy = 0;

// Walks remembered whole, for a capture that repeats one exactly: a loop allocating at one line,
// a subscription made again and again. A walk is a function of where it starts (pc, sp, and rbp
// where a frame's rule uses it before any step has read it) and of the words its steps read —
// each return address slot, and each saved rbp it loaded — the rules of a return address never
// change once learned. So a capture that starts where a remembered walk started and finds every
// one of those words unchanged is that walk, and takes its frames: one compare per word read
// (about five instructions) instead of the memo's dozen a frame and a copy of its frames. The
// walk at that same start but reached from another caller differs in some word and walks.
// Up to lg_repeat_ways walks per thread (the same start may have several), replaced in turn.
enum { lg_repeat_ways = 8, lg_repeat_frames = 40 };
// 1,024 bytes a way: what a step read is kept as its offset from the walk's start (`sp`, the
// lowest of them: a thread's stack is far smaller than 4 GB) and the word, and the frames are the
// return addresses read (a remembered walk's frame 1 is `pc`, frame k + 2 is words[k]).
// The words read are one list, the return addresses first (so the frames copy out in one go)
// then the saved rbps, checked two at a time (lg_repeat_words_hold): a capture in a test process
// checks some sixty words, and one compare and branch each was most of a repeated capture.
// Static thread-locals are carved from every thread's stack by glibc: kept small.
typedef struct {
    uint64_t token;         // this thread's number for the walk now in the way (never reused)
    uintptr_t pc, sp, rbp;  // frame 1's
    int rbpMatters;         // a rule used frame 1's rbp before any step had read one
    int total;              // the frames asked for, from frame 1; 0 for an empty way
    int frames;             // the frames the walk found from frame 1 (fewer when the stack ended)
    int returnReads;        // frames - 1, and one more when the last step read a return address of 0
    int reads;              // returnReads and the saved rbps read after them, rounded up to even
    uint32_t offsets[2 * lg_repeat_frames];
    // 16-byte aligned: words 2i and 2i + 1 are compared as one vector.
    uintptr_t words[2 * lg_repeat_frames] __attribute__((aligned(16)));
} lg_repeat_walk;
static __thread lg_repeat_walk lg_repeats[lg_repeat_ways];
static __thread int lg_repeat_next = 0;
static __thread int lg_repeat_last = 0;  // the way that answered the thread's latest repeat
// This thread's latest walks that were not repeats (a hash of each one's start and first frames):
// a walk is remembered only when it is among them, as remembering costs about as much as the
// walk, and a walk that is new (recursion, a first call) seldom comes again. As many as the ways:
// a round of more walks than the ways could hold is not remembered at all (it would only evict).
enum { lg_recent_walks = lg_repeat_ways };
static __thread uintptr_t lg_recent_walk[lg_recent_walks];
static __thread int lg_recent_next = 0;
// Captures this thread answered from a remembered walk (for tests; a plain thread-local add).
static __thread uint64_t lg_repeat_hits = 0;
// The last token given to a remembered walk. A walk's frames never change while its token
// stands, so a caller can key what it made of those frames (an interned stack) by the token
// (handed out by each capture, not kept in a thread-local a signal handler's capture could
// overwrite in between).
static __thread uint64_t lg_repeat_tokens = 0;

#if defined(__GLIBC__)
extern void *__libc_stack_end;  // the loader's: the main thread's stack at the program's entry

// The main thread's bounds without pthread_getattr_np, which reads /proc/self/maps for that
// thread (660,000 instructions, a twentieth of tracking's cost in an XCTest process, whose tests
// run on the main thread). The top: the end of the page holding __libc_stack_end, which is
// glibc's own top for the main thread (the stack mapping ends there or above). What keeps a walk
// safe is that it only climbs, from the current stack pointer up to that top, through the
// thread's own mapped stack. The bottom only decides which first frames are walked at all: the
// stack limit's half below the top (at most 64 MB; deeper frames are left to the unwinder), never
// as far as another mapping (the kernel keeps at least 128 MB free below the main stack, so no
// thread stack, alternate signal stack or heap lies inside). Not in a forked child: a fork from
// another thread leaves a child whose one thread has the process's id but a thread's stack.
// Returns 0 on any other thread, with no limit, or in a child (pthread_getattr_np then decides).
static int lg_learn_main_thread_stack_bounds(void) {
    uintptr_t end = (uintptr_t)__libc_stack_end;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (end == 0 || here >= end || lg_is_forked_child() || syscall(SYS_gettid) != getpid()) return 0;
    struct rlimit limit;
    if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (page == 0 || (page & (page - 1)) != 0) return 0;
    uintptr_t high = (end | (page - 1)) + 1;
    uintptr_t reach = (uintptr_t)limit.rlim_cur / 2;
    if (reach > ((uintptr_t)64 << 20)) reach = (uintptr_t)64 << 20;
    if (high < reach || here < high - reach) return 0;
    lg_stack_low = high - reach;
    lg_stack_high = high;
    lg_stack_known = 1;
    lg_stack_bounds_by_entry = 1;
    return 1;
}
#endif

__attribute__((noinline)) static int lg_learn_stack_bounds(void) {
    lg_stack_known = -1;
#if defined(__GLIBC__)
    if (lg_learn_main_thread_stack_bounds()) return 1;
#endif
    uintptr_t low = 0, high = 0;
    if (!lg_system_stack_bounds(&low, &high)) return 0;
    lg_stack_low = low;
    lg_stack_high = high;
    lg_stack_known = 1;
    return 1;
}

// Whether this thread's stack bounds are known: a test of a thread-local on every capture but
// the thread's first.
static inline int lg_know_stack_bounds(void) {
    return __builtin_expect(lg_stack_known > 0, 1) || (lg_stack_known == 0 && lg_learn_stack_bounds());
}

// Whether the frame record at `rbp` (the caller's rbp, then a return address) is a realigned
// frame's (GCC's stack realignment: `lea 0x8(%rsp),%r10; and $-32,%rsp; pushq -0x8(%r10);
// push %rbp; mov %rsp,%rbp`), whose CFA is an expression with as much padding below it as the
// alignment took that time: its record holds a copy of the return address at the CFA. An async
// resume function's record holds the caller's rbp and the word reserved above it. Both words are
// this frame's, on this thread's stack; a record outside its known bounds counts as realigned.
__attribute__((no_sanitize("address", "thread"))) static int lg_is_realigned_frame_record(uint64_t rbp,
                                                                                          uint64_t cfa) {
    if (lg_stack_known <= 0 || rbp < lg_stack_low || cfa > lg_stack_high || rbp + 16 > cfa) return 1;
    return *(const uint64_t *)(rbp + 8) == *(const uint64_t *)(cfa - 8);
}

// Learns the rule of the frame at return address `ip` (stack pointer `sp`, frame pointer `rbp`)
// from libunwind's step out of it, which `cursor` has just made to the caller; `before` is where
// rbp was before the step (NULL when libunwind could not say). `previousUnusual`: the frame was
// reached through a signal frame, so its ip is exact (not a return address) and gets no rule.
// Returns whether the caller is reached in an unusual way (its pc not read from [CFA - 8]).
static int lg_learn_step(lg_unw_cursor *cursor, uint64_t ip, uint64_t sp, uint64_t rbp,
                         const lg_unw_save_loc *before, int previousUnusual) {
    uint64_t cfa = 0;
    lg_unw_get_reg(cursor, lg_unw_rsp, &cfa);
    lg_unw_save_loc ripLocation;
    memset(&ripLocation, 0, sizeof ripLocation);
    int ripInMemory = lg_unw_get_save_loc(cursor, lg_unw_rip, &ripLocation) == 0 && ripLocation.type == lg_unw_slt_memory;
    lg_unw_save_loc after;
    memset(&after, 0, sizeof after);
    int afterKnown = lg_unw_get_save_loc(cursor, lg_unw_rbp, &after) == 0;
    // A frame without an unwind entry (Foundation's `NSLock.init()`, Dispatch's allocating
    // initialisers: no FDE covers them) is stepped by libunwind's guess, the frame-pointer chain:
    // the caller's rbp at [rbp], its pc at [rbp + 8]. libunwind 1.6 then gives the caller a stack
    // pointer of the frame's own + 16 (right only when the frame's sp is its rbp: NSLock.init
    // pushes two registers more, and was marked as having no rule, so that every capture through
    // it went to libunwind whole — 264,000 in GRDB's suite). The CFA is where the return address
    // was read + 8, rbp + 16, as a frame pointer's rule has it.
    if (ripInMemory && afterKnown && after.type == lg_unw_slt_memory && after.address == rbp
        && ripLocation.address == rbp + 8 && rbp >= sp && !previousUnusual)
        cfa = rbp + 16;
    // Rules only for steps that read the caller's pc from [CFA - 8], as a call leaves it: not
    // a signal frame (its caller is in the saved context; libunwind's is_signal_frame
    // describes the frame stepped from), and not the frame a signal interrupted. The same
    // test libunwind's own fast trace uses for a standard frame.
    int afterUnusual = !ripInMemory || ripLocation.address != cfa - 8;
    if (afterUnusual || previousUnusual) {
        lg_learn_rule(ip, lg_rule_none);
        return afterUnusual;
    }
    if (before == NULL || !afterKnown) {
        lg_learn_rule(ip, lg_rule_none);
        return afterUnusual;
    }
    uint64_t rule;
    // The caller's rbp is saved by this frame when its location changed to a slot inside it.
    int savesRBP = after.type == lg_unw_slt_memory
        && (before->type != lg_unw_slt_memory || before->address != after.address);
    // No constant rule: the caller's rbp saved outside the frame, or no frame at all.
    if ((savesRBP && (after.address < sp || after.address + 16 > cfa)) || cfa <= sp) {
        lg_learn_rule(ip, lg_rule_none);
        return afterUnusual;
    }
    if (savesRBP && after.address == rbp) {
        // rbp is this frame's frame pointer (the caller's rbp saved where it points): the CFA is
        // rbp + 16 in a standard frame, rbp + 32 in an async function's resume partial function,
        // whose prologue reserves 16 bytes above its frame record (`sub $0x10,%rsp; push %rbp;
        // push %r14; lea 0x8(%rsp),%rbp`; GRDB's suite allocated 240,000 times in one, all sent to
        // libunwind whole while only + 16 was a rule). Not a realigned frame seen with padding,
        // whose CFA is no constant above rbp. (One seen without padding has a CFA of rbp + 16 and
        // gets a frame pointer's rule, wrong at the next call that pads: as before.)
        uint64_t delta = cfa - rbp;
        if (delta < 16 || delta > lg_frame_record_reach || delta % 8 != 0
            || (delta != 16 && lg_is_realigned_frame_record(rbp, cfa))) {
            lg_learn_rule(ip, lg_rule_none);
            return afterUnusual;
        }
        rule = lg_rule_learned | lg_rule_frame_pointer | (delta << 8) | lg_rule_saves_rbp
            | ((uint64_t)(uint32_t)(int32_t)(-(int64_t)delta) << 32);
    } else {
        uint64_t delta = cfa - sp;
        if (delta < 8 || delta >= (1u << 24)) {
            lg_learn_rule(ip, lg_rule_none);
            return afterUnusual;
        }
        rule = lg_rule_learned | (delta << 8);
        if (savesRBP) {
            int64_t offset = (int64_t)after.address - (int64_t)cfa;
            rule |= lg_rule_saves_rbp | ((uint64_t)(uint32_t)(int32_t)offset << 32);
        }
    }
    lg_learn_rule(ip, rule);
    return afterUnusual;
}

// libunwind's full unwind from its own context, learning the rule of each return address on the
// way. Its cursors 0 and 1 are this function and lg_capture_stack; cursor 2's IP is R1.
__attribute__((noinline)) static int lg_capture_and_learn(uintptr_t *buffer, int capacity, int skip) {
    atomic_fetch_add_explicit(&lg_whole_unwinds_learning, 1, memory_order_relaxed);
    lg_unwinder_captures_here++;
    ucontext_t context;
    lg_unw_cursor cursor;
    if (lg_unw_getcontext(&context) != 0 || lg_unw_init_local(&cursor, &context) < 0) {
        // frames[0] is in this function, frames[1] in lg_capture_stack, frames[2] is R1.
        int written = lg_capture_with_unwinder(buffer, capacity, 2 + skip);
        LG_NO_TAIL_CALL();
        return written;
    }
    for (int i = 0; i < 2; i++) {
        if (lg_unw_step(&cursor) <= 0) return 0;
    }
    int written = 0;
    // Whether the last step did not read the caller's pc from [CFA - 8] (a signal frame): the
    // frame after it was interrupted (its ip is exact, not a return address).
    int afterUnusual = 0;
    for (int index = 1; written < capacity; index++) {
        uint64_t ip = 0, sp = 0, rbp = 0;
        lg_unw_get_reg(&cursor, lg_unw_rip, &ip);
        lg_unw_get_reg(&cursor, lg_unw_rsp, &sp);
        lg_unw_get_reg(&cursor, lg_unw_rbp, &rbp);
        if (ip == 0) break;
        if (index > skip) buffer[written++] = ip;
        if (written == capacity) break;
        lg_unw_save_loc before;
        memset(&before, 0, sizeof before);
        int hadLocation = lg_unw_get_save_loc(&cursor, lg_unw_rbp, &before) == 0;
        int stepped = lg_unw_step(&cursor);
        if (stepped == 0) {
            lg_learn_rule(ip, afterUnusual ? lg_rule_none : lg_rule_outermost);
            break;
        }
        if (stepped < 0) {
            lg_learn_rule(ip, lg_rule_none);
            break;
        }
        int previousUnusual = afterUnusual;
        afterUnusual = lg_learn_step(&cursor, ip, sp, rbp, hadLocation ? &before : NULL, previousUnusual);
    }
    return written;
}

// Learns the rule of one frame the walk reached and has no rule for: libunwind steps out of it
// alone, from a context made of the frame's own registers. Its pc is a return address (every
// frame before it was walked by rules, so reached by a call); unw_init_local treats the first ip
// as one too and looks it up one byte back, inside the call instruction (glibc's signal trampoline
// has an unwind entry that starts one byte before it for this reason). libunwind reads memory
// without checks: the frame is only handed to it when its stack pointer is inside this thread's
// stack and its pc inside the code of an image loaded when the rules were read (a rule that does
// not fit — code unloaded, a damaged cache file — can give a frame that is neither). Returns
// whether the frame has a rule now (the table may be full).
__attribute__((noinline)) static int lg_learn_frame(const lg_frame_state *frame) {
    // The images known when the rules were read, checked without the loader's lock (dladdr takes
    // it, and a fork while a thread held it would leave it held in the child): code loaded later
    // is learned by a whole unwind, as before the first capture read them.
    if (frame->sp < lg_stack_low || frame->sp + 8 > lg_stack_high || !lg_frame_rule_code_is_known(frame->pc))
        return 0;
    ucontext_t context;
    lg_unw_cursor cursor;
    if (lg_unw_getcontext(&context) != 0) return 0;
    context.uc_mcontext.gregs[REG_RIP] = (greg_t)frame->pc;
    context.uc_mcontext.gregs[REG_RSP] = (greg_t)frame->sp;
    context.uc_mcontext.gregs[REG_RBP] = (greg_t)frame->rbp;
    if (lg_unw_init_local(&cursor, &context) < 0) return 0;
    atomic_fetch_add_explicit(&lg_frames_learned_alone, 1, memory_order_relaxed);
    lg_unw_save_loc before;
    memset(&before, 0, sizeof before);
    int hadLocation = lg_unw_get_save_loc(&cursor, lg_unw_rbp, &before) == 0;
    int stepped = lg_unw_step(&cursor);
    if (stepped <= 0) {
        lg_learn_rule(frame->pc, stepped == 0 ? lg_rule_outermost : lg_rule_none);
    } else {
        lg_learn_step(&cursor, frame->pc, frame->sp, frame->rbp, hadLocation ? &before : NULL, 0);
    }
    return lg_frame_rule_lookup(frame->pc) != 0;
}

// One step of the walk from `frame` to its caller: 1 stepped, 0 the stack ends here (or a rule
// does not fit this stack), -1 no rule for the frame's return address yet, -2 none can be had.
// Fills in the frame's rbpSlot and usesFramePointer and the caller's pc, sp and rbp.
__attribute__((always_inline, no_sanitize("address", "thread"))) static inline int lg_step(
    lg_frame_state *frame, lg_frame_state *caller, uintptr_t high) {
    uintptr_t here = frame->pc;
    const lg_rule_slot *home = &lg_rules[lg_rule_index(here)];
    uint64_t rule = atomic_load_explicit(&home->returnAddress, memory_order_relaxed) == here
        ? atomic_load_explicit(&home->rule, memory_order_acquire)
        : lg_rule_after_home(here);
    if (__builtin_expect(!(rule & lg_rule_learned), 0)) return rule == 0 ? -1 : -2;
    uintptr_t usesFramePointer = (rule & lg_rule_frame_pointer) != 0;
    uintptr_t sp = frame->sp;
    uintptr_t cfa = (usesFramePointer ? frame->rbp : sp) + (uintptr_t)((uint32_t)rule >> 8);
    frame->usesFramePointer = usesFramePointer;
    frame->rbpSlot = 0;
    // A frame holds at least its return address, so cfa - 8 >= sp >= the stack's low end.
    if (cfa < sp + 8 || cfa > high) return 0;
    uintptr_t rbp = frame->rbp;
    if (rule & lg_rule_saves_rbp) {
        // The offset is negative (the slot is inside the frame): the slot is below cfa <= high,
        // and at or above sp when the rule fits.
        uintptr_t slot = cfa + (uintptr_t)(intptr_t)(int32_t)(rule >> 32);
        if (slot < sp) return 0;
        rbp = *(const uintptr_t *)slot;
        frame->rbpSlot = slot;
    }
    caller->pc = *(const uintptr_t *)(cfa - 8);
    caller->sp = cfa;
    caller->rbp = rbp;
    caller->rbpSlot = 0;
    caller->usesFramePointer = 0;
    return caller->pc != 0;
}

// Writes the return addresses of frames [skip, total) of the walk from `state` (frame 0, R1)
// into `buffer`; -1 or -2 as lg_step when a frame has no rule (`unknown` is then that frame).
__attribute__((always_inline, no_sanitize("address", "thread"))) static inline int lg_walk(
    lg_frame_state state, uintptr_t high, int total, uintptr_t *buffer, int skip, lg_frame_state *unknown) {
    int written = 0;
    for (int index = 0; index < total; index++) {
        if (index >= skip) buffer[written++] = state.pc;
        if (index + 1 == total) break;
        lg_frame_state caller;
        int stepped = lg_step(&state, &caller, high);
        if (stepped < 0) *unknown = state;
        if (stepped <= 0) return stepped < 0 ? stepped : written;
        state = caller;
    }
    return written;
}

// Whether each of the `count` words at `base + offsets[i]` still holds `words[i]` (`count` even,
// `words` 16-byte aligned). Two words a step, differences gathered and tested once at the end:
// every address was inside this thread's stack above `base` when the walk was remembered and
// `base` is where this thread's stack pointer is again, so reading past a first difference is as
// safe as reading up to it (SSE2, which every x86-64 has: two loads, one exclusive or and one or
// for two words, where a compare and a branch each took seven instructions).
__attribute__((always_inline, no_sanitize("address", "thread"))) static inline int lg_repeat_words_hold(
    uintptr_t base, const uint32_t *offsets, const uintptr_t *words, int count) {
    __m128i differences = _mm_setzero_si128();
    for (int read = 0; read < count; read += 2) {
        __m128i low = _mm_loadl_epi64((const __m128i *)(base + offsets[read]));
        __m128i both = _mm_castpd_si128(
            _mm_loadh_pd(_mm_castsi128_pd(low), (const double *)(base + offsets[read + 1])));
        differences = _mm_or_si128(differences, _mm_xor_si128(both, _mm_load_si128((const __m128i *)&words[read])));
    }
    return _mm_movemask_epi8(_mm_cmpeq_epi8(differences, _mm_setzero_si128())) == 0xFFFF;
}

// The frames of the walk from `state` (frame 0) when a remembered walk fits: one from its caller,
// frame 1 (`caller`), asked for `total - 1` frames, whose every word read still holds what it
// read. Frames [skip, total) go to `buffer`, their count returned; -1 when none fits. Walks are
// kept from frame 1 so that allocations at different lines of one function share one (frame 0
// is stepped each time). Every address read was in this thread's stack at or above
// `caller.sp` when remembered (the walk checks its bounds), and `caller.sp` is the same. `token`
// gets the fitting walk's token.
__attribute__((always_inline, no_sanitize("address", "thread"))) static inline int lg_repeat_find(
    const lg_frame_state *state, const lg_frame_state *caller, int total, uintptr_t *buffer, int skip,
    uint64_t *token) {
    // From the way that answered last: a loop asks for the same walk again and again.
    for (int tried = 0, way = lg_repeat_last; tried < lg_repeat_ways; tried++, way = (way + 1) & (lg_repeat_ways - 1)) {
        const lg_repeat_walk *walk = &lg_repeats[way];
        if (walk->total != total - 1 || walk->pc != caller->pc || walk->sp != caller->sp) continue;
        if (walk->rbpMatters && walk->rbp != caller->rbp) continue;
        if (!lg_repeat_words_hold(walk->sp, walk->offsets, walk->words, walk->reads)) continue;
        // Frames [skip, total) of the walk from frame 0: frame 0, frame 1, then the return addresses.
        int written = 0;
        if (skip == 0) buffer[written++] = state->pc;
        if (skip <= 1) buffer[written++] = walk->pc;
        int from = skip > 2 ? skip - 2 : 0;
        if (walk->frames - 1 > from) {
            memcpy(&buffer[written], &walk->words[from], (size_t)(walk->frames - 1 - from) * sizeof(uintptr_t));
            written += walk->frames - 1 - from;
        }
        lg_repeat_hits++;
        lg_repeat_last = way;
        *token = walk->token;
        return written;
    }
    return -1;
}

// Whether the walk just made (lg_memo[0 ..< frames]), from frame 1 at `caller`, should be
// remembered: it is one of the thread's latest walks. Either way it becomes one of them.
__attribute__((always_inline)) static inline int lg_repeat_worth_remembering(const lg_frame_state *caller, int frames) {
    uintptr_t key = caller->pc ^ (caller->sp * 0x9E3779B97F4A7C15ull);
    for (int index = 2; index < frames && index < 6; index++) key = (key ^ lg_memo[index].pc) * 0xBF58476D1CE4E5B9ull;
    key |= 1;  // never 0, an empty entry
    for (int index = 0; index < lg_recent_walks; index++) {
        if (lg_recent_walk[index] == key) return 1;
    }
    lg_recent_walk[lg_recent_next] = key;
    lg_recent_next = (lg_recent_next + 1) & (lg_recent_walks - 1);
    return 0;
}

// Remembers the walk just made (its frames are lg_memo[0 ..< frames]) from frame 1, `caller`
// (the step from frame 0, made before the walk): the words its steps read, as they are now (no
// other code writes these frames while their functions run). `frames < total`: the last frame's
// step ended the walk, and it is made again to know its reads. A saved rbp a step read is kept
// only where a later frame's rule uses rbp before another step reloads it (optimised Swift keeps
// no frame pointers: most of those words decide nothing), which one pass from the outermost
// frame inwards tells.
__attribute__((noinline, no_sanitize("address", "thread"))) static void lg_repeat_remember(
    const lg_frame_state *caller, int total, int frames, uintptr_t high) {
    if (total - 1 > lg_repeat_frames || frames < 2 || frames > total) return;
    const lg_frame_state *memo = lg_memo;
    if (memo[1].pc != caller->pc || memo[1].sp != caller->sp) return;
    lg_repeat_walk *walk = &lg_repeats[lg_repeat_next];
    walk->total = 0;  // empty until complete
    walk->token = ++lg_repeat_tokens;
    uintptr_t base = caller->sp;
    int rbpNeeded = 0;  // a frame further out uses the rbp that the steps so far leave
    int returnReads = frames - 2;
    int rbpReads = 0;
    if (frames < total) {
        // The last frame's step ended the walk: whether it read a return address (of 0).
        lg_frame_state last = memo[frames - 1];
        lg_frame_state end = {0, 0, 0, 0, 0};
        if (lg_step(&last, &end, high) != 0) return;
        if (end.sp != 0) {
            walk->offsets[returnReads] = (uint32_t)(end.sp - 8 - base);
            walk->words[returnReads] = *(const uintptr_t *)(end.sp - 8);
            returnReads++;
        }
        rbpNeeded = last.usesFramePointer != 0;
    }
    for (int index = frames - 2; index >= 1; index--) {
        const lg_frame_state *frame = &memo[index];
        uintptr_t returnSlot = frame[1].sp - 8;
        walk->offsets[index - 1] = (uint32_t)(returnSlot - base);
        walk->words[index - 1] = *(const uintptr_t *)returnSlot;
        if (frame->rbpSlot != 0) {
            if (rbpNeeded) {
                // After the return addresses (all `returnReads` of them are known already).
                walk->offsets[returnReads + rbpReads] = (uint32_t)(frame->rbpSlot - base);
                walk->words[returnReads + rbpReads] = *(const uintptr_t *)frame->rbpSlot;
                rbpReads++;
            }
            rbpNeeded = 0;
        }
        rbpNeeded |= frame->usesFramePointer != 0;
    }
    walk->pc = caller->pc;
    walk->sp = caller->sp;
    walk->rbp = caller->rbp;
    walk->rbpMatters = rbpNeeded;
    walk->frames = frames - 1;
    walk->returnReads = returnReads;
    int reads = returnReads + rbpReads;
    if (reads & 1) {
        // Checked in pairs: the last word once more.
        walk->offsets[reads] = walk->offsets[reads - 1];
        walk->words[reads] = walk->words[reads - 1];
        reads++;
    }
    walk->reads = reads;
    __asm__ volatile("" ::: "memory");
    walk->total = total - 1;
    lg_repeat_next = (lg_repeat_next + 1) & (lg_repeat_ways - 1);
}

// lg_walk, joining this thread's last walk where it reaches a frame of it at the same return
// address and stack pointer, and leaving it at the first step that would read a different word
// (rejoining further out); the last walk is then this one. A walk that meets a frame without a
// rule leaves the last walk as it was.
__attribute__((noinline, no_sanitize("address", "thread"))) static int lg_walk_with_memo(
    lg_frame_state state, uintptr_t high, int total, uintptr_t *buffer, int skip, lg_frame_state *unknown,
    const lg_frame_state *remember) {
    lg_frame_state *memo = lg_memo;
    int memoCount = lg_memo_count;
    // The walk is head (walked), then memo[joined ..< left] (reused), then tail (walked).
    lg_frame_state walked[lg_memo_capacity];
    int headCount = 0, tailCount = 0, joined = -1, left = -1;
    int frames = 0, memoIndex = 0;
    for (;;) {
        if (joined < 0) {
            while (memoIndex < memoCount && memo[memoIndex].sp < state.sp) memoIndex++;
            if (memoIndex < memoCount && memo[memoIndex].sp == state.sp && memo[memoIndex].pc == state.pc) {
                frames++;
                // Follow the last walk up to the frames wanted or its end, while each step reads
                // the same return address and, where a rule uses rbp, the same rbp. `rbp` is the
                // current frame's own; the memo keeps the one of the last walk until checked.
                int limit = memoIndex + (total - frames);
                if (limit > memoCount - 1) limit = memoCount - 1;
                lg_frame_state *current = &memo[memoIndex];
                const lg_frame_state *last = &memo[limit];
                uintptr_t rbp = state.rbp;
                while (current < last) {
                    const lg_frame_state *next = current + 1;
                    if (current->usesFramePointer && rbp != current->rbp) break;
                    if (*(const uintptr_t *)(next->sp - 8) != next->pc) break;
                    current->rbp = rbp;
                    if (current->rbpSlot != 0) rbp = *(const uintptr_t *)current->rbpSlot;
                    current++;
                }
                // memo[j] keeps the rbp its recorded step used (memo[j + 1] and its rbpSlot follow
                // from it); this walk's own rbp goes where this walk steps from j.
                int j = (int)(current - memo);
                frames += j - memoIndex;
                if (current < last) {
                    // A step differs: the same frame was reached from another caller. These frames
                    // are this walk's own (copied), and a frame further out may join again.
                    int copied = j + 1 - memoIndex;
                    memcpy(&walked[headCount], &memo[memoIndex], (size_t)copied * sizeof(lg_frame_state));
                    headCount += copied;
                    walked[headCount - 1].rbp = rbp;
                    memoIndex = j + 1;
                    lg_frame_state caller;
                    int stepped = lg_step(&walked[headCount - 1], &caller, high);
                    if (stepped < 0) {
                        *unknown = walked[headCount - 1];
                        return stepped;
                    }
                    if (stepped == 0) break;
                    state = caller;
                    continue;
                }
                joined = memoIndex;
                left = j + 1;
                if (frames == total) {
                    // Keep some of the last walk's frames beyond this one's, unchecked: the next
                    // walk may start further out and need them, and it checks them as it goes.
                    left = j + 1 + lg_memo_beyond;
                    if (left > memoCount) left = memoCount;
                    break;
                }
                // Step on from the last reused frame; its step is the one that changed.
                memo[j].rbp = rbp;
                lg_frame_state caller;
                int stepped = lg_step(&memo[j], &caller, high);
                if (stepped < 0) {
                    *unknown = memo[j];
                    return stepped;
                }
                if (stepped == 0) break;
                state = caller;
                continue;
            }
        }
        frames++;
        lg_frame_state caller;
        int stepped = frames == total ? 0 : lg_step(&state, &caller, high);
        if (stepped < 0) {
            *unknown = state;
            return stepped;
        }
        walked[headCount + tailCount] = state;
        if (joined < 0) headCount++; else tailCount++;
        if (stepped == 0) break;
        state = caller;
    }
    int reused = joined < 0 ? 0 : left - joined;
    if (headCount + reused + tailCount > lg_memo_capacity) reused = lg_memo_capacity - headCount - tailCount;
    // The last walk becomes this one: head, the reused frames, tail.
    if (reused > 0 && joined != headCount) {
        memmove(&memo[headCount], &memo[joined], (size_t)reused * sizeof(lg_frame_state));
    }
    if (headCount > 0) memcpy(&memo[0], &walked[0], (size_t)headCount * sizeof(lg_frame_state));
    if (tailCount > 0) {
        memcpy(&memo[headCount + reused], &walked[headCount], (size_t)tailCount * sizeof(lg_frame_state));
    }
    int count = headCount + reused + tailCount;
    lg_memo_count = count;
    if (remember != NULL && frames <= count && lg_repeat_worth_remembering(remember, frames))
        lg_repeat_remember(remember, total, frames, high);
    int written = 0;
    for (int index = skip; index < frames; index++) buffer[written++] = memo[index].pc;
    return written;
}

#endif

#if LG_LEARNED_RULES
// Whether some thread has taken on reading the rules kept by earlier runs. The first capture that
// walks by rules reads them, and no other thread waits for it (they learn meanwhile): a fork
// while it reads leaves nothing the child could wait on (a pthread_once still running at the fork
// never completes in the child under the thread sanitizer, whose pthread_once is its own).
static _Atomic int lg_cache_load_claimed = 0;

__attribute__((noinline)) static void lg_read_cached_rules_once(void) {
    int expected = 0;
    if (atomic_compare_exchange_strong_explicit(
            &lg_cache_load_claimed, &expected, 1, memory_order_relaxed, memory_order_relaxed)
        && !lg_is_forked_child())
        lg_frame_rule_cache_load();
}

// The walk by rules from `state` (frame 0), with this thread's last walk where it can: a frame
// without a rule is learned alone and the walk made again — a new call site shares all but a few
// frames with stacks already walked, and one libunwind step per new frame costs a small part of a
// whole unwind (which also blocks and restores signals twice a step, for its cache's lock).
// Frames [skip, total) go to `buffer`; -1 when a frame is still without a rule, -2 when one
// cannot have any (as lg_step). `token` gets the answering walk's token when a remembered walk
// gave the frames, and is left as it was otherwise.
__attribute__((no_sanitize("address", "thread"))) static int lg_walk_learning(
    lg_frame_state state, uintptr_t high, int total, uintptr_t *buffer, int skip,
    uint64_t *token) {
    if (__builtin_expect(!atomic_load_explicit(&lg_cache_load_claimed, memory_order_relaxed), 0)) {
        lg_read_cached_rules_once();
    }
    int written;
    lg_frame_state unknown;
    // Frame 1, when the walk may be remembered: no remembered walk fits, and none was busy.
    lg_frame_state caller;
    const lg_frame_state *remember = NULL;
    if (total >= 2 && total - 1 <= lg_repeat_frames && !lg_memo_busy) {
        lg_frame_state first = state;
        if (lg_step(&first, &caller, high) == 1) {
            lg_memo_busy = 1;
            __asm__ volatile("" ::: "memory");
            written = lg_repeat_find(&state, &caller, total, buffer, skip, token);
            __asm__ volatile("" ::: "memory");
            lg_memo_busy = 0;
            if (written >= 0) return written;
            remember = &caller;
        }
    }
    for (int learned = 0;; learned++) {
        if (total <= lg_memo_capacity && !lg_memo_busy) {
            lg_memo_busy = 1;
            __asm__ volatile("" ::: "memory");
            written = lg_walk_with_memo(state, high, total, buffer, skip, &unknown, remember);
            __asm__ volatile("" ::: "memory");
            lg_memo_busy = 0;
        } else {
            written = lg_walk(state, high, total, buffer, skip, &unknown);
        }
        if (__builtin_expect(written != -1, 1) || learned == lg_learned_per_capture) return written;
        if (lg_is_forked_child() || !lg_learn_frame(&unknown)) return written;
    }
}
#endif

int lg_stack_bounds_for_tests(uintptr_t *low, uintptr_t *high, uintptr_t *systemLow, uintptr_t *systemHigh) {
    *low = *high = *systemLow = *systemHigh = 0;
#if defined(__linux__)
    (void)lg_system_stack_bounds(systemLow, systemHigh);
#endif
#if LG_LEARNED_RULES
    if (!lg_know_stack_bounds()) return -1;
    *low = lg_stack_low;
    *high = lg_stack_high;
    return lg_stack_bounds_by_entry;
#else
    return -1;
#endif
}

int lg_repeat_words_hold_for_tests(uintptr_t base, const uint32_t *offsets, const uintptr_t *words, int count) {
#if LG_LEARNED_RULES
    return lg_repeat_words_hold(base, offsets, words, count);
#else
    (void)base, (void)offsets, (void)words, (void)count;
    return -1;
#endif
}

uint64_t lg_stack_repeats_on_this_thread(void) {
#if LG_LEARNED_RULES
    return lg_repeat_hits;
#else
    return 0;
#endif
}

int lg_capture_stack_from(uintptr_t pc, uintptr_t sp, uintptr_t rbp, uintptr_t *buffer, int capacity,
                          uint64_t *repeat) {
    *repeat = 0;
#if LG_LEARNED_RULES
    if (!atomic_load_explicit(&lg_loaded, memory_order_acquire) || !lg_learns_rules || capacity <= 0
        || !lg_know_stack_bounds() || sp < lg_stack_low + 8 || sp > lg_stack_high)
        return -1;
    lg_frame_state state = {pc, sp, rbp, 0, 0};
    uint64_t token = 0;
    int written = lg_walk_learning(state, lg_stack_high, capacity, buffer, 0, &token);
    if (written < 0) return -1;
    if (written > 0) *repeat = token;
    return written;
#else
    (void)pc;
    (void)sp;
    (void)rbp;
    (void)buffer;
    (void)capacity;
    return -1;
#endif
}

// Return addresses are numbered from the caller of lg_capture_stack (or of
// lg_capture_stack_keyed): R1 is the return address into that caller, R2 the one into its caller,
// and so on; the buffer gets R(1+skip)…. Inlined into both, which are never inlined themselves:
// the numbering counts their own frame, and __builtin_frame_address(0) is theirs.
#if LG_LEARNED_RULES
__attribute__((always_inline, no_sanitize("address", "thread")))
#else
__attribute__((always_inline))
#endif
static inline int lg_capture_stack_here(uintptr_t *buffer, int capacity, int skip, uint64_t *token) {
    if (__builtin_expect(!atomic_load_explicit(&lg_loaded, memory_order_acquire), 0)) {
        // Not in a forked child: the parent may have been loading at the fork (see above).
        if (lg_is_forked_child()) return 0;
        pthread_once(&lg_once, lg_load_unwinder);
    }
    if (capacity <= 0) return 0;
    if (skip < 0) skip = 0;
#if LG_LEARNED_RULES
    if (lg_learns_rules && lg_know_stack_bounds()) {
        // Taking this frame's address gives the function a frame pointer: [frame] holds the
        // caller's rbp, [frame + 8] the return address R1, and frame + 16 is the caller's rsp.
        uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
        uintptr_t high = lg_stack_high;
        if (frame >= lg_stack_low && frame + 16 <= high) {
            lg_frame_state state = {
                (uintptr_t)__builtin_return_address(0), frame + 16, *(const uintptr_t *)frame, 0, 0};
            int total = capacity + skip;  // frames wanted, counted from R1
            int written = lg_walk_learning(state, lg_stack_high, total, buffer, skip, token);
            // In a forked child, no libunwind: its own lock may have been held by a thread of the
            // parent at the fork (a child hung in _ULx86_64_step under the thread sanitizer). A
            // stack the learned rules cannot walk is then left out: the object is recorded
            // without one.
            if (__builtin_expect(written < 0, 0) && lg_is_forked_child()) {
                written = 0;
            } else if (__builtin_expect(written == -1, 0)) {
                written = lg_capture_and_learn(buffer, capacity, skip);
                LG_NO_TAIL_CALL();
            } else if (__builtin_expect(written < 0, 0)) {
                // A frame no rule fits (a signal frame, a realigned one): libunwind alone.
                // frames[0] is in this function, frames[1] is R1.
                written = lg_capture_with_unwinder(buffer, capacity, 1 + skip);
            }
            if (written <= 0) *token = 0;
            return written;
        }
    }
#endif
    if (lg_is_forked_child()) return 0;  // no unwinder in a forked child (see above)
    // frames[0] is in this function, frames[1] is R1.
    return lg_capture_with_unwinder(buffer, capacity, 1 + skip);
}

#if LG_LEARNED_RULES
__attribute__((noinline, no_sanitize("address", "thread")))
#else
__attribute__((noinline))
#endif
int lg_capture_stack(uintptr_t *buffer, int capacity, int skip) {
    uint64_t token = 0;
    return lg_capture_stack_here(buffer, capacity, skip, &token);
}

#if LG_LEARNED_RULES
__attribute__((noinline, no_sanitize("address", "thread")))
#else
__attribute__((noinline))
#endif
int lg_capture_stack_keyed(uintptr_t *buffer, int capacity, int skip, uint64_t *token) {
    *token = 0;
    return lg_capture_stack_here(buffer, capacity, skip, token);
}

// The registry's stack numbers (Swift's `StackTable`, not the whole-process table) this thread
// found for repeated captures (keyed_stacks.h): a tracked object's repeated capture is then not
// hashed under the registry's lock.
static __thread lg_keyed_stacks lg_registry_keyed_stacks;

int32_t lg_keyed_stack_lookup(uint64_t token, uintptr_t first, int count) {
    return lg_keyed_find(&lg_registry_keyed_stacks, token, first, count);
}

void lg_keyed_stack_remember(uint64_t token, uintptr_t first, int count, int32_t stack) {
    lg_keyed_keep(&lg_registry_keyed_stacks, token, first, count, stack);
}

__attribute__((noinline)) int lg_capture_stack_with_unwinder(uintptr_t *buffer, int capacity, int skip) {
    pthread_once(&lg_once, lg_load_unwinder);
    if (capacity <= 0) return 0;
    if (skip < 0) skip = 0;
    int written = lg_capture_with_unwinder(buffer, capacity, 1 + skip);
    lg_unwinder_captures_here--;  // asked for by name: not one lg_capture_stack fell back to
    return written;
}

uint64_t lg_unwinder_captures_on_this_thread(void) { return lg_unwinder_captures_here; }

// The caller's frames by their frame pointers (Swift keeps them): each return address with the
// stack pointer of the frame it returns into, so that a stack word at S belongs to the frame i
// with sps[i] <= S < sps[i+1]. No libunwind: this runs on whatever thread describes a leak (a
// signal's dump thread among them) while the others allocate. A frame without a frame pointer is
// passed over (its words count as its caller's); the walk stops where the chain leaves the
// thread's stack or stops rising.
__attribute__((noinline)) int lg_current_frames(uintptr_t *returnAddresses, uintptr_t *stackPointers, int capacity) {
#if LG_LEARNED_RULES
    if (capacity <= 0 || !lg_know_stack_bounds()) return 0;
    uintptr_t low = lg_stack_low, high = lg_stack_high;
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    int written = 0;
    while (written < capacity && frame >= low && frame + 16 <= high && (frame & 7) == 0) {
        uintptr_t next = ((const uintptr_t *)frame)[0];
        uintptr_t returnAddress = ((const uintptr_t *)frame)[1];
        if (returnAddress == 0) break;
        returnAddresses[written] = returnAddress;
        stackPointers[written] = frame + 16;  // the caller's stack pointer at the call
        written++;
        if (next <= frame) break;
        frame = next;
    }
    LG_NO_TAIL_CALL();
    return written;
#else
    (void)returnAddresses;
    (void)stackPointers;
    (void)capacity;
    return 0;
#endif
}

int lg_learned_frame_rules(void) {
#if LG_LEARNED_RULES
    pthread_once(&lg_once, lg_load_unwinder);
    return lg_learns_rules;
#else
    return 0;
#endif
}
