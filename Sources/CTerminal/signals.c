#include "CTerminal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

// The self-pipe: a handler may only call async-signal-safe functions, so it writes the signal's number here and the
// thread that waits for the command (main's) reads it and does the rest in Swift.
static int signal_pipe[2] = {-1, -1};
static const int watched_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void note_signal(int signal_number) {
    int saved_errno = errno;
    unsigned char byte = (unsigned char)signal_number;
    // The pipe holds 64 KiB: a full one already has a signal waiting to be read, so a lost byte loses nothing.
    (void)write(signal_pipe[1], &byte, 1);
    errno = saved_errno;
}

int tracker_signals_watch(void) {
    if (signal_pipe[0] >= 0) return 0;
    if (pipe(signal_pipe) != 0) return errno;
    for (int end = 0; end < 2; end++) fcntl(signal_pipe[end], F_SETFD, FD_CLOEXEC);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = note_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < sizeof watched_signals / sizeof watched_signals[0]; index++) {
        sigaction(watched_signals[index], &action, NULL);
    }
    return 0;
}

void tracker_signals_finish(void) {
    unsigned char byte = 0;
    while (write(signal_pipe[1], &byte, 1) < 0 && errno == EINTR) {}
}

int tracker_signals_next(void) {
    unsigned char byte = 0;
    for (;;) {
        ssize_t count = read(signal_pipe[0], &byte, 1);
        if (count == 1) return byte;
        if (count < 0 && errno == EINTR) continue;
        return -1;
    }
}
