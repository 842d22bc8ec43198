#ifndef CLEAKGRAPHSUPPORT_H
#define CLEAKGRAPHSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// A mutex for LeakGraph's own locks (`Locked`): on Linux a futex word whose uncontended lock
/// and unlock are one atomic instruction each; elsewhere a pthread mutex behind a pointer.
/// Initialise with lg_mutex_init before use, destroy with lg_mutex_destroy; never copy one that
/// is in use (keep it at a stable address).
typedef struct {
#if defined(__linux__)
    int state;
#else
    void *platform;
#endif
} lg_mutex;

void lg_mutex_init(lg_mutex *mutex);
/// Takes `mutex` if it is free; returns whether it did.
int lg_mutex_trylock(lg_mutex *mutex);
void lg_mutex_destroy(lg_mutex *mutex);
void lg_mutex_lock(lg_mutex *mutex);
void lg_mutex_unlock(lg_mutex *mutex);

/// Captures up to `capacity` return addresses of the caller's stack into `buffer`, skipping
/// `skip` innermost frames. Returns the number written (0 when no unwinder is available).
/// Uses libunwind, loaded privately with dlopen(RTLD_LOCAL) so that linking LeakGraph never
/// replaces the process's `_Unwind_*` or `backtrace` symbols; on x86-64 Linux, frame rules learned
/// from it per return address walk stacks it has seen (stack_capture.c).
int lg_capture_stack(uintptr_t *buffer, int capacity, int skip);
/// lg_capture_stack, also giving the token of the remembered walk whose frames these are (0 when
/// the frames were walked): the same token, first frame and count are the same frames, so what
/// was made of them can be kept by that key (lg_keyed_stack_lookup).
int lg_capture_stack_keyed(uintptr_t *buffer, int capacity, int skip, uint64_t *token);
/// The registry stack number this thread remembered for a capture's `token`, first frame and
/// frame count (lg_keyed_stack_remember), or -1. Never a number for a token of 0.
int32_t lg_keyed_stack_lookup(uint64_t token, uintptr_t first, int count);
/// Remembers the registry stack number `stack` interned for a capture's key, on this thread.
void lg_keyed_stack_remember(uint64_t token, uintptr_t first, int count, int32_t stack);

/// lg_capture_stack through the unwinder alone (`unw_backtrace`, or glibc's `backtrace`): what
/// the learned rules must agree with.
int lg_capture_stack_with_unwinder(uintptr_t *buffer, int capacity, int skip);

/// How lg_capture_stack has worked so far in this process: frames whose rule was learned alone (one
/// libunwind step), captures that learned by a whole libunwind unwind, and captures made by the
/// unwinder alone (no rules, or a frame no rule fits) — lg_capture_stack_with_unwinder included.
void lg_stack_capture_statistics(uint64_t *framesLearnedAlone, uint64_t *wholeUnwindsLearning,
                                 uint64_t *unwinderCaptures);
/// For tests: calls `body(context)` through a C function that keeps a frame pointer and has no
/// unwind entry, as some of Foundation's and Dispatch's allocating initialisers do.
void lg_call_through_frame_without_unwind_entry(void (*body)(void *), void *context);
/// For tests: calls `body(context)` through a frame shaped as an async function's resume partial
/// function is on x86-64 (its CFA 32 bytes above its frame pointer).
void lg_call_through_frame_record_below_cfa(void (*body)(void *), void *context);
/// For tests: calls `body(context)` through a frame realigned to 64 bytes as GCC realigns one (its
/// CFA an expression; the padding differs with the stack pointer at the call).
void lg_call_through_realigned_frame(void (*body)(void *), void *context);
/// How many of this thread's lg_capture_stack calls libunwind (or glibc) walked whole, learning
/// rules on the way or not (lg_capture_stack_with_unwinder not counted): for tests.
uint64_t lg_unwinder_captures_on_this_thread(void);
/// How many of this thread's captures were answered from a remembered walk: a capture that starts
/// where one of the thread's recent walks started and finds every word that walk read unchanged.
uint64_t lg_stack_repeats_on_this_thread(void);
/// For tests: the check a repeated capture makes, on `count` words at `base + offsets[i]` against
/// `words[i]` (`count` even, `words` 16-byte aligned). Returns 1 when all hold, 0 when one
/// differs, -1 where captures are not walked by learned rules.
int lg_repeat_words_hold_for_tests(uintptr_t base, const uint32_t *offsets, const uintptr_t *words, int count);
/// For tests: this thread's stack bounds as captures check frames against them (`low`, `high`)
/// and as `pthread_getattr_np` gives them (`systemLow`, `systemHigh`). Returns 1 on the main
/// thread when its bounds were found without reading `/proc/self/maps`, 0 when they came from
/// `pthread_getattr_np`, -1 when captures know none (no learned rules on this platform).
int lg_stack_bounds_for_tests(uintptr_t *low, uintptr_t *high, uintptr_t *systemLow, uintptr_t *systemHigh);

