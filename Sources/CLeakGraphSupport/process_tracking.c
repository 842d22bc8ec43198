// Whole-process tracking: a record of every Swift heap object the process allocates, kept by
// interposing the runtime's allocation and deallocation entry points.
//
// Why these entry points and not the runtime's `_swift_allocObject` hook variables: assigning a
// hook turns on the runtime's instrumentation flag, which adds work to every retain and release
// of the process and, on Linux with Swift 6.3, makes the retain adapter crash on tagged
// bridge-object words. Defining the symbols in the executable (SwiftPM exports an executable's
// symbols) makes every other module bind to these definitions through its PLT, and costs nothing
// per retain or release. They are weak, so that a build that links the runtime statically keeps
// the runtime's own definitions (and whole-process tracking reports that it cannot start).
//
// Soundness rules, in the order the code relies on them:
// - An object is recorded only when its deallocation is certain to pass through one of the
//   interposed `swift_dealloc*` functions: class instances and heap local variables (closure
//   contexts, `var` boxes) whose destroy function is not inside libswiftCore. Calls made inside
//   libswiftCore bind to the runtime directly (its symbols are protected), so objects it frees
//   itself (array, dictionary and string storage, generic boxes, error boxes) are never recorded.
// - A record is removed under its shard's lock *before* the memory is handed back to the
//   runtime, and a snapshot takes its hold (`swift_tryRetain`) under the same lock: a snapshot
//   can never hold or read a freed object.
// - Where an object is freed some other way anyway (GRDB's suite showed CF-backed Foundation
//   instances and a few plain classes so), its record is stale: a snapshot holds no record whose
//   memory no longer starts with the metadata recorded at allocation, and an allocation of
//   memory a record still names replaces that record.
// - An object's body is zeroed at allocation, so a snapshot that holds an object still inside
//   its initialiser reads zeroes (no reference) where a field has not been written yet, never
//   stale heap words.
// - Nothing here allocates a Swift object; the scope provider, the one call back into Swift,
//   runs behind a per-thread guard that lets nested allocations through unrecorded.

#define _GNU_SOURCE 1
#include "CLeakGraphSupport.h"
#include "frame_rules.h"
#include "keyed_stacks.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

_Atomic uint64_t lg_object_ids = 1;

#if defined(__linux__) && !defined(LEAKGRAPH_DISABLED)

typedef void *(*lg_alloc_fn)(const void *metadata, size_t size, size_t alignMask);
typedef void (*lg_dealloc_fn)(void *object, size_t size, size_t alignMask);
typedef void (*lg_dealloc_partial_fn)(void *object, const void *metadata, size_t size, size_t alignMask);
typedef bool (*lg_is_escaping_fn)(const void *object, const unsigned char *filename, int32_t filenameLength,
                                  int32_t line, int32_t column, unsigned verificationType);

static lg_alloc_fn real_alloc;
static lg_dealloc_fn real_dealloc_class;
static lg_dealloc_fn real_dealloc_object;
static lg_dealloc_fn real_dealloc_uninitialized;
static lg_dealloc_partial_fn real_dealloc_partial;
static lg_is_escaping_fn real_is_escaping;

/// Whether allocations are being recorded. Read relaxed on every allocation and deallocation.
static _Atomic int lg_recording = 0;
/// Whether the interposed entry points are the ones the process uses (0 when the runtime is
/// linked statically, or another library defines them first).
static int lg_interposed = 0;
/// libswiftCore's mapped address range: objects whose destroy function lies in it are freed by
/// the runtime itself, out of our sight.
static uintptr_t lg_core_start, lg_core_end;

static _Atomic int lg_stack_depth = 0;
static _Atomic int lg_stack_interval = 0;
static _Atomic uint64_t lg_stack_counter = 0;
static uint32_t (*_Atomic lg_scope_provider)(void) = NULL;


/// Set while this thread runs LeakGraph's own code from inside a hook (the scope provider) or
/// holds a shard lock for a snapshot: its allocations pass through unrecorded.
static __thread int lg_in_hook = 0;

// MARK: The record table

/// One recorded object, 24 bytes (at the tables' usual load, about 50 bytes per live object).
typedef struct {
    /// The object's address over 16 in the low 44 bits (objects are 16-byte aligned, user space
    /// is under 2^48 on x86-64 and arm64), in the high 20 the interned heap metadata it was
    /// allocated with (see lg_intern_type): a snapshot holds only a record whose object still
    /// starts with that metadata (see lg_still_allocated). 0: empty.
    uint64_t key;
    /// The object's id in the low 40 bits (a trillion allocations), its interned stack + 1 in the
    /// high 24 (0: none; at most a million stacks are interned).
    uint64_t idAndStack;
    uint32_t milliseconds;  // allocation time, since tracking was set up (49 days of range)
    uint32_t scope;
} lg_record;

enum { lg_id_bits = 40, lg_address_bits = 44 };
static const uint64_t lg_address_mask = (1ull << lg_address_bits) - 1;

/// Whether `address` fits a record's key: 16-byte aligned, under 2^48.
static inline int lg_recordable_address(uintptr_t address) {
    return (address & 15) == 0 && ((uint64_t)address >> (lg_address_bits + 4)) == 0;
}
static inline uint64_t lg_address_part(uintptr_t address) { return (uint64_t)address >> 4; }
static inline uint64_t lg_key(uintptr_t address, uint32_t type) {
    return lg_address_part(address) | ((uint64_t)type << lg_address_bits);
}
static inline uint32_t lg_record_type(lg_record record) { return (uint32_t)(record.key >> lg_address_bits); }
static inline uintptr_t lg_record_address(lg_record record) { return (uintptr_t)((record.key & lg_address_mask) << 4); }
static inline int lg_record_is(lg_record record, uint64_t addressPart) {
    return (record.key & lg_address_mask) == addressPart;
}

static inline uint64_t lg_record_id(lg_record record) { return record.idAndStack & ((1ull << lg_id_bits) - 1); }
static inline int32_t lg_record_stack(lg_record record) { return (int32_t)(record.idAndStack >> lg_id_bits) - 1; }

enum { lg_shard_bits = 6, lg_shard_count = 1 << lg_shard_bits };

/// A shard's lock: a test-and-test-and-set spin lock (an uncontended lock and unlock are two
/// atomic instructions, against some forty instructions for a pthread mutex pair, on the path
/// every allocation and deallocation takes). Held only for a probe, or by a snapshot for one
/// shard's holds; waiters yield the processor after a short spin.
typedef _Atomic int lg_spin_lock;

