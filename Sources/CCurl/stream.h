#ifndef TRACKER_STREAM_H
#define TRACKER_STREAM_H

#include <stddef.h>

// libcurl's result codes the streams answer with, whichever carries them.
enum { RESULT_TIMEOUT = 28, RESULT_SEND_ERROR = 55, RESULT_RECV_ERROR = 56 };

/// A Redis stream: libcurl's connect-only handle (TLS, a host name), or a plain socket's descriptor (handle NULL).
struct tracker_stream {
    void *handle;
    int fd;
};

/// Milliseconds on the monotonic clock, for deadlines that hold across many waits.
long long tracker_milliseconds_now(void);

/// What is left of a deadline, at least 0.
long tracker_left_until(long long deadline);

/// Waits until `fd` is ready for `events`, at most `timeout_ms`: 1 ready, 0 timed out, -1 failed.
int tracker_stream_wait(int fd, short events, long timeout_ms);

/// A plain socket's send and receive, by `deadline` (monotonic milliseconds); libcurl's result codes.
int tracker_socket_send(struct tracker_stream *stream, const char *bytes, size_t length, long long deadline);
int tracker_socket_receive(struct tracker_stream *stream, char *buffer, size_t capacity, size_t *received,
                           long long deadline);

#endif
