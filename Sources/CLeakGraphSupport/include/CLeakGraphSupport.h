#ifndef CLEAKGRAPHSUPPORT_H
#define CLEAKGRAPHSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// Captures up to `capacity` return addresses of the caller's stack into `buffer`, skipping
/// `skip` innermost frames. Returns the number written (0 when no unwinder is available).
/// Uses libunwind's `unw_backtrace`, loaded privately with dlopen(RTLD_LOCAL) so that linking
/// LeakGraph never replaces the process's `_Unwind_*` or `backtrace` symbols.
int lg_capture_stack(uintptr_t *buffer, int capacity, int skip);

/// Which unwinder `lg_capture_stack` uses: 1 = libunwind, 2 = glibc backtrace, 0 = none.
int lg_unwinder_kind(void);

/// dladdr wrapper: fills the object path, its load base, the nearest symbol name and address.
/// Returns non-zero on success. Strings point into the loader's memory and stay valid.
int lg_dladdr(uintptr_t address, const char **objectPath, uintptr_t *objectBase,
              const char **symbolName, uintptr_t *symbolAddress);

/// Registers `handler` with atexit(3). Kept in C so the handler is a plain C function pointer
/// and never a main-actor-isolated closure.
int lg_atexit(void (*handler)(void));

/// Size of the malloc block that starts at `pointer` (glibc `malloc_usable_size`).
size_t lg_malloc_usable_size(const void *pointer);

/// Retains a Swift heap object unless it is already deinitialising (the runtime's
/// swift_tryRetain). Returns non-zero when it took a reference.
int lg_try_retain(void *object);

/// Whether a Swift heap object has begun deinitialising (the runtime's swift_isDeallocating).
int lg_is_deallocating(void *object);

/// This thread's shared allocation stack (stack id + 1; 0 when none): set while a whole
/// subscription is being built, so that its objects share one captured stack.
extern __thread int lg_shared_stack_plus_one;

static inline int lg_get_shared_stack(void) { return lg_shared_stack_plus_one; }
static inline void lg_set_shared_stack(int value) { lg_shared_stack_plus_one = value; }

/// How many snapshots this thread is releasing holds for (nested when a release runs a deinit
/// that takes a snapshot).
extern __thread int lg_releasing_snapshot;

static inline int lg_get_releasing_snapshot(void) { return lg_releasing_snapshot; }
static inline void lg_set_releasing_snapshot(int value) { lg_releasing_snapshot = value; }

/// The case index of the enum value at `value` (its type's `getEnumTag` value witness; payload
/// cases first). Reads only.
unsigned lg_enum_tag(const void *value, const void *metadata);

/// Clears the tag bits of the enum value at `value` so that its payload can be read in place
/// (`destructiveProjectEnumData`). Only ever called on a bitwise copy LeakGraph owns: it changes
/// bits, retains and releases nothing for multi-payload enums.
void lg_enum_project(void *value, const void *metadata);

/// Size, stride and flags (alignment mask in the low byte, 0x20000 = stored out of line in an
/// existential) from a type's value witness table.
size_t lg_type_size(const void *metadata);
size_t lg_type_stride(const void *metadata);
uint32_t lg_type_flags(const void *metadata);

#endif