__attribute__((noinline)) static void lg_lock_slow(lg_spin_lock *lock) {
    for (unsigned spins = 0;; spins++) {
        while (atomic_load_explicit(lock, memory_order_relaxed)) {
            if (spins++ > 64) sched_yield();
#if defined(__x86_64__)
            else __builtin_ia32_pause();
#endif
        }
        if (!atomic_exchange_explicit(lock, 1, memory_order_acquire)) return;
    }
}

static inline void lg_lock(lg_spin_lock *lock) {
    if (__builtin_expect(atomic_exchange_explicit(lock, 1, memory_order_acquire), 0)) lg_lock_slow(lock);
}

static inline void lg_unlock(lg_spin_lock *lock) { atomic_store_explicit(lock, 0, memory_order_release); }

typedef struct {
    lg_spin_lock lock;
    lg_record *slots;
    size_t capacity;  // a power of two, or 0
    size_t count;
} __attribute__((aligned(64))) lg_shard;  // one cache line each: shards do not share lines

static lg_shard lg_shards[lg_shard_count];
static pthread_once_t lg_setup_once = PTHREAD_ONCE_INIT;
static uint64_t lg_start_nanoseconds;

static inline uint64_t lg_mix(uintptr_t address) {
    // The whole address, multiplied: malloc's arenas are 64 MiB aligned, so low bits collide.
    return (uint64_t)(address >> 4) * 0x9E3779B97F4A7C15ull;
}

static inline lg_shard *lg_shard_of(uint64_t hash) { return &lg_shards[hash >> (64 - lg_shard_bits)]; }

/// An address's home slot in its shard of `capacity` slots (a power of two, at least 256): the
/// hash's bits just under the shard's. A multiplicative hash's high bits depend on the whole
/// address; its low bits only on the address's low bits, which repeat at an allocation size's
/// stride (objects of one 64-byte malloc size class had one home slot in four: inserting took 22
/// probes on average where these bits take under one: Tools/Benchmarks/README.md).
static inline size_t lg_home(uint64_t hash, size_t capacity) {
    return (size_t)((hash << lg_shard_bits) >> (64 - __builtin_ctzll((unsigned long long)capacity)));
}

// A shard's first table: 256 slots (6 KB; all 64 shards 384 KB). A test process of a few thousand
// objects needs no more, and zeroing 1,024-slot tables (1.5 MB) was a tenth of what whole-process
// tracking cost one (instructions, Tools/Benchmarks/README.md); a big process grows each shard
// twice more, rehashing under 600 records.
enum { lg_first_shard_capacity = 256 };

static int lg_grow(lg_shard *shard) {
    size_t capacity = shard->capacity ? shard->capacity * 2 : lg_first_shard_capacity;
    lg_record *slots = calloc(capacity, sizeof(lg_record));
    if (slots == NULL) return 0;
    size_t mask = capacity - 1;
    for (size_t i = 0; i < shard->capacity; i++) {
        lg_record record = shard->slots[i];
        if (record.key == 0) continue;
        size_t index = lg_home(lg_mix(lg_record_address(record)), capacity);
        while (slots[index].key != 0) index = (index + 1) & mask;
        slots[index] = record;
    }
    free(shard->slots);
    shard->slots = slots;
    shard->capacity = capacity;
    return 1;
}

// Stale records found, since tracking began: by snapshots (see lg_take_holds) and by allocations
// of memory a record still names (see lg_insert).
static _Atomic size_t lg_stale_records = 0;

// Objects left out because a record's key cannot hold them: at an address above 2^48 or not
// 16-byte aligned (none on x86-64 and arm64 Linux), or of a type past the millionth.
static _Atomic size_t lg_unrecordable = 0;

static void lg_insert(uintptr_t address, int32_t stack, uint32_t scope, uint32_t type) {
    if (__builtin_expect(!lg_recordable_address(address) || type == 0, 0)) {
        atomic_fetch_add_explicit(&lg_unrecordable, 1, memory_order_relaxed);
        return;
    }
    uint64_t hash = lg_mix(address);
    uint64_t key = lg_key(address, type), addressPart = lg_address_part(address);
    lg_shard *shard = lg_shard_of(hash);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    uint64_t nanoseconds = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    uint32_t milliseconds = (uint32_t)((nanoseconds - lg_start_nanoseconds) / 1000000ull);
    uint64_t id = atomic_fetch_add_explicit(&lg_object_ids, 1, memory_order_relaxed);
    lg_lock(&shard->lock);
    if ((shard->count + 1) * 4 > shard->capacity * 3 && !lg_grow(shard)) {
        lg_unlock(&shard->lock);
        return;  // out of memory: the object stays unrecorded (invisible, never wrong)
    }
    size_t mask = shard->capacity - 1;
    size_t index = lg_home(hash, shard->capacity);
    uint64_t packed = (id & ((1ull << lg_id_bits) - 1)) | ((uint64_t)(uint32_t)(stack + 1) << lg_id_bits);
    while (shard->slots[index].key != 0) {
        if (lg_record_is(shard->slots[index], addressPart)) {
            // A record of memory the allocator has just handed out again is stale (its object was
            // freed without passing through the interposed deallocation, see lg_take_holds): the
            // new object takes its slot, so no address is ever recorded twice.
            shard->slots[index] = (lg_record){key, packed, milliseconds, scope};
            lg_unlock(&shard->lock);
            atomic_fetch_add_explicit(&lg_stale_records, 1, memory_order_relaxed);
            return;
        }
        index = (index + 1) & mask;
    }
    shard->slots[index] = (lg_record){key, packed, milliseconds, scope};
    shard->count++;
    lg_unlock(&shard->lock);
}

/// Removes `address`'s record, if any (linear probing with backward-shift deletion: no
/// tombstones, so lookups stay short however many objects come and go).
__attribute__((noinline)) static void lg_remove(uintptr_t address) {
    uint64_t hash = lg_mix(address), addressPart = lg_address_part(address);
    lg_shard *shard = lg_shard_of(hash);
    lg_lock(&shard->lock);
    if (shard->count == 0) {
        lg_unlock(&shard->lock);
        return;
    }
    size_t mask = shard->capacity - 1;
    size_t index = lg_home(hash, shard->capacity);
    while (!lg_record_is(shard->slots[index], addressPart)) {
        if (shard->slots[index].key == 0) {
            lg_unlock(&shard->lock);
            return;  // not recorded (allocated before tracking began, or left out)
        }
        index = (index + 1) & mask;
    }
    size_t hole = index;
    size_t next = (hole + 1) & mask;
    while (shard->slots[next].key != 0) {
        size_t home = lg_home(lg_mix(lg_record_address(shard->slots[next])), shard->capacity);
        // Move the entry back into the hole unless its home lies cyclically in (hole, next].
        int stays = (hole <= next) ? (hole < home && home <= next) : (hole < home || home <= next);
        if (!stays) {
            shard->slots[hole] = shard->slots[next];
            hole = next;
        }
        next = (next + 1) & mask;
    }
    shard->slots[hole].key = 0;
    shard->count--;
    lg_unlock(&shard->lock);
}

