// The terminal a full-screen command takes and gives back (`tracker board`), and the signals every command watches, in
// C so that what runs inside a signal handler is async-signal-safe: write(2), tcsetattr(3) and re-raising the signal,
// nothing else.
#ifndef TRACKER_CTERMINAL_H
#define TRACKER_CTERMINAL_H

/// Saves the settings of the terminal on `fd`, switches it to raw input (no echo, no line editing, no signals from
/// keys: Ctrl-C and Ctrl-Z arrive as bytes), the alternate screen and a hidden cursor, and installs handlers that give
/// it back on SIGTERM, SIGHUP, SIGINT, SIGQUIT and the fatal signals (a Swift trap is SIGILL or SIGTRAP) before
/// dying of the signal; SIGTERM, SIGHUP and SIGINT then go on to tracker_signals_watch's handler when it is installed
/// (the process ends through its clean-ups). 0 on success, else the errno.
int tracker_terminal_take(int fd);

/// Gives the terminal back as it was: the main screen, the cursor shown, attributes reset, the saved settings. Safe
/// to call more than once and from a signal handler.
void tracker_terminal_give_back(void);

/// After a stop (Ctrl-Z, then `fg`): takes the terminal again as the shell left it.
int tracker_terminal_resume(void);

/// Waits up to `milliseconds` for `fd` to be readable: 1 if it is, 0 if not, -1 on error.
int tracker_terminal_wait_readable(int fd, int milliseconds);

/// Routes SIGINT, SIGTERM and SIGHUP to tracker_signals_next (a handler that writes to a pipe, nothing else). 0 on
/// success, else the errno; a second call does nothing.
int tracker_signals_watch(void);

/// Wakes tracker_signals_next with 0: the command has finished.
void tracker_signals_finish(void);

/// Waits for the next signal watched (its number) or the command's end (0); -1 if the pipe fails.
int tracker_signals_next(void);

/// The commit tracker was built from, as the release script defines it; "" for a build from a checkout.
const char *tracker_build_commit(void);

/// 1 when the release script built from a tree with changes not committed.
int tracker_build_tree_modified(void);

#endif
