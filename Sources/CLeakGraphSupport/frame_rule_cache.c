#define _GNU_SOURCE 1
#include "CLeakGraphSupport.h"

#include <stdint.h>

// The learned frame rules, kept across runs: one file per loaded image, named by the image's build
// id, holding (offset from the image's base, rule) pairs.
//
// Why: a process learns the rule of each return address its allocations pass through with one
// libunwind step (a DWARF search in the image's unwind tables), a few thousand at the start of a
// test process — about 10 ms, paid again by every process a suite starts. The rule of a return
// address depends only on the code around it, and an image with the same build id has the same
// code at the same offsets, so a rule learned by one run holds in the next at that offset from
// wherever the image is loaded. Rules are read by the first capture that walks by rules (no other
// thread waits for them) and written at exit for the images whose rules grew; a file is replaced by rename, so a reader
// sees a whole file or the previous one, and a file that is not whole or whose entries are not
// rules is refused. After an image was unloaded nothing is written (its rules could be taken for
// code mapped where it was). A rule that does not fit gives wrong frames, not a fault: the walk
// checks every load against the thread's stack bounds, and a frame is handed to libunwind only
// with its stack pointer in the stack and its pc in a loaded image (see stack_capture.c).
//
// Where: $LEAKGRAPH_CACHE_DIR/frame-rules, else $XDG_CACHE_HOME/leakgraph/frame-rules, else
// $HOME/.cache/leakgraph/frame-rules (a relative LEAKGRAPH_CACHE_DIR is taken from the working
// directory at the start). LEAKGRAPH_CACHE_DIR=off keeps nothing.

#if defined(__x86_64__) && defined(__linux__)

#include "frame_rules.h"

#include <elf.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    lg_cache_images = 512,
    lg_cache_segments = 4,
    lg_build_id_bytes = 64,
    lg_cache_path_bytes = 1024,
    // A file holding more rules than the table has slots (stack_capture.c's lg_rule_slots) is not
    // read (it cannot be this table's): at exit it is written again from what the table learned.
    // (It was 16,384, a quarter of the table's first size: a big test binary's own file, GRDB's
    // with its tests, can hold more, and was then refused and learned again by every process.)
    lg_cache_largest_entry_count = 1 << 18,
};

// Version 2: version 1's files may mark frames without an unwind entry as having no rule (they
// are frame-pointer rules since): they are not read, and are written again at exit.
static const char lg_cache_magic[8] = {'L', 'G', 'R', 'U', 'L', 'E', 'S', '2'};

typedef struct {
    char magic[8];
    uint32_t buildIdLength;
    uint32_t reserved;
    uint64_t entryCount;
    uint8_t buildId[lg_build_id_bytes];
} lg_cache_header;

typedef struct {
    uint64_t offset;
    uint64_t rule;
} lg_cache_entry;

// One loaded image: where it is, its executable segments, its build id.
typedef struct {
    uintptr_t base;
    uintptr_t start[lg_cache_segments], end[lg_cache_segments];
    int segmentCount;
    uint8_t buildId[lg_build_id_bytes];
    uint32_t buildIdLength;
    long rules;  // counted by lg_count_rules
} lg_cache_image;

typedef struct {
    lg_cache_image *images;
    int count;
    // How many images the process had unloaded when the list was made (dl_phdr_info's count).
    unsigned long long unloaded;
} lg_image_list;

// The directory chosen when the rules were read, so that the exit writes where the start read.
static char lg_cache_directory[lg_cache_path_bytes];
// Rules the table held per image build id after reading: the exit writes only images that grew.
typedef struct {
    uint8_t buildId[lg_build_id_bytes];
    uint32_t buildIdLength;
    long rules;
} lg_cache_count;
static lg_cache_count lg_counts_at_start[lg_cache_images];
static int lg_counts_at_start_count = 0;
static _Atomic int lg_cache_read_done = 0;

