// What a thread made of a repeated capture's frames (an interned stack's number), kept under the
// capture's key: its remembered walk's token (stack_capture.c: never reused, the same frames while
// it stands), the first frame kept and the count, which together fix the frames. A repeated
// capture's stack is then found without comparing, hashing or locking. Four ways a set: a
// function allocating at a dozen lines shares one walk from its caller, and direct-mapped entries
// evicted each other every round. 64 entries of 24 bytes (thread-locals come out of every thread's
// stack). Written token last, and emptied first, so that a signal handler in between reads a miss,
// never a half-written entry. Private to CLeakGraphSupport; each user keeps its own table.
#ifndef LG_KEYED_STACKS_H
#define LG_KEYED_STACKS_H

#include <stdint.h>

enum { lg_keyed_set_bits = 4, lg_keyed_ways = 4 };

typedef struct {
    uint64_t token;  // 0: empty (tokens start at 1)
    uintptr_t first;
    int32_t stack;
    int32_t count;
} lg_keyed_stack;

typedef struct {
    lg_keyed_stack entries[(1 << lg_keyed_set_bits) * lg_keyed_ways];
    unsigned next;  // the way a miss replaces next, in turn
} lg_keyed_stacks;

static inline lg_keyed_stack *lg_keyed_set(lg_keyed_stacks *table, uint64_t token, uintptr_t first) {
    return &table->entries[(((first ^ token) * 0x9E3779B97F4A7C15ull) >> (64 - lg_keyed_set_bits)) * lg_keyed_ways];
}

// The number kept for the key, or -1.
static inline int32_t lg_keyed_find(lg_keyed_stacks *table, uint64_t token, uintptr_t first, int count) {
    if (token == 0) return -1;
    const lg_keyed_stack *set = lg_keyed_set(table, token, first);
    for (int way = 0; way < lg_keyed_ways; way++) {
        if (set[way].token == token && set[way].first == first && set[way].count == count) return set[way].stack;
    }
    return -1;
}

// Keeps `stack` for the key (nothing for a token of 0 or a stack of -1).
static inline void lg_keyed_keep(lg_keyed_stacks *table, uint64_t token, uintptr_t first, int count, int32_t stack) {
    if (token == 0 || stack < 0) return;
    lg_keyed_stack *entry = &lg_keyed_set(table, token, first)[table->next++ % lg_keyed_ways];
    entry->token = 0;
    __asm__ volatile("" ::: "memory");
    entry->first = first;
    entry->count = count;
    entry->stack = stack;
    __asm__ volatile("" ::: "memory");
    entry->token = token;
}

#endif
