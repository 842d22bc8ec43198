// Which threads' stacks hold given objects: the live part of each stack, from its stack pointer to
// its top, compared word by word with a sorted list of object addresses. The calling thread's
// stack is read in the ranges the caller gives (its frames that are not LeakGraph's own); another thread's stack pointer is the one the kernel shows
// for a thread blocked in a system call (/proc/self/task/<tid>/syscall), its end the end of the
// mapping that holds it. A thread that is running has no stack pointer to read: it is skipped.
// Threads inside LeakGraph's own analysis are skipped (their frames hold the addresses looked for).
// Other threads write their stacks meanwhile: every word is read through fault-safe copies, and a
// stale word costs a name, never a fault.
#define _GNU_SOURCE
#include "CLeakGraphSupport.h"
#include "sorted_words.h"
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__)

// The threads inside LeakGraph's own analysis (a snapshot, a leak description): their frames hold
// the addresses being looked for, so their stacks are never taken for holders. A thread's entry is
// its id while its depth is above 0; 64 analyses at once are more than any process runs.
enum { lg_analysing_capacity = 64 };
static _Atomic long lg_analysing[lg_analysing_capacity];
static __thread int lg_analysis_depth = 0;
// The frame of the function that entered the outermost analysis: the calling thread's words
// above it are its callers', the program's.
static __thread uintptr_t lg_analysis_caller_frame = 0;

__attribute__((noinline)) void lg_analysis_enter(void) {
    if (lg_analysis_depth++ > 0) return;
    lg_analysis_caller_frame = (uintptr_t)__builtin_frame_address(1);
    long tid = syscall(SYS_gettid);
    for (int index = 0; index < lg_analysing_capacity; index++) {
        long expected = 0;
        if (atomic_compare_exchange_strong(&lg_analysing[index], &expected, tid)) return;
    }
}

void lg_analysis_leave(void) {
    if (lg_analysis_depth == 0 || --lg_analysis_depth > 0) return;
    long tid = syscall(SYS_gettid);
    for (int index = 0; index < lg_analysing_capacity; index++) {
        long expected = tid;
        if (atomic_compare_exchange_strong(&lg_analysing[index], &expected, 0)) return;
    }
}

static uintptr_t lg_mapping_end(uintptr_t address);

int lg_analysis_callers_stack(uintptr_t *low, uintptr_t *high) {
    if (lg_analysis_depth == 0 || lg_analysis_caller_frame == 0) return 0;
    uintptr_t end = lg_mapping_end(lg_analysis_caller_frame);
    if (end == 0) return 0;
    *low = lg_analysis_caller_frame;
    *high = end;
    return 1;
}

static int lg_is_analysing(long tid) {
    for (int index = 0; index < lg_analysing_capacity; index++) {
        if (atomic_load(&lg_analysing[index]) == tid) return 1;
    }
    return 0;
}

typedef struct {
    const uintptr_t *targets;
    size_t targetCount;
    uintptr_t *slots;
    uintptr_t *found;
    int64_t *threads;
    size_t capacity;
    size_t count;
    uint64_t *buffer;
    unsigned char *hitsOfTarget;
} lg_stack_scan;

enum { lg_stack_chunk = 4096 };  // words per fault-safe copy

// The most stack words kept for one object: a busy process's other objects keep their share.
enum { lg_hits_per_target = 4 };

static void lg_scan_stack(lg_stack_scan *scan, uintptr_t low, uintptr_t high, int64_t thread) {
    low = (low + 7) & ~(uintptr_t)7;
    high &= ~(uintptr_t)7;
    for (uintptr_t chunk = low; chunk < high && scan->count < scan->capacity; chunk += lg_stack_chunk * 8) {
        size_t bytes = high - chunk < lg_stack_chunk * 8 ? high - chunk : lg_stack_chunk * 8;
        size_t copied = lg_safe_copy(scan->buffer, chunk, bytes);
        for (size_t word = 0; word < copied / 8 && scan->count < scan->capacity; word++) {
            uintptr_t value = (uintptr_t)scan->buffer[word];
            if (scan->targets == NULL) {
                // Collecting every word that may point at a heap object (16-byte aligned, not small).
                if (value >= ((uintptr_t)1 << 20) && (value & 15) == 0) scan->found[scan->count++] = value;
                continue;
            }
            long target = value == 0 ? -1 : lg_sorted_index(scan->targets, scan->targetCount, value);
            if (target < 0 || scan->hitsOfTarget[target] >= lg_hits_per_target) continue;
            scan->hitsOfTarget[target]++;
            scan->slots[scan->count] = chunk + word * 8;
            scan->found[scan->count] = value;
            scan->threads[scan->count] = thread;
            scan->count++;
        }
    }
}