/// Writes the learned frame rules of every loaded image that has some into `directory` (made if
/// missing), one file per image named by its build id, as the exit does into the cache
/// directory. The rules written, or -1.
long lg_frame_rule_cache_write(const char *directory);

/// Reads the rules files in `directory` of the loaded images into the table, as the start does:
/// the rules accepted, or -1; `refusedFiles` counts files refused whole (not whole, another
/// image's, an entry that is not a rule in the image's code).
long lg_frame_rule_cache_read(const char *directory, long *refusedFiles);

/// How many rules in the files of `directory` differ from the table's rule for the same address.
long lg_frame_rule_cache_disagreements(const char *directory);

/// 1 when lg_capture_stack walks with learned frame rules (x86-64 Linux with libunwind), else 0.
int lg_learned_frame_rules(void);

/// Which unwinder `lg_capture_stack` uses: 1 = libunwind, 2 = glibc backtrace, 0 = none.
int lg_unwinder_kind(void);

/// The word a loaded library exports under `symbol` (the concurrency runtime's
/// `_swift_concurrency_debug_asyncTaskSlabMetadata`, for debuggers), or 0 when none does.
uintptr_t lg_exported_word(const char *symbol);

/// dladdr wrapper: fills the object path, its load base, the nearest symbol name and address.
/// Returns non-zero on success. Strings point into the loader's memory and stay valid.
int lg_dladdr(uintptr_t address, const char **objectPath, uintptr_t *objectBase,
              const char **symbolName, uintptr_t *symbolAddress);

/// One loaded segment of an image (code or data): `[start, end)`, with its image's path as the
/// loader knows it ("" for the main program; valid while the image stays loaded), the address
/// the image is mapped from (dladdr's `dli_fbase`), and whether the image is the main program.
typedef struct {
    uintptr_t start;
    uintptr_t end;
    const char *path;
    uintptr_t base;
    int isMainProgram;
} lg_image_segment;

/// The loaded segments of every image (dl_iterate_phdr, Linux): up to `capacity` written to
/// `segments`, in the loader's order; returns how many there are (more than `capacity`: call
/// again with room). 0 where the platform has no dl_iterate_phdr. Finding an address's image
/// here is a search of a few hundred segments; dladdr also looks for the nearest symbol, which
/// glibc does by a scan of the image's symbol table.
size_t lg_image_segments(lg_image_segment *segments, size_t capacity);

/// Whether `address` is the nominal type descriptor of a class some loaded image registered with
/// the runtime (its `swift5_type_metadata` records, Linux): 1 or 0; -1 where that cannot be told
/// (other platforms, a runtime without `swift_enumerateAllMetadataSections`, a process that has
/// unloaded an image: the runtime's list then names memory that is gone). A word read from
/// memory nothing holds is taken for class metadata only when this says 1 of its descriptor.
int lg_is_class_descriptor(uintptr_t address);

/// Whether the `needleLength` bytes at `needle` occur in the `length` bytes at `bytes` (memmem,
/// which Swift's Glibc module does not show).
int lg_contains_bytes(const void *bytes, size_t length, const void *needle, size_t needleLength);

