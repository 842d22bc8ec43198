// The position of a word in a sorted list of object addresses: the one search the scans of
// globals and threads' stacks share (not part of the module's interface).
#ifndef LG_SORTED_WORDS_H
#define LG_SORTED_WORDS_H
#include <stddef.h>
#include <stdint.h>

// The index of `value` in `sorted` (ascending), or -1.
static inline long lg_sorted_index(const uintptr_t *sorted, size_t count, uintptr_t value) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t mid = (low + high) / 2;
        if (sorted[mid] < value) low = mid + 1; else high = mid;
    }
    return low < count && sorted[low] == value ? (long)low : -1;
}

#endif
