// The loaded images' executable segments, so that symbolication finds the image of each address
// by a binary search (Stacks/CodeImages.swift) instead of one dladdr per address: glibc's dladdr
// also finds the nearest symbol, scanning the image's whole symbol table, which was most of a
// test process's symbolication.
#define _GNU_SOURCE
#include "CLeakGraphSupport.h"

#if defined(__linux__)
#include <link.h>

typedef struct {
    lg_code_range *ranges;
    size_t capacity;
    size_t count;
} lg_range_list;

// Called with the loader's lock held: it only copies numbers (no dladdr here, which takes
// another loader lock a concurrent dlopen may hold while it waits for this one).
static int lg_add_code_ranges(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    lg_range_list *list = data;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_X) == 0 || header->p_memsz == 0) continue;
        if (list->count < list->capacity) {
            uintptr_t start = info->dlpi_addr + header->p_vaddr;
            list->ranges[list->count] = (lg_code_range){start, start + header->p_memsz};
        }
        list->count++;
    }
    return 0;
}

size_t lg_code_ranges(lg_code_range *ranges, size_t capacity) {
    lg_range_list list = {ranges, capacity, 0};
    dl_iterate_phdr(lg_add_code_ranges, &list);
    return list.count;
}

#else

size_t lg_code_ranges(lg_code_range *ranges, size_t capacity) {
    (void)ranges;
    (void)capacity;
    return 0;
}

#endif
