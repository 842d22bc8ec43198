#define _GNU_SOURCE 1
#include "CLeakGraphSupport.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uintptr_t lg_exported_word(const char *symbol) {
    const uintptr_t *word = dlsym(RTLD_DEFAULT, symbol);
    return word == NULL ? 0 : *word;
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

int lg_contains_bytes(const void *bytes, size_t length, const void *needle, size_t needleLength) {
    if (needleLength == 0) return 1;
    if (bytes == NULL || needle == NULL || length < needleLength) return 0;
    return memmem(bytes, length, needle, needleLength) != NULL;
}

int lg_atexit(void (*handler)(void)) { return atexit(handler); }

_Atomic int lg_open_scopes = 0;

/// Defined by the LeakGraph module (`dumpAtExitFromEnvironment` in DumpWriter.swift): writes the
/// dump at exit into LEAKGRAPH_DUMP_DIR.
extern void lg_swift_dump_at_exit_from_environment(void) __attribute__((weak));

static void lg_dump_at_exit_from_environment(void) {
    if (lg_swift_dump_at_exit_from_environment != NULL) lg_swift_dump_at_exit_from_environment();
}

// LEAKGRAPH_DUMP_DIR asks for a dump at exit whether or not the program ever makes a tracked
// object (the registry arms its own handler when it starts, but a clean run may never start it).
// Only the handler is registered here: no Swift code runs before `main` for it.
__attribute__((constructor)) static void lg_arm_dump_at_exit_from_environment(void) {
    const char *directory = getenv("LEAKGRAPH_DUMP_DIR");
    if (directory != NULL && directory[0] != 0) {
        if (lg_dump_on_events() & 1) (void)atexit(lg_dump_at_exit_from_environment);
    }
    // Said, never silent: the variable was meant to ask for a dump and none will be written.
    else if (directory != NULL) fputs("leakgraph: LEAKGRAPH_DUMP_DIR is empty: no dump will be written at exit\n", stderr);
}

void lg_start_writeback(int descriptor, long long offset, long long count) {
#if defined(__linux__)
    // Advisory: a pipe or a device refuses it (ESPIPE, EINVAL), and that changes nothing.
    (void)sync_file_range(descriptor, (off64_t)offset, (off64_t)count, SYNC_FILE_RANGE_WRITE);
#else
    (void)descriptor;
    (void)offset;
    (void)count;
#endif
}

size_t lg_malloc_usable_size(const void *pointer) { return malloc_usable_size((void *)pointer); }

// Returns the object when it took a reference, NULL when the object is deinitialising.
extern void *swift_tryRetain(void *object);

int lg_try_retain(void *object) { return swift_tryRetain(object) != NULL ? 1 : 0; }

extern _Bool swift_isDeallocating(void *object);

int lg_is_deallocating(void *object) { return swift_isDeallocating(object) ? 1 : 0; }


__thread int lg_shared_stack_plus_one = 0;
__thread uintptr_t lg_stack_scratch[LG_STACK_SCRATCH_CAPACITY];
__thread int lg_stack_scratch_busy = 0;
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

#if defined(__APPLE__)
#include <malloc/malloc.h>
#endif

size_t lg_allocation_size(const void *object) {
#if defined(__APPLE__)
    return malloc_size(object);
#else
    return malloc_usable_size((void *)object);
#endif
}

// A sanitizer's allocator (address, thread) replaces malloc and its chunk headers: its own
// interface answers for any pointer, freed or never allocated included. Weak, so that a process
// without a sanitizer links without them.
extern int __sanitizer_get_ownership(const volatile void *p) __attribute__((weak));
extern size_t __sanitizer_get_allocated_size(const volatile void *p) __attribute__((weak));

int lg_sanitizer_allocation_size(const void *object, size_t *size) {
    if (!__sanitizer_get_ownership || !__sanitizer_get_allocated_size) return 0;
    *size = __sanitizer_get_ownership(object) ? __sanitizer_get_allocated_size(object) : 0;
    return 1;
}

size_t lg_allocation_size_from_header(uintptr_t header) {
#if defined(__GLIBC__)
    // glibc's chunk: the size with three flag bits below; an mmapped chunk (bit 1) keeps two
    // words of header, an ordinary one only its size word (the next chunk's previous-size word
    // is usable while this one is in use).
    size_t size = header & ~(uintptr_t)7;
    size_t overhead = (header & 2) ? 16 : 8;
    return size > overhead ? size - overhead : 0;
#else
    (void)header;
    return 0;
#endif
}

// MARK: Fault-safe copies

#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

