// Which globals hold given objects: the writable segments of every loaded image (`.data`, `.bss`)
// compared word by word with a sorted list of object addresses. What names a hit is the symbol
// table (LeakGraph's Symbolicator asks llvm-symbolizer), not this file.
#define _GNU_SOURCE
#include "CLeakGraphSupport.h"
#include "sorted_words.h"
#include <link.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)

typedef struct {
    const uintptr_t *targets;
    size_t targetCount;
    uintptr_t *slots;
    uintptr_t *found;
    size_t capacity;
    size_t count;
    uint64_t *buffer;
    unsigned char *hitsOfTarget;
} lg_global_scan;

// The most globals kept for one object: the other objects keep their share of `capacity`.
enum { lg_globals_per_target = 4 };

enum { lg_scan_chunk = 8192 };  // words per fault-safe copy

static int lg_scan_image(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    lg_global_scan *scan = data;
    for (int index = 0; index < info->dlpi_phnum && scan->count < scan->capacity; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || !(header->p_flags & PF_W)) continue;
        uintptr_t start = (info->dlpi_addr + header->p_vaddr + 7) & ~(uintptr_t)7;
        uintptr_t end = (info->dlpi_addr + header->p_vaddr + header->p_memsz) & ~(uintptr_t)7;
        // Copied by the kernel, a chunk at a time: other threads write their globals meanwhile
        // (a stale word costs a name, never a fault, and the thread sanitizer sees no race).
        for (uintptr_t chunk = start; chunk < end && scan->count < scan->capacity; chunk += lg_scan_chunk * 8) {
            size_t bytes = end - chunk < lg_scan_chunk * 8 ? end - chunk : lg_scan_chunk * 8;
            size_t copied = lg_safe_copy(scan->buffer, chunk, bytes);
            for (size_t word = 0; word < copied / 8 && scan->count < scan->capacity; word++) {
                uintptr_t value = (uintptr_t)scan->buffer[word];
                if (scan->targets == NULL) {
                    // Collecting every word that may point at a heap object (16-byte aligned, not small).
                    if (value >= ((uintptr_t)1 << 20) && (value & 15) == 0) scan->found[scan->count++] = value;
                    continue;
                }
                long target = value == 0 ? -1 : lg_sorted_index(scan->targets, scan->targetCount, value);
                if (target < 0 || scan->hitsOfTarget[target] >= lg_globals_per_target) continue;
                scan->hitsOfTarget[target]++;
                scan->slots[scan->count] = chunk + word * 8;
                scan->found[scan->count] = value;
                scan->count++;
            }
        }
    }
    return 0;
}

size_t lg_find_global_holders(const uintptr_t *sortedTargets, size_t targetCount, uintptr_t *slots,
                              uintptr_t *found, size_t capacity) {
    if (targetCount == 0 || capacity == 0) return 0;
    uint64_t *buffer = malloc(lg_scan_chunk * 8);
    unsigned char *hitsOfTarget = calloc(targetCount, 1);
    if (buffer == NULL || hitsOfTarget == NULL) {
        free(buffer);
        free(hitsOfTarget);
        return 0;
    }
    lg_global_scan scan = {sortedTargets, targetCount, slots, found, capacity, 0, buffer, hitsOfTarget};
    dl_iterate_phdr(lg_scan_image, &scan);
    free(buffer);
    free(hitsOfTarget);
    return scan.count;
}

size_t lg_collect_global_words(uintptr_t *words, size_t capacity) {
    if (capacity == 0) return 0;
    uint64_t *buffer = malloc(lg_scan_chunk * 8);
    if (buffer == NULL) return 0;
    lg_global_scan scan = {NULL, 0, NULL, words, capacity, 0, buffer, NULL};
    dl_iterate_phdr(lg_scan_image, &scan);
    free(buffer);
    return scan.count;
}

#else

size_t lg_find_global_holders(const uintptr_t *sortedTargets, size_t targetCount, uintptr_t *slots,
                              uintptr_t *found, size_t capacity) {
    (void)sortedTargets; (void)targetCount; (void)slots; (void)found; (void)capacity;
    return 0;
}

size_t lg_collect_global_words(uintptr_t *words, size_t capacity) {
    (void)words; (void)capacity;
    return 0;
}

#endif