// MARK: Types (the heap metadata objects are allocated with, interned: a record keeps a 20-bit
// number for it in its key's spare bits, 24 bytes a record instead of 32)

enum {
    lg_type_bits = 64 - lg_address_bits,
    lg_type_limit = 1 << lg_type_bits,  // number 0 is none
    lg_type_chunk_bits = 12,
    lg_type_chunk_size = 1 << lg_type_chunk_bits,
};

/// The metadata of each type number, in chunks that never move once published: a snapshot reads
/// them under a shard lock without taking the types' lock.
static uintptr_t *_Atomic lg_type_chunks[lg_type_limit / lg_type_chunk_size];
static pthread_mutex_t lg_types_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t lg_type_count = 1;  // under the lock
static uint32_t *lg_type_index;     // open addressing, metadata → number (0: empty), under the lock
static uint32_t lg_type_index_capacity;

static inline uintptr_t lg_type_metadata(uint32_t type) {
    uintptr_t *chunk = atomic_load_explicit(&lg_type_chunks[type >> lg_type_chunk_bits], memory_order_acquire);
    return chunk != NULL ? chunk[type & (lg_type_chunk_size - 1)] : 0;
}

static inline uint32_t lg_type_slot(uintptr_t metadata, uint32_t capacity) {
    return (uint32_t)(((uint64_t)metadata * 0x9E3779B97F4A7C15ull) >> 32) & (capacity - 1);
}

/// The number of `metadata`, interned if new; 0 when there are too many (or memory ran out).
static uint32_t lg_intern_type(uintptr_t metadata) {
    pthread_mutex_lock(&lg_types_lock);
    uint32_t result = 0;
    if (lg_type_index_capacity == 0 || (lg_type_count + 1) * 2 > lg_type_index_capacity) {
        uint32_t capacity = lg_type_index_capacity ? lg_type_index_capacity * 2 : 1024;
        uint32_t *index = capacity <= 2 * lg_type_limit ? calloc(capacity, sizeof(uint32_t)) : NULL;
        if (index == NULL) goto done;
        for (uint32_t type = 1; type < lg_type_count; type++) {
            uint32_t slot = lg_type_slot(lg_type_metadata(type), capacity);
            while (index[slot] != 0) slot = (slot + 1) & (capacity - 1);
            index[slot] = type;
        }
        free(lg_type_index);
        lg_type_index = index;
        lg_type_index_capacity = capacity;
    }
    uint32_t mask = lg_type_index_capacity - 1;
    uint32_t slot = lg_type_slot(metadata, lg_type_index_capacity);
    while (lg_type_index[slot] != 0) {
        if (lg_type_metadata(lg_type_index[slot]) == metadata) {
            result = lg_type_index[slot];
            goto done;
        }
        slot = (slot + 1) & mask;
    }
    if (lg_type_count >= lg_type_limit) goto done;
    uint32_t type = lg_type_count;
    uintptr_t *chunk = atomic_load_explicit(&lg_type_chunks[type >> lg_type_chunk_bits], memory_order_relaxed);
    if (chunk == NULL) {
        chunk = calloc(lg_type_chunk_size, sizeof(uintptr_t));
        if (chunk == NULL) goto done;
    }
    chunk[type & (lg_type_chunk_size - 1)] = metadata;
    // Published after its entry is written: a reader that sees the chunk sees the entry.
    atomic_store_explicit(&lg_type_chunks[type >> lg_type_chunk_bits], chunk, memory_order_release);
    lg_type_index[slot] = type;
    lg_type_count++;
    result = type;
done:
    pthread_mutex_unlock(&lg_types_lock);
    return result;
}

// The types this thread met lately (direct-mapped by metadata): a program allocates a few types
// again and again, and a hit costs a load and a compare, no lock.
enum { lg_recent_type_bits = 5 };
typedef struct {
    uintptr_t metadata;
    uint32_t type;
} lg_recent_type;
static __thread lg_recent_type lg_thread_recent_types[1 << lg_recent_type_bits];

static inline uint32_t lg_type_of(uintptr_t metadata) {
    lg_recent_type *recent =
        &lg_thread_recent_types[((uint64_t)metadata * 0x9E3779B97F4A7C15ull) >> (64 - lg_recent_type_bits)];
    // Metadata is never 0: a zeroed entry never matches.
    if (__builtin_expect(recent->metadata == metadata, 1)) return recent->type;
    uint32_t type = lg_intern_type(metadata);
    if (type != 0) *recent = (lg_recent_type){metadata, type};
    return type;
}

// MARK: Stacks (interned in C: the allocation hook cannot take the registry's lock, which the
// allocating thread may already hold)

typedef struct {
    uint64_t hash;
    uint32_t offset;  // into lg_frames
    uint32_t count;
} lg_stack_entry;

static pthread_mutex_t lg_stacks_lock = PTHREAD_MUTEX_INITIALIZER;
static lg_stack_entry *lg_stack_entries;  // by id
static uint32_t lg_stack_count, lg_stack_capacity;
static int32_t *lg_stack_index;  // open addressing: id + 1, 0 empty
static uint32_t lg_stack_index_capacity;
static uintptr_t *lg_frames;
static size_t lg_frame_count, lg_frame_capacity;
enum { lg_stack_limit = 1000000 };