// Where process_vm_readv is refused (a seccomp profile without it), bytes go through a pipe:
// write(2) reports EFAULT for an unreadable source instead of faulting. Both routes read the
// memory in the kernel, so a page unmapped meanwhile is an error, never a signal.
static int lg_copy_pipe[2] = {-1, -1};
static pthread_mutex_t lg_copy_pipe_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int lg_vm_readv_refused = 0;

static size_t lg_copy_through_pipe(void *destination, const void *source, size_t length) {
    pthread_mutex_lock(&lg_copy_pipe_lock);
    if (lg_copy_pipe[0] < 0 && pipe2(lg_copy_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        pthread_mutex_unlock(&lg_copy_pipe_lock);
        return 0;
    }
    size_t copied = 0;
    while (copied < length) {
        size_t chunk = length - copied;
        if (chunk > 4096) chunk = 4096;  // below any pipe's capacity: a write never blocks
        ssize_t written = write(lg_copy_pipe[1], (const char *)source + copied, chunk);
        if (written <= 0) break;
        ssize_t got = read(lg_copy_pipe[0], (char *)destination + copied, (size_t)written);
        if (got != written) break;
        copied += (size_t)written;
    }
    pthread_mutex_unlock(&lg_copy_pipe_lock);
    return copied;
}

void lg_support_fork_prepare(void) { pthread_mutex_lock(&lg_copy_pipe_lock); }

// The process's id for process_vm_readv, read once (a copy costs one system call, not two); a
// forked child reads its own (`lg_support_fork_release`).
static _Atomic pid_t lg_own_pid = 0;

static pid_t lg_pid(void) {
    pid_t pid = atomic_load_explicit(&lg_own_pid, memory_order_relaxed);
    if (pid == 0) {
        pid = getpid();
        atomic_store_explicit(&lg_own_pid, pid, memory_order_relaxed);
    }
    return pid;
}

void lg_support_fork_release(int child) {
    if (child) atomic_store_explicit(&lg_own_pid, 0, memory_order_relaxed);
    // The pipe is shared with the parent after fork: bytes one side writes the other could read.
    // The child makes its own when it first needs one.
    if (child && lg_copy_pipe[0] >= 0) {
        close(lg_copy_pipe[0]);
        close(lg_copy_pipe[1]);
        lg_copy_pipe[0] = lg_copy_pipe[1] = -1;
    }
    pthread_mutex_unlock(&lg_copy_pipe_lock);
}

size_t lg_safe_copy(void *destination, uintptr_t source, size_t length) {
    if (length == 0 || source == 0) return 0;
    if (!lg_vm_readv_refused) {
        struct iovec local = {destination, length};
        struct iovec remote = {(void *)source, length};
        ssize_t copied = process_vm_readv(lg_pid(), &local, 1, &remote, 1, 0);
        if (copied >= 0) return (size_t)copied;
        if (errno != ENOSYS && errno != EPERM) return 0;
        lg_vm_readv_refused = 1;
    }
    return lg_copy_through_pipe(destination, (const void *)source, length);
}

#elif defined(__APPLE__)
#include <mach/mach.h>
#include <mach/mach_vm.h>

size_t lg_safe_copy(void *destination, uintptr_t source, size_t length) {
    if (length == 0 || source == 0) return 0;
    mach_vm_size_t copied = 0;
    kern_return_t result = mach_vm_read_overwrite(
        mach_task_self(), (mach_vm_address_t)source, (mach_vm_size_t)length,
        (mach_vm_address_t)(uintptr_t)destination, &copied);
    return result == KERN_SUCCESS ? (size_t)copied : 0;
}

#else
size_t lg_safe_copy(void *destination, uintptr_t source, size_t length) {
    (void)destination;
    (void)source;
    (void)length;
    return 0;
}
#endif

#if !defined(__linux__)
// Nothing of support.c's is locked elsewhere.
void lg_support_fork_prepare(void) {}
void lg_support_fork_release(int child) { (void)child; }
#endif

// Volatile loads: the compiler must not turn the loop into a call of memcpy, which the address
// sanitizer intercepts and checks.
__attribute__((no_sanitize("address", "thread"))) void lg_copy_from_image(
    void *destination, uintptr_t source, size_t length) {
    const volatile uint64_t *words = (const volatile uint64_t *)source;
    uint64_t *to = (uint64_t *)destination;
    size_t count = length / 8;
    for (size_t index = 0; index < count; index++) to[index] = words[index];
    const volatile unsigned char *bytes = (const volatile unsigned char *)source;
    unsigned char *rest = (unsigned char *)destination;
    for (size_t index = count * 8; index < length; index++) rest[index] = bytes[index];
}

int lg_built_with_address_sanitizer(void) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 1;
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#else
    return 0;
#endif
}

