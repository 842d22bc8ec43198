// The loaded images' segments, so that symbolication (and the naming of globals) finds the image
// of each address by a binary search (Stacks/LoadedImages.swift) instead of one dladdr per
// address: glibc's dladdr also finds the nearest symbol, scanning the image's whole symbol table,
// about a millisecond in a big test binary.
#define _GNU_SOURCE
#include "CLeakGraphSupport.h"

#if defined(__linux__)
#include <link.h>
#include <unistd.h>

// What the loader's callback fills: `count` segments seen, the first `capacity` of them written.
typedef struct {
    lg_image_segment *segments;
    size_t capacity;
    size_t count;
    int imagesSeen;  // the loader lists the main program first
} lg_segment_list;

// Called with the loader's lock held: it only copies numbers and the loader's own name pointers
// (no dladdr here, which takes another loader lock a concurrent dlopen may hold while it waits
// for this one).
static int lg_add_image_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    lg_segment_list *list = data;
    // Where the image is mapped from, as the loader's `l_map_start`: its lowest loaded page.
    uintptr_t lowest = UINTPTR_MAX;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type == PT_LOAD && header->p_vaddr < lowest) lowest = header->p_vaddr;
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t base = info->dlpi_addr + (lowest & ~(page - 1));
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || header->p_memsz == 0) continue;
        if (list->count < list->capacity) {
            uintptr_t start = info->dlpi_addr + header->p_vaddr;
            list->segments[list->count] = (lg_image_segment){
                start, start + header->p_memsz, info->dlpi_name ? info->dlpi_name : "", base, list->imagesSeen == 0};
        }
        list->count++;
    }
    list->imagesSeen++;
    return 0;
}

size_t lg_image_segments(lg_image_segment *segments, size_t capacity) {
    lg_segment_list list = {segments, capacity, 0, 0};
    dl_iterate_phdr(lg_add_image_segments, &list);
    return list.count;
}

#else

size_t lg_image_segments(lg_image_segment *segments, size_t capacity) {
    (void)segments;
    (void)capacity;
    return 0;
}

#endif