static int32_t lg_intern_stack(const uintptr_t *frames, int count) {
    uint64_t hash = 1469598103934665603ull;
    for (int i = 0; i < count; i++) hash = (hash ^ frames[i]) * 1099511628211ull;
    pthread_mutex_lock(&lg_stacks_lock);
    int32_t result = -1;
    if (lg_stack_index_capacity == 0 || (lg_stack_count + 1) * 2 > lg_stack_index_capacity) {
        if (lg_stack_count >= lg_stack_limit) goto done;
        uint32_t capacity = lg_stack_index_capacity ? lg_stack_index_capacity * 2 : 4096;
        int32_t *index = calloc(capacity, sizeof(int32_t));
        if (index == NULL) goto done;
        for (uint32_t id = 0; id < lg_stack_count; id++) {
            uint32_t slot = (uint32_t)lg_stack_entries[id].hash & (capacity - 1);
            while (index[slot] != 0) slot = (slot + 1) & (capacity - 1);
            index[slot] = (int32_t)id + 1;
        }
        free(lg_stack_index);
        lg_stack_index = index;
        lg_stack_index_capacity = capacity;
    }
    uint32_t mask = lg_stack_index_capacity - 1;
    uint32_t slot = (uint32_t)hash & mask;
    while (lg_stack_index[slot] != 0) {
        lg_stack_entry *entry = &lg_stack_entries[lg_stack_index[slot] - 1];
        if (entry->hash == hash && entry->count == (uint32_t)count
            && memcmp(&lg_frames[entry->offset], frames, (size_t)count * sizeof(uintptr_t)) == 0) {
            result = lg_stack_index[slot] - 1;
            goto done;
        }
        slot = (slot + 1) & mask;
    }
    if (lg_stack_count >= lg_stack_limit) goto done;
    if (lg_stack_count == lg_stack_capacity) {
        uint32_t capacity = lg_stack_capacity ? lg_stack_capacity * 2 : 1024;
        lg_stack_entry *entries = realloc(lg_stack_entries, capacity * sizeof(lg_stack_entry));
        if (entries == NULL) goto done;
        lg_stack_entries = entries;
        lg_stack_capacity = capacity;
    }
    if (lg_frame_count + (size_t)count > lg_frame_capacity) {
        size_t capacity = lg_frame_capacity ? lg_frame_capacity * 2 : 16384;
        while (capacity < lg_frame_count + (size_t)count) capacity *= 2;
        uintptr_t *grown = realloc(lg_frames, capacity * sizeof(uintptr_t));
        if (grown == NULL) goto done;
        lg_frames = grown;
        lg_frame_capacity = capacity;
    }
    memcpy(&lg_frames[lg_frame_count], frames, (size_t)count * sizeof(uintptr_t));
    lg_stack_entries[lg_stack_count] = (lg_stack_entry){hash, (uint32_t)lg_frame_count, (uint32_t)count};
    lg_frame_count += (size_t)count;
    lg_stack_index[slot] = (int32_t)lg_stack_count + 1;
    result = (int32_t)lg_stack_count++;
done:
    pthread_mutex_unlock(&lg_stacks_lock);
    return result;
}

int lg_process_stack_frames(int32_t stack, uintptr_t *buffer, int capacity) {
    pthread_mutex_lock(&lg_stacks_lock);
    int written = 0;
    if (stack >= 0 && (uint32_t)stack < lg_stack_count) {
        lg_stack_entry entry = lg_stack_entries[stack];
        written = (int)entry.count < capacity ? (int)entry.count : capacity;
        memcpy(buffer, &lg_frames[entry.offset], (size_t)written * sizeof(uintptr_t));
    }
    pthread_mutex_unlock(&lg_stacks_lock);
    return written;
}

// MARK: Set-up

static int lg_find_core(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    uintptr_t inside = (uintptr_t)data;
    uintptr_t low = UINTPTR_MAX, high = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        uintptr_t end = start + header->p_memsz;
        if (start < low) low = start;
        if (end > high) high = end;
    }
    if (low <= inside && inside < high) {
        lg_core_start = low;
        lg_core_end = high;
        return 1;
    }
    return 0;
}

static void lg_setup(void) {
    real_alloc = (lg_alloc_fn)dlsym(RTLD_NEXT, "swift_allocObject");
    real_dealloc_class = (lg_dealloc_fn)dlsym(RTLD_NEXT, "swift_deallocClassInstance");
    real_dealloc_object = (lg_dealloc_fn)dlsym(RTLD_NEXT, "swift_deallocObject");
    real_dealloc_uninitialized = (lg_dealloc_fn)dlsym(RTLD_NEXT, "swift_deallocUninitializedObject");
    real_dealloc_partial = (lg_dealloc_partial_fn)dlsym(RTLD_NEXT, "swift_deallocPartialClassInstance");
    real_is_escaping = (lg_is_escaping_fn)dlsym(RTLD_NEXT, "swift_isEscapingClosureAtFileLocation");
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    lg_start_nanoseconds = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    if (real_alloc == NULL) return;
    dl_iterate_phdr(lg_find_core, (void *)real_alloc);
    // Interposed only when the process resolves the name to this file's definition and the
    // next definition is a different one (the runtime's).
    void *resolved = dlsym(RTLD_DEFAULT, "swift_allocObject");
    lg_interposed = real_dealloc_class != NULL && real_dealloc_object != NULL && real_dealloc_partial != NULL
                    && real_dealloc_uninitialized != NULL && lg_core_end != 0 && resolved != (void *)real_alloc;
}

static inline void lg_ensure_setup(void) {
    if (__builtin_expect(real_alloc == NULL, 0)) pthread_once(&lg_setup_once, lg_setup);
}

// MARK: The interposed entry points

/// Whether objects of this heap metadata are recorded: class instances and heap local variables
/// whose destroy function is outside libswiftCore.
static inline int lg_records_kind(const void *metadata) {
    uintptr_t kind = *(const uintptr_t *)metadata;
    if (kind != 0 && kind != 0x400) return 0;
    uintptr_t destroy = ((const uintptr_t *)metadata)[-2];
    return destroy < lg_core_start || destroy >= lg_core_end;
}

// The stacks this thread interned last, one per innermost frame (direct-mapped by it): a loop
// allocating at a few lines (an object, its array's growth, a closure) captures the same frames
// again and again, and comparing them with the remembered ones (one memcmp) replaces hashing
// them, taking the stack table's lock and probing it. Ids are never reused (the table only grows),
// so a remembered id stays right for the life of the process, and of a forked child.
enum { lg_recent_bits = 3, lg_recent_stacks = 1 << lg_recent_bits, lg_recent_frames = 64 };
typedef struct {
    int32_t stack;
    int count;
    uintptr_t frames[lg_recent_frames];
} lg_recent_stack;
static __thread lg_recent_stack lg_thread_recent_stacks[lg_recent_stacks];