/// Registers `handler` with atexit(3). Kept in C so the handler is a plain C function pointer
/// and never a main-actor-isolated closure.
int lg_atexit(void (*handler)(void));

/// Starts writing `count` bytes of the file `descriptor` from `offset` back to its device,
/// without waiting (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`; nothing elsewhere, or for
/// what is not a regular file): a big file's final fsync then waits for its tail only.
void lg_start_writeback(int descriptor, long long offset, long long count);


/// Size of the malloc block that starts at `pointer` (glibc `malloc_usable_size`).
size_t lg_malloc_usable_size(const void *pointer);

/// Retains a Swift heap object unless it is already deinitialising (the runtime's
/// swift_tryRetain). Returns non-zero when it took a reference.
int lg_try_retain(void *object);

/// Whether a Swift heap object has begun deinitialising (the runtime's swift_isDeallocating).
int lg_is_deallocating(void *object);

/// This thread's shared allocation stack (stack id + 1; 0 when none): set while a whole
/// subscription is being built, so that its objects share one captured stack.
extern __thread int lg_shared_stack_plus_one;

static inline int lg_get_shared_stack(void) { return lg_shared_stack_plus_one; }
static inline void lg_set_shared_stack(int value) { lg_shared_stack_plus_one = value; }

/// This thread's buffer for one captured stack (`LG_STACK_SCRATCH_CAPACITY` return addresses),
/// used between capturing a stack and interning it: a temporary allocation per capture cost
/// ~50 instructions of unspecialised generic code. lg_stack_scratch_acquire returns NULL while
/// the buffer is in use (a capture nested in another's interning), and the caller then uses
/// storage of its own; lg_stack_scratch_release gives the buffer back.
#define LG_STACK_SCRATCH_CAPACITY 128
extern __thread uintptr_t lg_stack_scratch[LG_STACK_SCRATCH_CAPACITY];
extern __thread int lg_stack_scratch_busy;

static inline uintptr_t *lg_stack_scratch_acquire(void) {
    if (lg_stack_scratch_busy) return NULL;
    lg_stack_scratch_busy = 1;
    return lg_stack_scratch;
}
static inline void lg_stack_scratch_release(void) { lg_stack_scratch_busy = 0; }

/// How many snapshots this thread is releasing holds for (nested when a release runs a deinit
/// that takes a snapshot).
extern __thread int lg_releasing_snapshot;

static inline int lg_get_releasing_snapshot(void) { return lg_releasing_snapshot; }
static inline void lg_set_releasing_snapshot(int value) { lg_releasing_snapshot = value; }

/// The case index of the enum value at `value` (its type's `getEnumTag` value witness; payload
/// cases first). Reads only.
unsigned lg_enum_tag(const void *value, const void *metadata);

/// Clears the tag bits of the enum value at `value` so that its payload can be read in place
/// (`destructiveProjectEnumData`). Only ever called on a bitwise copy LeakGraph owns: it changes
/// bits, retains and releases nothing for multi-payload enums.
void lg_enum_project(void *value, const void *metadata);

/// Size, stride and flags (alignment mask in the low byte, 0x20000 = stored out of line in an
/// existential) from a type's value witness table.
size_t lg_type_size(const void *metadata);
size_t lg_type_stride(const void *metadata);
uint32_t lg_type_flags(const void *metadata);

/// The bytes usable in the live heap allocation at `object` (`malloc_usable_size`, `malloc_size`):
/// a `ManagedBuffer`'s capacity is what its allocation holds. Only for memory known to be
/// allocated and alive (a held object).
size_t lg_allocation_size(const void *object);

/// Under a sanitizer (whose allocator replaces malloc and its chunk headers): 1, with `size` the
/// bytes of the live allocation at `object` (0 for memory it does not own: freed, never
/// allocated, or not an allocation's start). Without one: 0.
int lg_sanitizer_allocation_size(const void *object, size_t *size);

