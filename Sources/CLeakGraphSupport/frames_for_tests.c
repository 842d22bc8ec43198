#include "CLeakGraphSupport.h"

// Frames of shapes Swift code meets in other libraries but does not make itself, for the stack
// capture tests.

#if defined(__x86_64__) && defined(__linux__)
// A function with a frame pointer and no unwind entry (no FDE in .eh_frame), as some of
// Foundation's and Dispatch's allocating initialisers are. Written in assembly: the compiler
// emits an unwind entry for every C function here, `nouwtable` or not.
void lg_no_unwind_entry(void (*body)(void *), void *context);
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".type lg_no_unwind_entry,@function\n"
    "lg_no_unwind_entry:\n"
    "    pushq %rbp\n"
    "    movq %rsp, %rbp\n"
    "    movq %rdi, %rax\n"
    "    movq %rsi, %rdi\n"
    "    callq *%rax\n"
    "    popq %rbp\n"
    "    retq\n"
    ".size lg_no_unwind_entry, .-lg_no_unwind_entry\n");
#endif

// Its caller keeps a frame pointer too, so that libunwind's walk (which falls back to the
// frame-pointer chain at the function and leaves its stack pointer off by the frame's size) still
// gives the right frames beyond it and the two walks can be compared.
__attribute__((noinline)) void lg_call_through_frame_without_unwind_entry(void (*body)(void *), void *context) {
    __asm__ volatile("" : : "r"(__builtin_frame_address(0)) : "memory");
#if defined(__x86_64__) && defined(__linux__)
    lg_no_unwind_entry(body, context);
#else
    body(context);
#endif
    __asm__ volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
}