static int32_t lg_intern_stack_of_thread(const uintptr_t *frames, int count) {
    lg_recent_stack *recent =
        &lg_thread_recent_stacks[(frames[0] * 0x9E3779B97F4A7C15ull) >> (64 - lg_recent_bits)];
    // A zeroed entry has count 0, which no capture has (count > 0 here): never a false hit.
    if (recent->count == count && memcmp(recent->frames, frames, (size_t)count * sizeof(uintptr_t)) == 0)
        return recent->stack;
    int32_t stack = lg_intern_stack(frames, count);
    if (stack >= 0 && count <= lg_recent_frames) {
        memcpy(recent->frames, frames, (size_t)count * sizeof(uintptr_t));
        recent->count = count;
        recent->stack = stack;
    }
    return stack;
}

// The whole-process stacks this thread interned for repeated captures (keyed_stacks.h; the first
// frame is the allocating line): a repeated capture's stack is found without comparing or hashing
// its frames, where the recent stacks above (one per innermost frame, 8 entries) missed 4 of 10
// allocations of a function allocating at many lines and took the stack table's lock.
static __thread lg_keyed_stacks lg_thread_keyed_stacks;

static inline int32_t lg_intern_repeated_stack(uint64_t token, const uintptr_t *frames, int count) {
    int32_t known = lg_keyed_find(&lg_thread_keyed_stacks, token, frames[0], count);
    if (known >= 0) return known;
    int32_t stack = lg_intern_stack_of_thread(frames, count);
    lg_keyed_keep(&lg_thread_keyed_stacks, token, frames[0], count, stack);
    return stack;
}

// `pc`, `sp`, `rbp`: the frame that called swift_allocObject (see lg_alloc_recording).
__attribute__((noinline)) static void lg_record_allocation(void *object, const void *metadata, size_t size,
                                                           uintptr_t pc, uintptr_t sp, uintptr_t rbp) {
    if (!lg_records_kind(metadata)) return;
    // Zero the body (after the metadata and reference-count words) so that a snapshot never
    // mistakes a not-yet-initialised field for a reference.
    if (size > 16) memset((char *)object + 16, 0, size - 16);
    lg_in_hook++;
    int32_t stack = -1;
    int depth = atomic_load_explicit(&lg_stack_depth, memory_order_relaxed);
    if (depth > 0) {
        int interval = atomic_load_explicit(&lg_stack_interval, memory_order_relaxed);
        if (interval <= 1
            || atomic_fetch_add_explicit(&lg_stack_counter, 1, memory_order_relaxed) % (uint64_t)interval == 0) {
            uintptr_t frames[128];
            // From the allocating frame: LeakGraph's own frames are not walked. Else skips this
            // function and swift_allocObject.
            int capacity = depth < 128 ? depth : 128;
            uint64_t repeat = 0;
            int count = lg_capture_stack_from(pc, sp, rbp, frames, capacity, &repeat);
            if (count < 0) count = lg_capture_stack(frames, capacity, 2);
            if (count > 0) {
                stack = repeat != 0 ? lg_intern_repeated_stack(repeat, frames, count)
                                    : lg_intern_stack_of_thread(frames, count);
            }
        }
    }
    // The provider (Swift) only while some leak scope is open: outside any, no Swift code runs
    // here. (Under the thread sanitizer every access to a Swift lazy global takes the runtime's
    // once lock, and a child forked while another thread held it hung on its first allocation.)
    uint32_t (*provider)(void) = atomic_load_explicit(&lg_scope_provider, memory_order_acquire);
    uint32_t scope = provider != NULL && lg_open_scope_count() > 0 ? provider() : 0;
    lg_in_hook--;
    lg_insert((uintptr_t)object, stack, scope, lg_type_of((uintptr_t)metadata));
}

// The passive path (recording off) is a load, a test and a tail call into the runtime: a few
// instructions per allocation and deallocation for every program that links LeakGraph.

__attribute__((noinline)) static void *lg_alloc_recording(const void *metadata, size_t size, size_t alignMask) {
    void *object = real_alloc(metadata, size, alignMask);
    if (!lg_in_hook) {
        // swift_allocObject tail-calls this function, so it returns straight into the code that
        // allocated: taking this frame's address gives it a frame pointer, [frame] holds that
        // code's rbp and frame + 16 is its stack pointer at the call. The stack is walked from
        // there (as lg_capture_stack walks from its caller).
        uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
        lg_record_allocation(object, metadata, size, (uintptr_t)__builtin_return_address(0), frame + 16,
                             *(const uintptr_t *)frame);
    }
    return object;
}

__attribute__((weak, visibility("default"))) void *swift_allocObject(const void *metadata, size_t size,
                                                                     size_t alignMask) {
    lg_ensure_setup();
    if (__builtin_expect(!atomic_load_explicit(&lg_recording, memory_order_relaxed), 1))
        return real_alloc(metadata, size, alignMask);
    return lg_alloc_recording(metadata, size, alignMask);
}

#define LG_FORGET(object)                                                                          \
    if (__builtin_expect(atomic_load_explicit(&lg_recording, memory_order_relaxed), 0)) lg_remove((uintptr_t)(object))

__attribute__((weak, visibility("default"))) void swift_deallocClassInstance(void *object, size_t size,
                                                                             size_t alignMask) {
    lg_ensure_setup();
    LG_FORGET(object);
    real_dealloc_class(object, size, alignMask);
}

__attribute__((weak, visibility("default"))) void swift_deallocObject(void *object, size_t size, size_t alignMask) {
    lg_ensure_setup();
    LG_FORGET(object);
    real_dealloc_object(object, size, alignMask);
}

__attribute__((weak, visibility("default"))) void swift_deallocUninitializedObject(void *object, size_t size,
                                                                                   size_t alignMask) {
    lg_ensure_setup();
    LG_FORGET(object);
    real_dealloc_uninitialized(object, size, alignMask);
}

__attribute__((weak, visibility("default"))) void swift_deallocPartialClassInstance(void *object,
                                                                                    const void *metadata,
                                                                                    size_t size,
                                                                                    size_t alignMask) {
    lg_ensure_setup();
    LG_FORGET(object);
    real_dealloc_partial(object, metadata, size, alignMask);
}