/// The globals that hold some of `sortedTargets` (object addresses, ascending): every aligned word
/// of every loaded image's writable segments (`.data`, `.bss`), read through fault-safe copies.
/// Fills `slots` (the global's address) and `found` (the object it holds) up to `capacity`;
/// returns how many. Linux; 0 elsewhere.
size_t lg_find_global_holders(const uintptr_t *sortedTargets, size_t targetCount, uintptr_t *slots,
                              uintptr_t *found, size_t capacity);

/// The words of every loaded image's writable segments that may point at a heap object (16-byte
/// aligned, not small), read through fault-safe copies, up to `capacity`; returns how many.
/// Linux; 0 elsewhere.
size_t lg_collect_global_words(uintptr_t *words, size_t capacity);

/// The threads' stacks that hold some of `sortedTargets` (object addresses, ascending): the
/// calling thread's in `currentRanges` (`currentRangeCount` pairs of low, high: the frames to
/// read), and every other thread blocked in the kernel, not inside LeakGraph's analysis, from its
/// stack pointer to the end of its mapping, read through fault-safe copies. Fills `slots` (the
/// stack word's address), `found` (the object it holds) and `threads` (0 for the calling thread,
/// else the thread's id) up to `capacity`, at most 4 for any one object; returns how many. Linux;
/// 0 elsewhere.
size_t lg_find_stack_holders(const uintptr_t *sortedTargets, size_t targetCount, const uintptr_t *currentRanges,
                             size_t currentRangeCount, uintptr_t *slots, uintptr_t *found, int64_t *threads,
                             size_t capacity);

/// The words of the same stacks as ``lg_find_stack_holders`` reads that may point at a heap object
/// (16-byte aligned, not small), up to `capacity`; returns how many. Linux; 0 elsewhere.
size_t lg_collect_stack_words(const uintptr_t *currentRanges, size_t currentRangeCount, uintptr_t *words,
                              size_t capacity);

/// Marks the calling thread as inside LeakGraph's own analysis until the matching leave (nested
/// calls count): ``lg_find_stack_holders`` never takes its stack for a holder.
void lg_analysis_enter(void);
void lg_analysis_leave(void);

/// The calling thread's stack above the function that entered its outermost analysis (its
/// callers' frames, the program's) up to the end of the stack's mapping: fills `low` and `high`
/// and returns 1; 0 outside an analysis.
int lg_analysis_callers_stack(uintptr_t *low, uintptr_t *high);

/// The calling function's frames and its callers', innermost first: each frame's return address
/// (an address inside the function) and its stack pointer, by the frame-pointer chain (x86-64
/// Linux; 0 elsewhere).
int lg_current_frames(uintptr_t *returnAddresses, uintptr_t *stackPointers, int capacity);

/// The bytes usable in the allocation whose malloc chunk header word (the word before the
/// allocation, read through ``lg_safe_copy``) is `header`: glibc's layout; 0 elsewhere.
size_t lg_allocation_size_from_header(uintptr_t header);

/// Copies up to `length` bytes from `source`, memory another thread may free or unmap at any
/// moment, into `destination` without ever faulting: the kernel reads it (process_vm_readv on
/// Linux, mach_vm_read_overwrite on Apple platforms). Returns the number of bytes copied, fewer
/// than `length` (maybe 0) when part of the range is not readable.
size_t lg_safe_copy(void *destination, uintptr_t source, size_t length);

/// Copies `length` bytes from `source` (aligned to 8, or to 4 for 4 bytes; in an image's mapping: never unmapped
/// while the image is loaded) into `destination`, without the sanitizers' checks: for words that
/// only may be metadata, which may point between an image's globals, where the address
/// sanitizer sees an out-of-bounds read of the global before.
void lg_copy_from_image(void *destination, uintptr_t source, size_t length);

/// 1 when this library was built with the address sanitizer, 0 otherwise.
int lg_built_with_address_sanitizer(void);

// MARK: Whole-process tracking (process_tracking.c)

/// The next object id, shared by tracked objects and whole-process records so that ids follow
/// allocation order across both (checkpoints compare ids).
extern _Atomic uint64_t lg_object_ids;