static int lg_image_callback(struct dl_phdr_info *info, size_t size, void *data) {
    lg_image_list *list = data;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) list->unloaded = info->dlpi_subs;
    if (list->count >= lg_cache_images) return 1;
    lg_cache_image *image = &list->images[list->count];
    memset(image, 0, sizeof *image);
    image->base = (uintptr_t)info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        uintptr_t start = image->base + header->p_vaddr;
        if (header->p_type == PT_LOAD && (header->p_flags & PF_X) && image->segmentCount < lg_cache_segments) {
            image->start[image->segmentCount] = start;
            image->end[image->segmentCount] = start + header->p_memsz;
            image->segmentCount++;
        } else if (header->p_type == PT_NOTE && image->buildIdLength == 0) {
            // Notes: name size, description size, type, then the name and the description, each
            // padded to 4 bytes.
            uintptr_t note = start, end = start + header->p_memsz;
            while (note + sizeof(ElfW(Nhdr)) <= end) {
                const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)note;
                uintptr_t name = note + sizeof(ElfW(Nhdr));
                uintptr_t description = name + ((n->n_namesz + 3) & ~3u);
                uintptr_t next = description + ((n->n_descsz + 3) & ~3u);
                if (next > end || next <= note) break;
                if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp((const void *)name, "GNU", 4) == 0
                    && n->n_descsz > 0 && n->n_descsz <= lg_build_id_bytes) {
                    memcpy(image->buildId, (const void *)description, n->n_descsz);
                    image->buildIdLength = n->n_descsz;
                    break;
                }
                note = next;
            }
        }
    }
    // Code without a build id cannot be known again: it is left out.
    if (image->segmentCount > 0 && image->buildIdLength > 0) list->count++;
    return 0;
}

static lg_image_list lg_loaded_images(void) {
    lg_image_list list = {calloc(lg_cache_images, sizeof(lg_cache_image)), 0, 0};
    if (list.images != NULL) dl_iterate_phdr(lg_image_callback, &list);
    return list;
}

static int lg_image_holds(const lg_cache_image *image, uint64_t address) {
    for (int i = 0; i < image->segmentCount; i++) {
        if (address >= image->start[i] && address < image->end[i]) return 1;
    }
    return 0;
}

// The file of an image's rules in `directory`: "<build id in hex>.rules".
static int lg_cache_path(char *path, size_t capacity, const char *directory, const lg_cache_image *image) {
    // By a table, not snprintf per byte: a test process opens every image's file at its first
    // capture, and 20 bytes of build id by snprintf were 700 instructions an image.
    static const char digits[] = "0123456789abcdef";
    char hex[2 * lg_build_id_bytes + 1];
    for (uint32_t i = 0; i < image->buildIdLength; i++) {
        hex[2 * i] = digits[image->buildId[i] >> 4];
        hex[2 * i + 1] = digits[image->buildId[i] & 15];
    }
    hex[2 * image->buildIdLength] = 0;
    int written = snprintf(path, capacity, "%s/%s.rules", directory, hex);
    return written > 0 && (size_t)written < capacity;
}

// Reads one image's file into the table: the entries accepted, or -1 when the file is refused
// (absent, unreadable, not whole, another image's, or an entry that is not a rule in its code).
static long lg_read_image_rules(const char *directory, const lg_cache_image *image) {
    char path[lg_cache_path_bytes];
    if (!lg_cache_path(path, sizeof path, directory, image)) return -1;
    int file = open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0) return -1;
    struct stat status;
    long accepted = -1;
    char *bytes = MAP_FAILED;
    size_t have = 0;
    if (fstat(file, &status) != 0 || status.st_size < (off_t)sizeof(lg_cache_header)
        || status.st_size > (off_t)(sizeof(lg_cache_header) + lg_cache_largest_entry_count * sizeof(lg_cache_entry)))
        goto done;
    // Mapped, not copied: the file's pages are in the page cache (every process of a test run
    // reads the same file), and a private read-only mapping of them faults in a few at a time
    // where a copy faulted in fresh zeroed pages and then filled them. LeakGraph's writers
    // replace the file by rename, so the mapped one never changes underneath; another program
    // truncating it in place during the few microseconds it is mapped would raise SIGBUS here
    // (an accepted risk: nothing else writes this folder).
    have = (size_t)status.st_size;
    bytes = mmap(NULL, have, PROT_READ, MAP_PRIVATE, file, 0);
    if (bytes == MAP_FAILED) goto done;
    lg_cache_header header;
    memcpy(&header, bytes, sizeof header);
    if (memcmp(header.magic, lg_cache_magic, sizeof header.magic) != 0 || header.buildIdLength != image->buildIdLength
        || memcmp(header.buildId, image->buildId, image->buildIdLength) != 0
        || header.entryCount != (have - sizeof header) / sizeof(lg_cache_entry)
        || (have - sizeof header) % sizeof(lg_cache_entry) != 0)
        goto done;
    const lg_cache_entry *entries = (const lg_cache_entry *)(bytes + sizeof header);
    // Every entry is checked before any is used: one that is not a rule in this image's code
    // means the file is not what it says.
    for (uint64_t i = 0; i < header.entryCount; i++) {
        if (!lg_frame_rule_is_valid(entries[i].rule) || !lg_image_holds(image, image->base + entries[i].offset))
            goto done;
    }
    lg_frame_rules_prepare_for(header.entryCount);
    for (uint64_t i = 0; i < header.entryCount; i++) lg_frame_rule_insert(image->base + entries[i].offset, entries[i].rule);
    accepted = (long)header.entryCount;