// A closure passed to `withoutActuallyEscaping` (Swift Testing's `#expect(a && b)` in a debug
// build) is checked, when the block returns, to be referenced once: more, and
// the runtime says it escaped and the program traps. Its context is a recorded object, which a
// whole-process snapshot on another thread holds (`swift_tryRetain`) while it reads: without this,
// a leak check running in parallel with another test's `#expect` crashed that test's process.
// While snapshots' holds are outstanding, a recorded object referenced no more often than by
// those snapshots did not escape. (A closure that really escaped while a snapshot runs is then
// not reported: the check is a debugging aid; the crash was the program's end.)
__attribute__((weak, visibility("default"))) bool
swift_isEscapingClosureAtFileLocation(const void *object, const unsigned char *filename, int32_t filenameLength,
                                      int32_t line, int32_t column, unsigned verificationType) {
    lg_ensure_setup();
    if (object != NULL && atomic_load_explicit(&lg_recording, memory_order_relaxed)) {
        long snapshots = lg_snapshot_releases_in_flight();
        if (snapshots > 0) {
            // The inline count word: bit 63 a side table or immortal, bit 32 deinitialising, bits
            // 33-62 the strong references beyond the first.
            uint64_t bits = __atomic_load_n((const uint64_t *)object + 1, __ATOMIC_RELAXED);
            if ((bits >> 63) == 0 && (bits & (1ull << 32)) == 0
                && ((bits >> 33) & ((1ull << 30) - 1)) <= (uint64_t)snapshots
                && lg_process_is_recorded((uintptr_t)object))
                return false;
        }
    }
    if (real_is_escaping == NULL) return false;  // never reached: the runtime defines it
    return real_is_escaping(object, filename, filenameLength, line, column, verificationType);
}

int lg_is_escaping_closure_for_tests(const void *context) {
    return swift_isEscapingClosureAtFileLocation(context, (const unsigned char *)"", 0, 1, 1, 0);
}

// MARK: Control

int lg_process_tracking_available(void) {
    lg_ensure_setup();
    return lg_interposed;
}

int lg_process_tracking_start(void) {
    lg_ensure_setup();
    if (!lg_interposed) return 0;
    // Before the first record: a fork from now on must find every table lock free in its child.
    lg_fork_install_handlers();
    atomic_store_explicit(&lg_recording, 1, memory_order_release);
    return 1;
}

int lg_process_tracking_active(void) { return atomic_load_explicit(&lg_recording, memory_order_relaxed); }

size_t lg_process_home_slot(uintptr_t address, size_t capacity, int *shard) {
    uint64_t hash = lg_mix(address);
    *shard = (int)(lg_shard_of(hash) - lg_shards);
    if (capacity < lg_first_shard_capacity || (capacity & (capacity - 1)) != 0) return SIZE_MAX;  // never a shard's
    return lg_home(hash, capacity);
}

int lg_process_is_recorded(uintptr_t address) {
    if (!lg_recordable_address(address)) return 0;
    uint64_t hash = lg_mix(address), addressPart = lg_address_part(address);
    lg_shard *shard = lg_shard_of(hash);
    int found = 0;
    lg_lock(&shard->lock);
    if (shard->count != 0) {
        size_t mask = shard->capacity - 1;
        for (size_t index = lg_home(hash, shard->capacity); shard->slots[index].key != 0;
             index = (index + 1) & mask) {
            if (lg_record_is(shard->slots[index], addressPart)) {
                found = 1;
                break;
            }
        }
    }
    lg_unlock(&shard->lock);
    return found;
}

void lg_process_suppress(int delta) { lg_in_hook += delta; }

void lg_process_set_stacks(int depth, int interval) {
    atomic_store_explicit(&lg_stack_depth, depth, memory_order_relaxed);
    atomic_store_explicit(&lg_stack_interval, interval, memory_order_relaxed);
}

void lg_process_set_scope_provider(uint32_t (*provider)(void)) {
    atomic_store_explicit(&lg_scope_provider, provider, memory_order_release);
}

size_t lg_process_record_count(void) {
    size_t total = 0;
    for (int i = 0; i < lg_shard_count; i++) {
        lg_lock(&lg_shards[i].lock);
        total += lg_shards[i].count;
        lg_unlock(&lg_shards[i].lock);
    }
    return total;
}

size_t lg_process_table_bytes(void) {
    size_t total = 0;
    for (int i = 0; i < lg_shard_count; i++) {
        lg_lock(&lg_shards[i].lock);
        total += lg_shards[i].capacity * sizeof(lg_record);
        lg_unlock(&lg_shards[i].lock);
    }
    pthread_mutex_lock(&lg_stacks_lock);
    total += lg_stack_capacity * sizeof(lg_stack_entry) + lg_stack_index_capacity * sizeof(int32_t)
             + lg_frame_capacity * sizeof(uintptr_t);
    pthread_mutex_unlock(&lg_stacks_lock);
    pthread_mutex_lock(&lg_types_lock);
    total += lg_type_index_capacity * sizeof(uint32_t)
             + ((lg_type_count + lg_type_chunk_size - 1) >> lg_type_chunk_bits) * lg_type_chunk_size * sizeof(uintptr_t);
    pthread_mutex_unlock(&lg_types_lock);
    return total;
}

uint64_t lg_process_start_nanoseconds(void) { return lg_start_nanoseconds; }

static int lg_address_excluded(uintptr_t address, const uintptr_t *excluded, size_t excludedCount) {
    size_t low = 0, high = excludedCount;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (excluded[middle] < address) low = middle + 1;
        else high = middle;
    }
    return low < excludedCount && excluded[low] == address;
}

static int lg_id_listed(uint64_t id, const uint64_t *ids, size_t count) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (ids[mid] < id) low = mid + 1; else high = mid;
    }
    return low < count && ids[low] == id;
}

// MARK: Stale records

/// Whether the record's object is still the one recorded: its memory starts with the metadata it
/// was allocated with (`*metadata`). A record is stale when its object was freed by a path the
/// interposed deallocation did not see (found running GRDB's suite: Foundation's CF-backed
/// instances such as NSURL, and a few plain classes, by a path not yet identified): its memory may
/// hold anything now, and `swift_tryRetain` or a dying check on it crashed. Under the record's
/// shard lock (a recorded object is not freed meanwhile).
static int lg_still_allocated(lg_record record, uintptr_t *metadata) {
    *metadata = lg_type_metadata(lg_record_type(record));
    if (*(const uintptr_t *)lg_record_address(record) != *metadata) {
        atomic_fetch_add_explicit(&lg_stale_records, 1, memory_order_relaxed);
        return 0;
    }
    return 1;
}

// Nanoseconds the last lg_take_holds kept shard locks, in all and at most at once.
static _Atomic uint64_t lg_last_hold_total = 0;
static _Atomic uint64_t lg_last_hold_longest = 0;

