// The learned frame rules of stack_capture.c as seen by their cache across runs
// (frame_rule_cache.c); not part of the module's interface.
#ifndef LG_FRAME_RULES_H
#define LG_FRAME_RULES_H
#include <stdint.h>

// How many slots the table has; lg_frame_rule_at reads one.
int lg_frame_rule_slot_count(void);
// The return address and rule in `slot`: 0 when the slot is empty or its rule not yet written.
uint64_t lg_frame_rule_at(int slot, uint64_t *rule);
// Learns `rule` for `returnAddress` unless it has one (a rule read from the cache).
void lg_frame_rule_insert(uint64_t returnAddress, uint64_t rule);
// How many rules this process learned by unwinding (not read from the cache with the call above).
uint64_t lg_frame_rules_learned_here(void);
// Makes the whole table resident and writable at once, before `count` rules are inserted: when
// that is enough to touch nearly every page anyway (see stack_capture.c).
void lg_frame_rules_prepare_for(uint64_t count);
// The rule known for `returnAddress`, 0 when none.
uint64_t lg_frame_rule_lookup(uint64_t returnAddress);
// Whether `rule` is one the walk can use or a "no rule here" mark: anything else is not a rule.
int lg_frame_rule_is_valid(uint64_t rule);

// lg_capture_stack from a frame its caller knows: `pc` the return address into the frame, `sp`
// and `rbp` the frame's stack and frame pointers at that call. The frames from there, or -1 when
// the rules cannot walk them (lg_capture_stack then can). `repeat` is set to this thread's token
// for the remembered walk that gave the frames, 0 when they were walked: the same token and the
// same `pc` and count mean the same frames, for as long as the thread lives.
int lg_capture_stack_from(uintptr_t pc, uintptr_t sp, uintptr_t rbp, uintptr_t *buffer, int capacity,
                          uint64_t *repeat);

// Whether `address` is in an executable segment of an image loaded when the rules were read (0
// before they were): read without any lock, so a frame can be checked inside the allocation hook.
int lg_frame_rule_code_is_known(uintptr_t address);

// Reads the cached rules of every loaded image (stack_capture.c calls it once, from the first
// capture that walks by rules); frame_rule_cache.c writes them back at exit.
void lg_frame_rule_cache_load(void);

#endif