done:
    if (bytes != MAP_FAILED) munmap(bytes, have);
    close(file);
    return accepted;
}

// How many of the table's rules fall in each image (`rules`), in one pass over the table.
static void lg_count_rules(lg_image_list *list) {
    for (int i = 0; i < list->count; i++) list->images[i].rules = 0;
    int slots = lg_frame_rule_slot_count();
    for (int slot = 0; slot < slots; slot++) {
        uint64_t rule;
        uint64_t address = lg_frame_rule_at(slot, &rule);
        if (address == 0) continue;
        for (int i = 0; i < list->count; i++) {
            if (lg_image_holds(&list->images[i], address)) {
                list->images[i].rules++;
                break;
            }
        }
    }
}

static int lg_make_directory(const char *path) {
    char partial[lg_cache_path_bytes];
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof partial) return 0;
    memcpy(partial, path, length + 1);
    for (size_t i = 1; i <= length; i++) {
        if (partial[i] != '/' && partial[i] != 0) continue;
        char kept = partial[i];
        partial[i] = 0;
        if (mkdir(partial, 0700) != 0 && errno != EEXIST) return 0;
        partial[i] = kept;
    }
    return 1;
}

// Writes one image's rules from the table: to a file of this process's own, then renamed over
// the image's file. The entries written, or -1.
static long lg_write_image_rules(const char *directory, const lg_cache_image *image) {
    char path[lg_cache_path_bytes], temporary[lg_cache_path_bytes + 16];
    if (!lg_cache_path(path, sizeof path, directory, image)) return -1;
    // A name no other process (in any PID namespace sharing the folder) can hold, made with
    // O_EXCL: never an existing file or a link.
    snprintf(temporary, sizeof temporary, "%s.XXXXXX", path);
    size_t capacity = (size_t)image->rules;
    char *bytes = malloc(sizeof(lg_cache_header) + capacity * sizeof(lg_cache_entry));
    if (bytes == NULL) return -1;
    lg_cache_entry *entries = (lg_cache_entry *)(bytes + sizeof(lg_cache_header));
    size_t count = 0;
    int slots = lg_frame_rule_slot_count();
    for (int slot = 0; slot < slots && count < capacity; slot++) {
        uint64_t rule;
        uint64_t address = lg_frame_rule_at(slot, &rule);
        if (address == 0 || !lg_image_holds(image, address) || !lg_frame_rule_is_valid(rule)) continue;
        entries[count].offset = address - image->base;
        entries[count].rule = rule;
        count++;
    }
    lg_cache_header header;
    memset(&header, 0, sizeof header);
    memcpy(header.magic, lg_cache_magic, sizeof header.magic);
    header.buildIdLength = image->buildIdLength;
    header.entryCount = count;
    memcpy(header.buildId, image->buildId, image->buildIdLength);
    memcpy(bytes, &header, sizeof header);
    size_t total = sizeof header + count * sizeof(lg_cache_entry);
    long result = -1;
    int file = mkostemp(temporary, O_CLOEXEC);
    if (file >= 0) {
        size_t done = 0;
        while (done < total) {
            ssize_t wrote = write(file, bytes + done, total - done);
            if (wrote < 0 && errno == EINTR) continue;
            if (wrote <= 0) break;
            done += (size_t)wrote;
        }
        int closed = close(file);
        if (done == total && closed == 0 && rename(temporary, path) == 0) {
            result = (long)count;
        } else {
            unlink(temporary);
        }
    }
    free(bytes);
    return result;
}

