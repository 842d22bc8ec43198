#include "CLeakGraphSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

// Dumps on signals (`LEAKGRAPH_DUMP_ON=exit,term,usr1`): a server is stopped by its supervisor
// (SIGTERM, SIGINT) and never exits normally, and a long-running process is best looked at while
// it runs (SIGUSR1, as often as wanted). Nothing async-signal-unsafe runs in the handler: it
// writes the signal's number to a pipe, and a thread started when the handlers were installed
// reads it, writes the dump (in Swift), and for SIGTERM/SIGINT then lets the signal do what it
// would have done without LeakGraph: the handler that was installed before runs, or the default
// action ends the process with that signal.

/// Defined by the LeakGraph module (`dumpOnSignal` in DumpWriter.swift).
extern void lg_swift_dump_on_signal(int signal) __attribute__((weak));

enum { lg_dump_on_exit = 1, lg_dump_on_term = 2, lg_dump_on_usr1 = 4 };

static int lg_dump_on = -1;
static int lg_signal_pipe[2] = {-1, -1};
static struct sigaction lg_previous_term, lg_previous_int, lg_previous_usr1;

int lg_dump_on_events(void) {
    if (lg_dump_on >= 0) return lg_dump_on;
    const char *value = getenv("LEAKGRAPH_DUMP_ON");
    if (value == NULL || value[0] == 0) return lg_dump_on = lg_dump_on_exit;
    int events = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", value);
    char *saved = NULL;
    for (char *token = strtok_r(copy, ", ", &saved); token != NULL; token = strtok_r(NULL, ", ", &saved)) {
        if (strcasecmp(token, "exit") == 0) events |= lg_dump_on_exit;
        else if (strcasecmp(token, "term") == 0) events |= lg_dump_on_term;
        else if (strcasecmp(token, "usr1") == 0) events |= lg_dump_on_usr1;
        else
            fprintf(stderr, "leakgraph: LEAKGRAPH_DUMP_ON: unknown event `%s` ignored (events: exit, term, usr1)\n",
                    token);
    }
    return lg_dump_on = events;
}

static struct sigaction *lg_previous_action(int signal) {
    switch (signal) {
    case SIGTERM: return &lg_previous_term;
    case SIGINT: return &lg_previous_int;
    default: return &lg_previous_usr1;
    }
}

/// Lets `signal` do what it would have done without LeakGraph: the previous handler, the default
/// action (ending the process), or nothing when it was ignored.
static void lg_pass_on(int signal) {
    sigaction(signal, lg_previous_action(signal), NULL);
    kill(getpid(), signal);
}

static void lg_signal_handler(int signal) {
    int saved = errno;
    // A forked child has no dump thread (and shares the pipe with its parent).
    if (lg_is_forked_child() || lg_signal_pipe[1] < 0) {
        if (signal != SIGUSR1) lg_pass_on(signal);
    } else {
        unsigned char number = (unsigned char)signal;
        (void)!write(lg_signal_pipe[1], &number, 1);
    }
    errno = saved;
}

static void *lg_signal_thread(void *argument) {
    (void)argument;
    for (;;) {
        unsigned char number;
        ssize_t got = read(lg_signal_pipe[0], &number, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return NULL;
        int signal = number;
        if (lg_swift_dump_on_signal != NULL) lg_swift_dump_on_signal(signal);
        if (signal == SIGTERM || signal == SIGINT) lg_pass_on(signal);
    }
}

static void lg_install(int signal, struct sigaction *previous) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = lg_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(signal, &action, previous);
}

// Installed before `main` when LEAKGRAPH_DUMP_DIR is set and LEAKGRAPH_DUMP_ON asks for signals.
__attribute__((constructor)) static void lg_signal_dumps_from_environment(void) {
    const char *directory = getenv("LEAKGRAPH_DUMP_DIR");
    if (directory == NULL || directory[0] == 0) return;
    int events = lg_dump_on_events();
    if ((events & (lg_dump_on_term | lg_dump_on_usr1)) == 0) return;
    if (pipe(lg_signal_pipe) != 0) {
        fputs("leakgraph: LEAKGRAPH_DUMP_ON: cannot make a pipe; no dumps on signals\n", stderr);
        return;
    }
    for (int i = 0; i < 2; i++) fcntl(lg_signal_pipe[i], F_SETFD, FD_CLOEXEC);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    // The dump thread must not take the signals it serves (they would wait behind the dump).
    sigset_t blocked, previous;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &blocked, &previous);
    int started = pthread_create(&thread, &attributes, lg_signal_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    pthread_attr_destroy(&attributes);
    if (started != 0) {
        fputs("leakgraph: LEAKGRAPH_DUMP_ON: cannot start its thread; no dumps on signals\n", stderr);
        return;
    }
    if (events & lg_dump_on_term) {
        lg_install(SIGTERM, &lg_previous_term);
        lg_install(SIGINT, &lg_previous_int);
    }
    if (events & lg_dump_on_usr1) lg_install(SIGUSR1, &lg_previous_usr1);
}
