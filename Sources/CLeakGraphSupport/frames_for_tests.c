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

// The frame of an async function's resume partial function as Swift 6.3 emits it on x86-64: 16
// bytes reserved above the frame record, so that the CFA is rbp + 32.
void lg_frame_record_below_cfa(void (*body)(void *), void *context);
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".type lg_frame_record_below_cfa,@function\n"
    "lg_frame_record_below_cfa:\n"
    "    .cfi_startproc\n"
    "    subq $16, %rsp\n"
    "    .cfi_def_cfa_offset 24\n"
    "    pushq %rbp\n"
    "    .cfi_def_cfa_offset 32\n"
    "    .cfi_offset %rbp, -32\n"
    "    pushq %r14\n"
    "    .cfi_offset %r14, -40\n"
    "    leaq 8(%rsp), %rbp\n"
    "    .cfi_def_cfa_register %rbp\n"
    "    subq $8, %rsp\n"
    "    movq %rdi, %rax\n"
    "    movq %rsi, %rdi\n"
    "    callq *%rax\n"
    "    addq $8, %rsp\n"
    "    popq %r14\n"
    "    popq %rbp\n"
    "    .cfi_def_cfa %rsp, 24\n"
    "    addq $16, %rsp\n"
    "    .cfi_def_cfa_offset 8\n"
    "    retq\n"
    "    .cfi_endproc\n"
    ".size lg_frame_record_below_cfa, .-lg_frame_record_below_cfa\n");

// A frame GCC realigns to 64 bytes: its CFA is an expression, the entry's stack pointer saved
// below the frame record (`[rbp - 8]`), and the padding between differs from call to call.
void lg_realigned_frame(void (*body)(void *), void *context);
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".type lg_realigned_frame,@function\n"
    "lg_realigned_frame:\n"
    "    .cfi_startproc\n"
    "    leaq 8(%rsp), %r10\n"
    "    .cfi_def_cfa %r10, 0\n"
    "    andq $-64, %rsp\n"
    "    pushq -8(%r10)\n"
    "    pushq %rbp\n"
    "    movq %rsp, %rbp\n"
    // DW_CFA_expression rbp: DW_OP_breg6 0 (the caller's rbp at [rbp])
    "    .cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00\n"
    "    pushq %r10\n"
    // DW_CFA_def_cfa_expression: DW_OP_breg6 -8, DW_OP_deref (the CFA at [rbp - 8])
    "    .cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06\n"
    "    subq $8, %rsp\n"
    "    movq %rdi, %rax\n"
    "    movq %rsi, %rdi\n"
    "    callq *%rax\n"
    "    addq $8, %rsp\n"
    "    popq %r10\n"
    "    popq %rbp\n"
    "    leaq -8(%r10), %rsp\n"
    "    .cfi_def_cfa %rsp, 8\n"
    "    retq\n"
    "    .cfi_endproc\n"
    ".size lg_realigned_frame, .-lg_realigned_frame\n");
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

__attribute__((noinline)) void lg_call_through_frame_record_below_cfa(void (*body)(void *), void *context) {
#if defined(__x86_64__) && defined(__linux__)
    lg_frame_record_below_cfa(body, context);
#else
    body(context);
#endif
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void lg_call_through_realigned_frame(void (*body)(void *), void *context) {
#if defined(__x86_64__) && defined(__linux__)
    lg_realigned_frame(body, context);
#else
    body(context);
#endif
    __asm__ volatile("" ::: "memory");
}