// The directory the rules live in, from the environment; 0 when keeping none.
static int lg_resolve_directory(char *directory, size_t capacity) {
    const char *chosen = getenv("LEAKGRAPH_CACHE_DIR");
    int written;
    if (chosen != NULL) {
        if (chosen[0] == 0 || strcmp(chosen, "off") == 0 || strcmp(chosen, "0") == 0 || strcmp(chosen, "none") == 0)
            return 0;
        if (chosen[0] == '/') {
            written = snprintf(directory, capacity, "%s/frame-rules", chosen);
        } else {
            // Relative to the working directory at the start, which the exit may no longer have.
            char here[lg_cache_path_bytes];
            if (getcwd(here, sizeof here) == NULL) return 0;
            written = snprintf(directory, capacity, "%s/%s/frame-rules", here, chosen);
        }
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg != NULL && xdg[0] == '/') {
            written = snprintf(directory, capacity, "%s/leakgraph/frame-rules", xdg);
        } else if (home != NULL && home[0] == '/') {
            written = snprintf(directory, capacity, "%s/.cache/leakgraph/frame-rules", home);
        } else {
            return 0;
        }
    }
    return written > 0 && (size_t)written < capacity;
}

// How many images had been unloaded when the rules were read.
static unsigned long long lg_unloaded_at_start = 0;

// The executable segments of the images loaded when the rules were read, for
// lg_frame_rule_code_is_known: written once, then published by lg_known_code_count (release).
enum { lg_known_code_capacity = 1024 };
static uintptr_t lg_known_code_start[lg_known_code_capacity], lg_known_code_end[lg_known_code_capacity];
static _Atomic int lg_known_code_count = 0;

int lg_frame_rule_code_is_known(uintptr_t address) {
    int count = atomic_load_explicit(&lg_known_code_count, memory_order_acquire);
    for (int i = 0; i < count; i++) {
        if (address >= lg_known_code_start[i] && address < lg_known_code_end[i]) return 1;
    }
    return 0;
}

void lg_frame_rule_cache_load(void) {
    // A forked child reads nothing (the loader's lock may have been held at the fork) and writes
    // nothing (see the exit).
    if (lg_is_forked_child()) return;
    lg_image_list list = lg_loaded_images();
    if (list.images == NULL) return;
    int known = 0;
    for (int i = 0; i < list.count; i++) {
        for (int segment = 0; segment < list.images[i].segmentCount && known < lg_known_code_capacity; segment++) {
            lg_known_code_start[known] = list.images[i].start[segment];
            lg_known_code_end[known] = list.images[i].end[segment];
            known++;
        }
    }
    atomic_store_explicit(&lg_known_code_count, known, memory_order_release);
    if (!lg_resolve_directory(lg_cache_directory, sizeof lg_cache_directory)) {
        lg_cache_directory[0] = 0;
        free(list.images);
        return;
    }
    // What each image's file held is what it had at the start (rules other threads learn while
    // this reads are new, and make the image's file be written again).
    for (int i = 0; i < list.count; i++) {
        long accepted = lg_read_image_rules(lg_cache_directory, &list.images[i]);
        list.images[i].rules = accepted > 0 ? accepted : 0;
    }
    for (int i = 0; i < list.count && lg_counts_at_start_count < lg_cache_images; i++) {
        lg_cache_count *count = &lg_counts_at_start[lg_counts_at_start_count++];
        memcpy(count->buildId, list.images[i].buildId, lg_build_id_bytes);
        count->buildIdLength = list.images[i].buildIdLength;
        count->rules = list.images[i].rules;
    }
    lg_unloaded_at_start = list.unloaded;
    free(list.images);
    atomic_store_explicit(&lg_cache_read_done, 1, memory_order_release);
}

static long lg_rules_at_start(const lg_cache_image *image) {
    for (int i = 0; i < lg_counts_at_start_count; i++) {
        if (lg_counts_at_start[i].buildIdLength == image->buildIdLength
            && memcmp(lg_counts_at_start[i].buildId, image->buildId, image->buildIdLength) == 0)
            return lg_counts_at_start[i].rules;
    }
    return 0;
}

