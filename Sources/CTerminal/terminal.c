#include "CTerminal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static int terminal_fd = -1;
static struct termios saved;
static volatile sig_atomic_t taken = 0;

// Focus reports on (CSI ? 1004 h): a board nobody looks at polls less.
static const char enter_sequence[] = "\033[?1049h\033[?1004h\033[?25l\033[H\033[2J";
static const char leave_sequence[] = "\033[0m\033[?25h\033[?1004l\033[?1049l";

static const int handled_signals[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGSEGV, SIGFPE};
// What SIGTERM, SIGHUP and SIGINT did before the terminal was taken: tracker's own watcher (a handler that writes to
// its pipe) is called after the terminal is given back, so the process ends through its clean-ups (the team's lease
// let go) rather than dying of the signal.
static const int watched_signals[] = {SIGTERM, SIGHUP, SIGINT};
static struct sigaction previous[3];

static void write_all(const char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = write(terminal_fd, bytes, count);
        if (written < 0) {
            if (errno == EINTR) continue;
            return;
        }
        bytes += written;
        count -= (size_t)written;
    }
}

static int enter_raw(void) {
    struct termios raw = saved;
    raw.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    raw.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
    raw.c_cflag |= CS8;
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(terminal_fd, TCSAFLUSH, &raw) != 0) return errno;
    write_all(enter_sequence, sizeof enter_sequence - 1);
    taken = 1;
    return 0;
}

void tracker_terminal_give_back(void) {
    if (!taken) return;
    taken = 0;
    int saved_errno = errno;
    write_all(leave_sequence, sizeof leave_sequence - 1);
    tcsetattr(terminal_fd, TCSAFLUSH, &saved);
    errno = saved_errno;
}

static void give_back_and_die(int signal_number) {
    tracker_terminal_give_back();
    for (size_t index = 0; index < sizeof watched_signals / sizeof watched_signals[0]; index++) {
        void (*handler)(int) = previous[index].sa_handler;
        if (watched_signals[index] != signal_number || (previous[index].sa_flags & SA_SIGINFO) ||
            handler == SIG_DFL || handler == SIG_IGN) {
            continue;
        }
        handler(signal_number);
        return;
    }
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal_number, &fallback, NULL);
    // Blocked while this handler runs, it arrives with its default action as the handler returns.
    kill(getpid(), signal_number);
}

int tracker_terminal_take(int fd) {
    terminal_fd = fd;
    if (tcgetattr(fd, &saved) != 0) return errno;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = give_back_and_die;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < sizeof watched_signals / sizeof watched_signals[0]; index++) {
        sigaction(watched_signals[index], NULL, &previous[index]);
    }
    for (size_t index = 0; index < sizeof handled_signals / sizeof handled_signals[0]; index++) {
        sigaction(handled_signals[index], &action, NULL);
    }
    return enter_raw();
}

int tracker_terminal_resume(void) {
    // Continued by `fg`: the terminal may have been changed by the shell meanwhile.
    tcgetattr(terminal_fd, &saved);
    return enter_raw();
}

int tracker_terminal_wait_readable(int fd, int milliseconds) {
    struct pollfd poller = {.fd = fd, .events = POLLIN, .revents = 0};
    for (;;) {
        int ready = poll(&poller, 1, milliseconds);
        if (ready < 0 && errno == EINTR) continue;
        return ready < 0 ? -1 : (ready > 0 ? 1 : 0);
    }
}