static uint64_t lg_now_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

// Holds every record not in `excluded` (sorted addresses) or, when `onlyIDs` is given, only the
// records whose id it lists (sorted).
static size_t lg_take_holds(const uintptr_t *excluded, size_t excludedCount, const uint64_t *onlyIDs,
                            size_t onlyCount, lg_process_object **result) {
    *result = NULL;
    if (!atomic_load_explicit(&lg_recording, memory_order_acquire)) return 0;
    size_t capacity = 0, count = 0;
    lg_process_object *objects = NULL;
    uint64_t heldTotal = 0, heldLongest = 0;
    // One shard at a time: allocation elsewhere in the process waits for at most one shard's
    // worth of holds. The buffer is grown outside the shard lock (malloc may allocate).
    for (int i = 0; i < lg_shard_count; i++) {
        lg_shard *shard = &lg_shards[i];
        uint64_t lockedAt;
        for (;;) {
            lg_lock(&shard->lock);
            lockedAt = lg_now_nanoseconds();
            size_t wanted = onlyIDs != NULL && onlyCount < shard->count ? onlyCount : shard->count;
            if (count + wanted <= capacity) break;
            size_t needed = count + wanted;
            lg_unlock(&shard->lock);
            size_t grown = capacity ? capacity : 4096;
            while (grown < needed + needed / 8) grown *= 2;
            lg_process_object *bigger = realloc(objects, grown * sizeof(lg_process_object));
            if (bigger == NULL) {
                // Out of memory: release what is held and report nothing.
                for (size_t j = 0; j < count; j++) lg_process_release(objects[j].address);
                free(objects);
                return 0;
            }
            objects = bigger;
            capacity = grown;
        }
        lg_in_hook++;
        for (size_t slot = 0; slot < shard->capacity; slot++) {
            lg_record record = shard->slots[slot];
            if (record.key == 0) continue;
            uintptr_t address = lg_record_address(record), metadata;
            if (excludedCount > 0 && lg_address_excluded(address, excluded, excludedCount)) continue;
            if (onlyIDs != NULL && !lg_id_listed(lg_record_id(record), onlyIDs, onlyCount)) continue;
            // A stale record (see lg_still_allocated) is never held. (A Core Foundation object
            // whose class CF changed after allocation is left out too: it is Foundation's, never
            // the user's.)
            if (!lg_still_allocated(record, &metadata)) continue;
            if (!lg_try_retain((void *)address)) continue;  // deinitialising: dying, not alive
            objects[count++] = (lg_process_object){
                address, metadata, lg_record_id(record),
                lg_start_nanoseconds + (uint64_t)record.milliseconds * 1000000ull, lg_record_stack(record),
                record.scope};
        }
        lg_in_hook--;
        uint64_t held = lg_now_nanoseconds() - lockedAt;
        lg_unlock(&shard->lock);
        heldTotal += held;
        if (held > heldLongest) heldLongest = held;
    }
    atomic_store_explicit(&lg_last_hold_total, heldTotal, memory_order_relaxed);
    atomic_store_explicit(&lg_last_hold_longest, heldLongest, memory_order_relaxed);
    *result = objects;
    return count;
}

size_t lg_process_take_holds(const uintptr_t *excluded, size_t excludedCount, lg_process_object **result) {
    return lg_take_holds(excluded, excludedCount, NULL, 0, result);
}

size_t lg_process_take_holds_of(const uintptr_t *excluded, size_t excludedCount, const uint64_t *ids, size_t count,
                                lg_process_object **result) {
    if (count == 0) {
        *result = NULL;
        return 0;
    }
    return lg_take_holds(excluded, excludedCount, ids, count, result);
}

size_t lg_process_stale_record_count(void) { return atomic_load_explicit(&lg_stale_records, memory_order_relaxed); }

void lg_process_record_for_tests(uintptr_t address, uintptr_t metadata) {
    if (atomic_load_explicit(&lg_recording, memory_order_acquire)) lg_insert(address, -1, 0, lg_type_of(metadata));
}

void lg_process_forget_for_tests(uintptr_t address) { lg_remove(address); }

size_t lg_process_unrecordable_count(void) { return atomic_load_explicit(&lg_unrecordable, memory_order_relaxed); }

void lg_process_last_hold_nanoseconds(uint64_t *total, uint64_t *longest) {
    *total = atomic_load_explicit(&lg_last_hold_total, memory_order_relaxed);
    *longest = atomic_load_explicit(&lg_last_hold_longest, memory_order_relaxed);
}

size_t lg_process_live_ids(uint32_t scope, uint64_t minimumID, uint64_t **result) {
    *result = NULL;
    if (!atomic_load_explicit(&lg_recording, memory_order_acquire)) return 0;
    size_t capacity = 0, count = 0;
    uint64_t *ids = NULL;
    for (int i = 0; i < lg_shard_count; i++) {
        lg_shard *shard = &lg_shards[i];
        lg_lock(&shard->lock);
        for (size_t slot = 0; slot < shard->capacity; slot++) {
            lg_record record = shard->slots[slot];
            if (record.key == 0 || record.scope != scope || lg_record_id(record) < minimumID) continue;
            // Under the shard lock a recorded object cannot be freed (its deallocation waits
            // here to remove the record), so asking whether it is dying reads live memory — but
            // for a stale record (see lg_still_allocated), whose memory may hold anything.
            uintptr_t metadata;
            if (!lg_still_allocated(record, &metadata)) continue;
            if (lg_is_deallocating((void *)lg_record_address(record))) continue;
            if (count == capacity) {
                size_t grown = capacity ? capacity * 2 : 64;
                uint64_t *bigger = realloc(ids, grown * sizeof(uint64_t));
                if (bigger == NULL) break;
                ids = bigger;
                capacity = grown;
            }
            ids[count++] = lg_record_id(record);
        }
        lg_unlock(&shard->lock);
    }
    *result = ids;
    return count;
}

// Held across fork() (fork_safety.c): the stack table, then every shard. No code waits for
// anything while holding one of these, so they are taken after the Swift side's locks.
void lg_process_fork_prepare(void) {
    pthread_mutex_lock(&lg_types_lock);
    pthread_mutex_lock(&lg_stacks_lock);
    for (int i = 0; i < lg_shard_count; i++) lg_lock(&lg_shards[i].lock);
}