// At exit: the images whose rules grew since the start are written back. Other threads may still
// learn meanwhile (the table is read slot by slot, each slot whole).
// Not in a forked child: another thread of the parent may have held the loader's lock (which
// dl_iterate_phdr takes) at the fork, and the parent writes what the child inherited anyway.
__attribute__((destructor)) static void lg_frame_rule_cache_save_at_exit(void) {
    if (!atomic_load_explicit(&lg_cache_read_done, memory_order_acquire) || lg_cache_directory[0] == 0
        || lg_is_forked_child())
        return;
    // Nothing learned, nothing new: the table holds no more than the files gave. (A test
    // process of a suite that ran before finds every rule it needs in the cache; listing the
    // images and counting the table's 65,536 slots was a tenth of what tracking cost it.)
    if (lg_frame_rules_learned_here() == 0) return;
    lg_image_list list = lg_loaded_images();
    if (list.images == NULL) return;
    // Once an image was unloaded, a rule in the table may be of code no longer there, and an
    // image loaded where it was would be written with it: nothing is written.
    if (list.unloaded != lg_unloaded_at_start) {
        free(list.images);
        return;
    }
    lg_count_rules(&list);
    int madeDirectory = 0;
    for (int i = 0; i < list.count; i++) {
        if (list.images[i].rules <= lg_rules_at_start(&list.images[i])) continue;
        if (!madeDirectory && !(madeDirectory = lg_make_directory(lg_cache_directory))) break;
        lg_write_image_rules(lg_cache_directory, &list.images[i]);
    }
    free(list.images);
}

long lg_frame_rule_cache_write(const char *directory) {
    if (!lg_make_directory(directory)) return -1;
    lg_image_list list = lg_loaded_images();
    if (list.images == NULL) return -1;
    lg_count_rules(&list);
    long written = 0;
    for (int i = 0; i < list.count && written >= 0; i++) {
        if (list.images[i].rules == 0) continue;
        long count = lg_write_image_rules(directory, &list.images[i]);
        written = count < 0 ? -1 : written + count;
    }
    free(list.images);
    return written;
}

long lg_frame_rule_cache_read(const char *directory, long *refusedFiles) {
    *refusedFiles = 0;
    lg_image_list list = lg_loaded_images();
    if (list.images == NULL) return -1;
    long accepted = 0;
    for (int i = 0; i < list.count; i++) {
        char path[lg_cache_path_bytes];
        if (!lg_cache_path(path, sizeof path, directory, &list.images[i]) || access(path, F_OK) != 0) continue;
        long count = lg_read_image_rules(directory, &list.images[i]);
        if (count < 0) {
            (*refusedFiles)++;
        } else {
            accepted += count;
        }
    }
    free(list.images);
    return accepted;
}

long lg_frame_rule_cache_disagreements(const char *directory) {
    lg_image_list list = lg_loaded_images();
    if (list.images == NULL) return -1;
    long disagreeing = 0;
    for (int i = 0; i < list.count; i++) {
        char path[lg_cache_path_bytes];
        if (!lg_cache_path(path, sizeof path, directory, &list.images[i])) continue;
        int file = open(path, O_RDONLY | O_CLOEXEC);
        if (file < 0) continue;
        lg_cache_header header;
        if (read(file, &header, sizeof header) == (ssize_t)sizeof header) {
            lg_cache_entry entry;
            for (uint64_t e = 0; e < header.entryCount; e++) {
                if (read(file, &entry, sizeof entry) != (ssize_t)sizeof entry) break;
                if (lg_frame_rule_lookup(list.images[i].base + entry.offset) != entry.rule) disagreeing++;
            }
        }
        close(file);
    }
    free(list.images);
    return disagreeing;
}

#else

long lg_frame_rule_cache_write(const char *directory) {
    (void)directory;
    return -1;
}

long lg_frame_rule_cache_read(const char *directory, long *refusedFiles) {
    (void)directory;
    *refusedFiles = 0;
    return -1;
}

long lg_frame_rule_cache_disagreements(const char *directory) {
    (void)directory;
    return -1;
}

#endif
