#include "CCurl.h"
#include "stream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifdef MSG_NOSIGNAL
#define NO_SIGNAL MSG_NOSIGNAL
#else
#define NO_SIGNAL 0
#endif

/// Fills `address` for a numeric host (IPv4 or IPv6) and port, or a Unix socket's path: its length, 0 when neither.
static socklen_t make_address(const char *host, int port, const char *unix_path, struct sockaddr_storage *address) {
    memset(address, 0, sizeof *address);
    if (unix_path) {
        struct sockaddr_un *place = (struct sockaddr_un *)address;
        if (strlen(unix_path) >= sizeof place->sun_path) return 0;
        place->sun_family = AF_UNIX;
        strcpy(place->sun_path, unix_path);
        return sizeof *place;
    }
    struct sockaddr_in *four = (struct sockaddr_in *)address;
    if (host && inet_pton(AF_INET, host, &four->sin_addr) == 1) {
        four->sin_family = AF_INET;
        four->sin_port = htons((unsigned short)port);
        return sizeof *four;
    }
    struct sockaddr_in6 *six = (struct sockaddr_in6 *)address;
    if (host && inet_pton(AF_INET6, host, &six->sin6_addr) == 1) {
        six->sin6_family = AF_INET6;
        six->sin6_port = htons((unsigned short)port);
        return sizeof *six;
    }
    return 0;
}

/// Says why a connection failed in libcurl's terms: its result code in `*code` and words in `error`.
static void *refuse(int fd, int code, int number, int *result, char *error) {
    if (fd >= 0) close(fd);
    *result = code;
    snprintf(error, 256, "%s", strerror(number));
    return NULL;
}

void *tracker_socket_stream_open(const char *host, int port, const char *unix_path, long connect_timeout_ms,
                                 int *code, char *error) {
    error[0] = 0;
    struct sockaddr_storage address;
    socklen_t length = make_address(host, port, unix_path, &address);
    if (length == 0) {
        strcpy(error, unix_path ? "the socket's path is too long" : "not a numeric address");
        *code = 3;
        return NULL;
    }
    // The flags are set apart (not SOCK_CLOEXEC | SOCK_NONBLOCK, which macOS lacks).
    int fd = socket(address.ss_family, SOCK_STREAM, 0);
    if (fd < 0) return refuse(fd, 7, errno, code, error);
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
        return refuse(fd, 7, errno, code, error);
    }
#ifdef SO_NOSIGPIPE
    // Where send has no MSG_NOSIGNAL, the socket itself is told (tracker ignores SIGPIPE too).
    int quiet = 1;
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &quiet, sizeof quiet);
#endif
    // Commands are written whole and answers awaited: Nagle's delay would hold a pipeline's second write (libcurl
    // turns it off too).
    int on = 1;
    if (!unix_path) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    if (connect(fd, (struct sockaddr *)&address, length) != 0) {
        if (errno != EINPROGRESS && errno != EAGAIN) return refuse(fd, 7, errno, code, error);
        struct pollfd target = {fd, POLLOUT, 0};
        int ready;
        do ready = poll(&target, 1, (int)connect_timeout_ms);
        while (ready < 0 && errno == EINTR);
        if (ready == 0) return refuse(fd, RESULT_TIMEOUT, ETIMEDOUT, code, error);
        int failure = 0;
        socklen_t size = sizeof failure;
        if (ready < 0) failure = errno;
        else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) != 0) failure = errno;
        if (failure != 0) return refuse(fd, 7, failure, code, error);
    }
    struct tracker_stream *stream = calloc(1, sizeof *stream);
    if (!stream) return refuse(fd, 2, ENOMEM, code, error);
    stream->fd = fd;
    *code = 0;
    return stream;
}

int tracker_socket_send(struct tracker_stream *stream, const char *bytes, size_t length, long long deadline) {
    size_t done = 0;
    while (done < length) {
        ssize_t sent = send(stream->fd, bytes + done, length - done, NO_SIGNAL | MSG_DONTWAIT);
        if (sent >= 0) {
            done += (size_t)sent;
            continue;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return RESULT_SEND_ERROR;
        int ready = tracker_stream_wait(stream->fd, POLLOUT, tracker_left_until(deadline));
        if (ready == 0) return RESULT_TIMEOUT;
        if (ready < 0) return RESULT_SEND_ERROR;
    }
    return 0;
}

int tracker_socket_receive(struct tracker_stream *stream, char *buffer, size_t capacity, size_t *received,
                           long long deadline) {
    for (;;) {
        ssize_t count = recv(stream->fd, buffer, capacity, MSG_DONTWAIT);
        if (count >= 0) {
            *received = (size_t)count;
            return 0;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return RESULT_RECV_ERROR;
        int ready = tracker_stream_wait(stream->fd, POLLIN, tracker_left_until(deadline));
        if (ready == 0) return RESULT_TIMEOUT;
        if (ready < 0) return RESULT_RECV_ERROR;
    }
}
