#define _GNU_SOURCE 1
#include "CLeakGraphSupport.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

typedef int (*unw_backtrace_fn)(void **buffer, int size);

static unw_backtrace_fn lg_unw_backtrace = NULL;
static int lg_kind = 0;
static pthread_once_t lg_once = PTHREAD_ONCE_INIT;

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
            return;
        }
    }
    lg_kind = 2;
}

int lg_unwinder_kind(void) {
    pthread_once(&lg_once, lg_load_unwinder);
    return lg_kind;
}

int lg_capture_stack(uintptr_t *buffer, int capacity, int skip) {
    pthread_once(&lg_once, lg_load_unwinder);
    if (capacity <= 0) return 0;
    enum { maxFrames = 256 };
    void *frames[maxFrames];
    int wanted = capacity + skip + 1;
    if (wanted > maxFrames) wanted = maxFrames;
    int count = 0;
    if (lg_kind == 1) {
        count = lg_unw_backtrace(frames, wanted);
    } else if (lg_kind == 2) {
        count = backtrace(frames, wanted);
    }
    // Frame 0 is this function itself.
    int first = 1 + skip;
    int written = 0;
    for (int i = first; i < count && written < capacity; i++) {
        buffer[written++] = (uintptr_t)frames[i];
    }
    return written;
}

int lg_dladdr(uintptr_t address, const char **objectPath, uintptr_t *objectBase,
              const char **symbolName, uintptr_t *symbolAddress) {
    Dl_info info;
    if (dladdr((const void *)address, &info) == 0) return 0;
    *objectPath = info.dli_fname;
    *objectBase = (uintptr_t)info.dli_fbase;
    *symbolName = info.dli_sname;
    *symbolAddress = (uintptr_t)info.dli_saddr;
    return 1;
}

int lg_atexit(void (*handler)(void)) { return atexit(handler); }

size_t lg_malloc_usable_size(const void *pointer) { return malloc_usable_size((void *)pointer); }

// Returns the object when it took a reference, NULL when the object is deinitialising.
extern void *swift_tryRetain(void *object);

int lg_try_retain(void *object) { return swift_tryRetain(object) != NULL ? 1 : 0; }

extern _Bool swift_isDeallocating(void *object);

int lg_is_deallocating(void *object) { return swift_isDeallocating(object) ? 1 : 0; }


__thread int lg_shared_stack_plus_one = 0;
__thread int lg_releasing_snapshot = 0;

// Value witnesses, called with the Swift calling convention. The table sits one word before a
// type's metadata; the enum witnesses follow the common ones when the type is an enum.
#define LG_SWIFTCC __attribute__((swiftcall))
typedef unsigned (*lg_get_enum_tag_fn)(const void *value, const void *metadata) LG_SWIFTCC;
typedef void (*lg_project_enum_fn)(void *value, const void *metadata) LG_SWIFTCC;

typedef struct {
    void *common[8];
    size_t size;
    size_t stride;
    uint32_t flags;
    uint32_t extraInhabitantCount;
    lg_get_enum_tag_fn getEnumTag;
    lg_project_enum_fn destructiveProjectEnumData;
    void *destructiveInjectEnumTag;
} lg_value_witnesses;

static const lg_value_witnesses *lg_witnesses(const void *metadata) {
    return ((const lg_value_witnesses *const *)metadata)[-1];
}

unsigned lg_enum_tag(const void *value, const void *metadata) {
    return lg_witnesses(metadata)->getEnumTag(value, metadata);
}

void lg_enum_project(void *value, const void *metadata) {
    lg_witnesses(metadata)->destructiveProjectEnumData(value, metadata);
}

size_t lg_type_size(const void *metadata) { return lg_witnesses(metadata)->size; }
size_t lg_type_stride(const void *metadata) { return lg_witnesses(metadata)->stride; }
uint32_t lg_type_flags(const void *metadata) { return lg_witnesses(metadata)->flags; }