static inline uint64_t lg_take_object_id(void) {
    return __atomic_fetch_add((uint64_t *)&lg_object_ids, 1, __ATOMIC_RELAXED);
}

static inline uint64_t lg_peek_object_id(void) { return __atomic_load_n((uint64_t *)&lg_object_ids, __ATOMIC_RELAXED); }

/// One recorded object a snapshot took hold of (a +1 the snapshot releases later).
typedef struct {
    uintptr_t address;
    uintptr_t metadata;
    uint64_t id;
    uint64_t nanoseconds;  // allocation time on the monotonic clock
    int32_t stack;         // an id for lg_process_stack_frames, -1 when none
    uint32_t scope;
} lg_process_object;

/// Whether this process's allocations pass through LeakGraph's entry points (Linux, an executable
/// that links LeakGraph statically and exports its symbols, as SwiftPM's do).
int lg_process_tracking_available(void);
/// Starts recording every Swift object allocated from now on. Returns 0 when not available.
int lg_process_tracking_start(void);
/// Whether recording is on.
int lg_process_tracking_active(void);
/// Whether whole-process tracking holds a record of the object at `address` (one probe of its shard).
int lg_process_is_recorded(uintptr_t address);

/// The slot where the record of the object at `address` starts its probe in a shard of
/// `capacity` slots, and (`shard`) which of the table's shards holds it. For tests of the record
/// table's spread; SIZE_MAX for a capacity no shard has (a power of two, at least 256) and where
/// whole-process tracking is compiled out.
size_t lg_process_home_slot(uintptr_t address, size_t capacity, int *shard);
/// Adds `delta` to this thread's suppression count: while it is above zero, this thread's
/// allocations are not recorded (LeakGraph's own work: snapshots, reports).
void lg_process_suppress(int delta);
/// Stack capture for recorded allocations: `depth` frames every `interval` allocations (0: off).
void lg_process_set_stacks(int depth, int interval);
/// The function that gives the current leak scope of an allocation (called from the allocation
/// hook behind a guard: allocations it makes are not recorded).
void lg_process_set_scope_provider(uint32_t (*provider)(void));
/// How many leak scopes are open (support.c): the allocation hook asks the scope provider, and a
/// scope reads its task-local, only while one is.
extern _Atomic int lg_open_scopes;

/// Adds `delta` (+1 opened, -1 closed) to the open scopes; returns the count after.
static inline int lg_scopes_opened(int delta) {
    return __atomic_add_fetch((int *)&lg_open_scopes, delta, __ATOMIC_SEQ_CST);
}

static inline int lg_open_scope_count(void) { return __atomic_load_n((int *)&lg_open_scopes, __ATOMIC_RELAXED); }
/// Why `LEAKGRAPH_TRACK` asked for something that is not happening (a value other than `all` or
/// off, or `all` where it cannot work), or NULL when nothing went wrong.
const char *lg_process_tracking_problem(void);
/// Live records, and the bytes of the tables that hold them and their stacks.
size_t lg_process_record_count(void);
size_t lg_process_table_bytes(void);
/// The monotonic clock's reading when recording was set up (allocation times are relative to it).
uint64_t lg_process_start_nanoseconds(void);
/// Copies the frames of an interned allocation stack; returns how many.
int lg_process_stack_frames(int32_t stack, uintptr_t *buffer, int capacity);
/// Takes a hold (`swift_tryRetain`) on every recorded object that is not deinitialising and whose
/// address is not in `excluded` (sorted ascending), under each shard's lock, so that no object it
/// returns can be freed before the caller releases it. `*result` is malloc'd (lg_process_free).
size_t lg_process_take_holds(const uintptr_t *excluded, size_t excludedCount, lg_process_object **result);
/// Like lg_process_take_holds, for the records whose id `ids` (sorted, `count` of them) lists.
size_t lg_process_take_holds_of(const uintptr_t *excluded, size_t excludedCount, const uint64_t *ids, size_t count,
                                lg_process_object **result);