// The end of the writable mapping that holds `address`, or 0.
static uintptr_t lg_mapping_end(uintptr_t address) {
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) return 0;
    char line[512];
    uintptr_t end = 0;
    while (fgets(line, sizeof line, maps) != NULL) {
        unsigned long start = 0, stop = 0;
        char permissions[8] = {0};
        if (sscanf(line, "%lx-%lx %7s", &start, &stop, permissions) != 3) continue;
        if (address >= start && address < stop) {
            if (permissions[0] == 'r' && permissions[1] == 'w') end = stop;
            break;
        }
    }
    fclose(maps);
    return end;
}

// The user stack pointer of thread `tid` while it is blocked (in a system call or not), or 0.
static uintptr_t lg_blocked_stack_pointer(long tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", tid);
    FILE *file = fopen(path, "re");
    if (file == NULL) return 0;
    char text[512];
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = 0;
    if (length == 0 || strncmp(text, "running", 7) == 0) return 0;
    // "nr arg1 … arg6 sp pc" in a system call, "-1 sp pc" blocked outside one: sp is next to last.
    char *tokens[16];
    int count = 0;
    for (char *token = strtok(text, " \n"); token != NULL && count < 16; token = strtok(NULL, " \n")) {
        tokens[count++] = token;
    }
    if (count < 3) return 0;
    return (uintptr_t)strtoull(tokens[count - 2], NULL, 16);
}

static void lg_scan_stacks(lg_stack_scan *scan, const uintptr_t *currentRanges, size_t currentRangeCount);

size_t lg_find_stack_holders(const uintptr_t *sortedTargets, size_t targetCount, const uintptr_t *currentRanges,
                             size_t currentRangeCount, uintptr_t *slots, uintptr_t *found, int64_t *threads,
                             size_t capacity) {
    if (targetCount == 0 || capacity == 0) return 0;
    uint64_t *buffer = malloc(lg_stack_chunk * 8);
    unsigned char *hitsOfTarget = calloc(targetCount, 1);
    if (buffer == NULL || hitsOfTarget == NULL) {
        free(buffer);
        free(hitsOfTarget);
        return 0;
    }
    lg_stack_scan scan = {sortedTargets, targetCount, slots, found, threads, capacity, 0, buffer, hitsOfTarget};
    lg_scan_stacks(&scan, currentRanges, currentRangeCount);
    free(buffer);
    free(hitsOfTarget);
    return scan.count;
}

size_t lg_collect_stack_words(const uintptr_t *currentRanges, size_t currentRangeCount, uintptr_t *words,
                              size_t capacity) {
    if (capacity == 0) return 0;
    uint64_t *buffer = malloc(lg_stack_chunk * 8);
    if (buffer == NULL) return 0;
    lg_stack_scan scan = {NULL, 0, NULL, words, NULL, capacity, 0, buffer, NULL};
    lg_scan_stacks(&scan, currentRanges, currentRangeCount);
    free(buffer);
    return scan.count;
}

// The calling thread's `currentRanges`, then every other blocked thread not inside an analysis.
static void lg_scan_stacks(lg_stack_scan *scan, const uintptr_t *currentRanges, size_t currentRangeCount) {
    size_t capacity = scan->capacity;
    long self = syscall(SYS_gettid);
    for (size_t range = 0; range < currentRangeCount; range++) {
        lg_scan_stack(scan, currentRanges[2 * range], currentRanges[2 * range + 1], 0);
    }
    DIR *tasks = opendir("/proc/self/task");
    if (tasks != NULL) {
        struct dirent *entry;
        while ((entry = readdir(tasks)) != NULL && scan->count < capacity) {
            long tid = strtol(entry->d_name, NULL, 10);
            if (tid <= 0 || tid == self || lg_is_analysing(tid)) continue;
            uintptr_t sp = lg_blocked_stack_pointer(tid);
            uintptr_t end = sp == 0 ? 0 : lg_mapping_end(sp);
            if (end != 0) lg_scan_stack(scan, sp, end, tid);
        }
        closedir(tasks);
    }
}

#else

void lg_analysis_enter(void) {}
int lg_analysis_callers_stack(uintptr_t *low, uintptr_t *high) {
    (void)low; (void)high;
    return 0;
}
void lg_analysis_leave(void) {}

size_t lg_find_stack_holders(const uintptr_t *sortedTargets, size_t targetCount, const uintptr_t *currentRanges,
                             size_t currentRangeCount, uintptr_t *slots, uintptr_t *found, int64_t *threads,
                             size_t capacity) {
    (void)sortedTargets; (void)targetCount; (void)currentRanges; (void)currentRangeCount; (void)slots; (void)found; (void)threads;
    (void)capacity;
    return 0;
}

size_t lg_collect_stack_words(const uintptr_t *currentRanges, size_t currentRangeCount, uintptr_t *words,
                              size_t capacity) {
    (void)currentRanges; (void)currentRangeCount; (void)words; (void)capacity;
    return 0;
}

#endif