void lg_process_fork_release(void) {
    for (int i = lg_shard_count - 1; i >= 0; i--) lg_unlock(&lg_shards[i].lock);
    pthread_mutex_unlock(&lg_stacks_lock);
    pthread_mutex_unlock(&lg_types_lock);
}

#else  // whole-process tracking is Linux-only, and compiled out by the LeakGraphDisabled trait

void lg_process_fork_prepare(void) {}
void lg_process_fork_release(void) {}
int lg_process_tracking_available(void) { return 0; }
int lg_process_tracking_start(void) { return 0; }
int lg_process_tracking_active(void) { return 0; }
size_t lg_process_home_slot(uintptr_t address, size_t capacity, int *shard) {
    (void)address;
    (void)capacity;
    *shard = 0;
    return SIZE_MAX;
}
int lg_process_is_recorded(uintptr_t address) {
    (void)address;
    return 0;
}
void lg_process_suppress(int delta) { (void)delta; }
void lg_process_set_stacks(int depth, int interval) {
    (void)depth;
    (void)interval;
}
void lg_process_set_scope_provider(uint32_t (*provider)(void)) { (void)provider; }
size_t lg_process_record_count(void) { return 0; }
size_t lg_process_table_bytes(void) { return 0; }
uint64_t lg_process_start_nanoseconds(void) { return 0; }
int lg_process_stack_frames(int32_t stack, uintptr_t *buffer, int capacity) {
    (void)stack;
    (void)buffer;
    (void)capacity;
    return 0;
}
size_t lg_process_live_ids(uint32_t scope, uint64_t minimumID, uint64_t **result) {
    (void)scope;
    (void)minimumID;
    *result = NULL;
    return 0;
}
size_t lg_process_take_holds(const uintptr_t *excluded, size_t excludedCount, lg_process_object **result) {
    (void)excluded;
    (void)excludedCount;
    *result = NULL;
    return 0;
}

size_t lg_process_take_holds_of(const uintptr_t *excluded, size_t excludedCount, const uint64_t *ids, size_t count,
                                lg_process_object **result) {
    (void)excluded;
    (void)excludedCount;
    (void)ids;
    (void)count;
    *result = NULL;
    return 0;
}

size_t lg_process_stale_record_count(void) { return 0; }

void lg_process_record_for_tests(uintptr_t address, uintptr_t metadata) {
    (void)address;
    (void)metadata;
}

void lg_process_forget_for_tests(uintptr_t address) { (void)address; }

size_t lg_process_unrecordable_count(void) { return 0; }

int lg_is_escaping_closure_for_tests(const void *context) {
    (void)context;
    return 0;
}

void lg_process_last_hold_nanoseconds(uint64_t *total, uint64_t *longest) {
    *total = 0;
    *longest = 0;
}

#endif

extern void swift_release(void *object);

void lg_process_release(uintptr_t address) { swift_release((void *)address); }

void lg_process_free(lg_process_object *objects) { free(objects); }

void lg_process_free_ids(uint64_t *ids) { free(ids); }

/// Defined by the LeakGraph module (`ProcessTracking.startedFromEnvironment`): reads the rest of
/// the configuration (stack mode, dump at exit) in Swift.
extern void lg_swift_process_tracking_started(void) __attribute__((weak));

/// Why `LEAKGRAPH_TRACK` asked for something that is not happening (empty when it did not): kept
/// so that the dump records it and readers refuse to call the run clean.
static char lg_tracking_problem[256];

const char *lg_process_tracking_problem(void) { return lg_tracking_problem[0] != 0 ? lg_tracking_problem : NULL; }

static void lg_say_tracking_problem(const char *format, const char *value) {
    snprintf(lg_tracking_problem, sizeof lg_tracking_problem, format, value);
    fprintf(stderr, "leakgraph: %s\n", lg_tracking_problem);
}

// `LEAKGRAPH_TRACK=all` starts recording before `main` (and before a test runner's own code).
__attribute__((constructor)) static void lg_process_tracking_from_environment(void) {
    const char *value = getenv("LEAKGRAPH_TRACK");
    if (value == NULL || value[0] == 0) return;
    // Spelled off: quietly nothing (as LEAKGRAPH=off is read), whatever the case.
    if (strcasecmp(value, "off") == 0 || strcmp(value, "0") == 0 || strcasecmp(value, "false") == 0
        || strcasecmp(value, "no") == 0 || strcasecmp(value, "none") == 0)
        return;
    if (strcasecmp(value, "all") != 0) {
        // Said, never silent: the variable was meant to turn something on.
        lg_say_tracking_problem("LEAKGRAPH_TRACK=%s ignored: its only value is `all` (record every Swift object)",
                                value);
        return;
    }
    const char *master = getenv("LEAKGRAPH");
    // Any case, as the Swift side reads LEAKGRAPH (LEAKGRAPH=OFF must not record while tracking is off).
    if (master != NULL
        && (strcasecmp(master, "off") == 0 || strcmp(master, "0") == 0 || strcasecmp(master, "false") == 0
            || strcasecmp(master, "no") == 0 || strcasecmp(master, "disabled") == 0))
        return;
    const char *stacks = getenv("LEAKGRAPH_STACKS");
    // The same default as tracked objects (all, 32 frames); the Swift side applies the full
    // LEAKGRAPH_STACKS syntax as soon as LeakGraph is first used.
    if (stacks == NULL) lg_process_set_stacks(32, 1);
    else if (strcmp(stacks, "off") == 0 || strcmp(stacks, "0") == 0) lg_process_set_stacks(0, 0);
    else lg_process_set_stacks(32, 1);
    if (!lg_process_tracking_start()) {
        // Said, never silent: a run that asked for every object and records none would pass every
        // check it makes.
#if defined(LEAKGRAPH_DISABLED)
        lg_say_tracking_problem("LEAKGRAPH_TRACK=%s ignored: LeakGraph is compiled out (the LeakGraphDisabled trait)",
                                value);
#elif defined(__linux__)
        lg_say_tracking_problem("LEAKGRAPH_TRACK=%s ignored: the Swift runtime's allocation entry points are not "
                                "LeakGraph's in this process (the runtime is linked statically, e.g. -static-stdlib, "
                                "or LeakGraph is in a shared library); nothing is recorded",
                                value);
#else
        lg_say_tracking_problem("LEAKGRAPH_TRACK=%s ignored: whole-process tracking is available on Linux only", value);
#endif
        return;
    }
    if (lg_swift_process_tracking_started != NULL) lg_swift_process_tracking_started();
}
