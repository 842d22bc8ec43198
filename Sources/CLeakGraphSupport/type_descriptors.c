// The class descriptors the loaded images list, so that a word read from memory nothing holds (a
// stale stack slot, a global's integer, freed memory) is taken for a class's metadata only when
// the descriptor it names is one the runtime registered: a word that merely points at bytes
// shaped like a descriptor would send the runtime (swift_getTypeName, a superclass walk) through
// garbage, which crashes the process.
//
// Linux registers each image's metadata sections with the runtime; the runtime's enumeration
// gives their `swift5_type_metadata` ranges: 32-bit relative records, the low two bits saying
// whether they point at the descriptor or at a pointer to it. A sorted array of the class
// descriptors is built once and again only when an image is loaded (the loader's count of loads:
// the enumeration looks each image up with dladdr, too slow to repeat per question). Once an
// image has been unloaded the enumeration is never used: the runtime keeps the unloaded image's
// sections in its list and reads them (a crash), so the check says it cannot tell.
#define _GNU_SOURCE
#include "CLeakGraphSupport.h"

#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)

typedef struct {
    uintptr_t start;
    size_t length;
} lg_section_range;

// The runtime's `MetadataSections` (SwiftShims/MetadataSections.h): its first fields, stable since
// version 1.
typedef struct {
    uintptr_t version;
    uintptr_t reserved;
    void *next;
    void *prev;
    lg_section_range protocols;
    lg_section_range conformances;
    lg_section_range typeMetadata;
} lg_metadata_sections;

typedef bool (*lg_sections_body)(const lg_metadata_sections *sections, void *context);
// Weak: a runtime without it leaves the check unavailable (-1), never a failed link.
extern void swift_enumerateAllMetadataSections(lg_sections_body body, void *context) __attribute__((weak));

static pthread_mutex_t lg_descriptors_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *lg_descriptors;  // sorted
static size_t lg_descriptor_count;
/// The loader's count of loads when the array was built.
static unsigned long long lg_descriptors_loads;

typedef struct {
    unsigned long long loads, unloads;
    int known;
} lg_loader_counts;

static int lg_read_loader_counts(struct dl_phdr_info *info, size_t size, void *data) {
    lg_loader_counts *counts = data;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        counts->loads = info->dlpi_adds;
        counts->unloads = info->dlpi_subs;
        counts->known = 1;
    }
    return 1;  // the counts are the same in every entry: the first is enough
}

typedef struct {
    size_t bytes;
    uintptr_t *out;  // NULL: only measuring
    size_t count, capacity;
} lg_descriptor_walk;

static bool lg_visit_sections(const lg_metadata_sections *sections, void *context) {
    lg_descriptor_walk *walk = context;
    if (sections->version < 1) return true;
    walk->bytes += sections->typeMetadata.length;
    if (walk->out == NULL) return true;
    const int32_t *records = (const int32_t *)sections->typeMetadata.start;
    size_t recordCount = sections->typeMetadata.length / sizeof(int32_t);
    for (size_t index = 0; index < recordCount; index++) {
        int32_t value = records[index];
        uintptr_t target = (uintptr_t)&records[index] + (intptr_t)(value & ~3);
        uintptr_t descriptor;
        switch (value & 3) {
        case 0: descriptor = target; break;
        case 1: descriptor = *(const uintptr_t *)target; break;  // indirect: the loader filled it
        default: continue;
        }
        if (descriptor == 0 || (*(const uint32_t *)descriptor & 0x1F) != 16) continue;  // classes only
        if (walk->count < walk->capacity) walk->out[walk->count] = descriptor;
        walk->count++;
    }
    return true;
}

static int lg_compare_words(const void *left, const void *right) {
    uintptr_t a = *(const uintptr_t *)left, b = *(const uintptr_t *)right;
    return a < b ? -1 : a > b;
}

/// Rebuilds the array when an image was loaded since it was built; 0 when the images cannot be
/// enumerated safely (one was unloaded) or memory ran out. Called with the lock held.
static int lg_refresh_descriptors(void) {
    lg_loader_counts counts = {0};
    dl_iterate_phdr(lg_read_loader_counts, &counts);
    if (!counts.known || counts.unloads != 0) return 0;
    if (lg_descriptors != NULL && counts.loads == lg_descriptors_loads) return 1;
    lg_descriptor_walk shape = {0};
    swift_enumerateAllMetadataSections(lg_visit_sections, &shape);
    // Each record is 4 bytes: at most bytes / 4 descriptors (an image loaded meanwhile is
    // counted at the next refresh).
    size_t capacity = shape.bytes / sizeof(int32_t) + 1;
    uintptr_t *descriptors = malloc(capacity * sizeof(uintptr_t));
    if (descriptors == NULL) return 0;
    lg_descriptor_walk walk = {0, descriptors, 0, capacity};
    swift_enumerateAllMetadataSections(lg_visit_sections, &walk);
    size_t count = walk.count < capacity ? walk.count : capacity;
    qsort(descriptors, count, sizeof(uintptr_t), lg_compare_words);
    free(lg_descriptors);
    lg_descriptors = descriptors;
    lg_descriptor_count = count;
    lg_descriptors_loads = counts.loads;
    return 1;
}

int lg_is_class_descriptor(uintptr_t address) {
    if (swift_enumerateAllMetadataSections == NULL) return -1;
    pthread_mutex_lock(&lg_descriptors_lock);
    int result = -1;
    if (lg_refresh_descriptors()) {
        size_t low = 0, high = lg_descriptor_count;
        while (low < high) {
            size_t middle = low + (high - low) / 2;
            if (lg_descriptors[middle] < address) low = middle + 1;
            else high = middle;
        }
        result = low < lg_descriptor_count && lg_descriptors[low] == address;
    }
    pthread_mutex_unlock(&lg_descriptors_lock);
    return result;
}

#else

int lg_is_class_descriptor(uintptr_t address) {
    (void)address;
    return -1;
}

#endif