/// How many stale records were found since tracking began (objects freed by a path the interposed
/// deallocation did not see): by snapshots (the object no longer starts with the metadata it was
/// allocated with) and by allocations of memory a record still named.
size_t lg_process_stale_record_count(void);
/// For tests: records `address` as an object allocated with `metadata` (no stack, no scope), as
/// the allocation hook does; and removes its record, as the deallocation hooks do.
void lg_process_record_for_tests(uintptr_t address, uintptr_t metadata);
void lg_process_forget_for_tests(uintptr_t address);
/// How many objects were left unrecorded because a record cannot hold them: their address is not
/// 16-byte aligned or is above 2^48 (none on x86-64 or arm64 Linux), or their type came after
/// the millionth distinct one.
size_t lg_process_unrecordable_count(void);
/// For tests: the runtime's check that a `withoutActuallyEscaping` closure's `context` did not
/// escape, through whole-process tracking's definition (which allows for the holds of snapshots in
/// flight); 1 when it escaped (the runtime has then printed its message). 0 where tracking is not
/// compiled in.
int lg_is_escaping_closure_for_tests(const void *context);
/// How long the last taking of holds kept shard locks (which allocation needs): in all, and at
/// most at once, in nanoseconds.
void lg_process_last_hold_nanoseconds(uint64_t *total, uint64_t *longest);
void lg_process_release(uintptr_t address);
/// The ids of the recorded objects allocated in leak scope `scope` with an id of at least
/// `minimumID` that are not deinitialising, read under the shard locks without retaining
/// anything. `*result` is malloc'd (lg_process_free_ids).
size_t lg_process_live_ids(uint32_t scope, uint64_t minimumID, uint64_t **result);
void lg_process_free_ids(uint64_t *ids);
void lg_process_free(lg_process_object *objects);

// MARK: fork (fork_safety.c)

/// Holds `mutex` across every fork() of the process (pthread_atfork), so that a child never
/// inherits it locked by a thread that does not exist there. For locks that live as long as the
/// process. Returns 0 when the table of such locks is full.
int lg_fork_protect(lg_mutex *mutex);
/// Whether this process is a child forked from a process where LeakGraph ran: it has one thread,
/// and Foundation's `Thread` or Dispatch may wait there forever for work another thread was doing
/// at the moment of the fork (a `swift_once` in progress), so LeakGraph starts none.
int lg_is_forked_child(void);
/// Installs the fork handlers (once): the C tables' locks are held across fork() even when no
/// Swift lock was registered.
void lg_fork_install_handlers(void);
/// The C tables' part of the fork handlers (process_tracking.c, support.c).
void lg_process_fork_prepare(void);
void lg_process_fork_release(void);
void lg_support_fork_prepare(void);
void lg_support_fork_release(int child);

// MARK: Snapshots letting go of their holds (snapshot_releases.c)
//
// Counters the Snapshotter keeps while snapshots release the objects they held: in C, so that a
// forked child resets them without touching a Swift global (under the thread sanitizer every
// access to a Swift lazy global takes that global's once lock, which another thread of the parent
// may hold at the moment of the fork: the child then waits for it forever).

/// How many snapshots are releasing their holds right now (on any thread).
long lg_snapshot_releases_in_flight(void);
void lg_snapshot_release_began(void);
void lg_snapshot_release_ended(void);
/// Batches of holds whose unlisting has begun, and whose release has ended.
long lg_snapshot_batches_unlisted(void);
long lg_snapshot_batches_released(void);
void lg_snapshot_batch_unlisted(void);
void lg_snapshot_batch_released(void);
/// In a forked child: the releases other threads were making at the fork never finish there.
void lg_snapshot_releases_forget_other_threads(void);

// MARK: Dumps on signals (signal_dumps.c)

/// What `LEAKGRAPH_DUMP_ON` asks for, as bits: 1 exit (the default), 2 term (SIGTERM, SIGINT),
/// 4 usr1 (SIGUSR1, on demand).
int lg_dump_on_events(void);

#endif
