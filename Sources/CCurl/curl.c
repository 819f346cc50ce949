#include "CCurl.h"
#include "stream.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <poll.h>
#include <time.h>

// Option and info numbers from curl.h; they are libcurl's stable ABI.
enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
    OPT_HTTPHEADER = 10023, OPT_HEADERDATA = 10029, OPT_CUSTOMREQUEST = 10036, OPT_NOPROGRESS = 43,
    OPT_POST = 47, OPT_XFERINFODATA = 10057, OPT_FRESH_CONNECT = 74, OPT_FORBID_REUSE = 75, OPT_HTTPGET = 80,
    OPT_NOSIGNAL = 99, OPT_ACCEPT_ENCODING = 10102, OPT_TIMEOUT_MS = 155, OPT_CONNECTTIMEOUT_MS = 156,
    OPT_COPYPOSTFIELDS = 10165, OPT_HEADERFUNCTION = 20079, OPT_XFERINFOFUNCTION = 20219,
    OPT_POSTFIELDSIZE_LARGE = 30120, OPT_POSTFIELDS = 10015, OPT_FOLLOWLOCATION = 52, OPT_MAXREDIRS = 68,
    OPT_LOW_SPEED_LIMIT = 19, OPT_LOW_SPEED_TIME = 20, INFO_RESPONSE_CODE = 0x200002, GLOBAL_ALL = 3,
    OPT_CONNECT_ONLY = 141, OPT_CAINFO = 10065, OPT_UNIX_SOCKET_PATH = 10231, OPT_PROXY = 10004,
    OPT_SSL_ENABLE_ALPN = 226, INFO_ACTIVESOCKET = 0x500000 + 44, RESULT_AGAIN = 81,
    OPT_PREREQFUNCTION = 20312, OPT_PREREQDATA = 10313, OPT_RESOLVE = 10203, OPT_PROTOCOLS_STR = 10318,
    OPT_REDIR_PROTOCOLS_STR = 10319, RESULT_FILESIZE_EXCEEDED = 63,
    RESULT_ABORTED_BY_CALLBACK = 42,
};

struct slist;
static void *(*easy_init)(void);
static int (*easy_setopt)(void *, int, ...);
static int (*easy_perform)(void *);
static int (*easy_getinfo)(void *, int, ...);
static void (*easy_cleanup)(void *);
static void (*easy_reset)(void *);
static struct slist *(*slist_append)(struct slist *, const char *);
static void (*slist_free_all)(struct slist *);
static const char *(*easy_strerror)(int);
static int (*global_init)(long);
static int (*easy_send)(void *, const void *, size_t, size_t *);
static int (*easy_recv)(void *, void *, size_t, size_t *);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *prepared = NULL;
static int loaded = 0;

static void load(void) {
    const char *names[] = {"libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", "libcurl.4.dylib", NULL};
    void *library = NULL;
    // Lazy: the functions of libcurl's ~30 libraries are bound when first called, not all at load (15% fewer
    // instructions loading it, callgrind); the ones tracker calls are looked up below, at once.
    for (int i = 0; names[i] && !library; i++) library = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
    if (!library) return;
    *(void **)&easy_init = dlsym(library, "curl_easy_init");
    *(void **)&easy_setopt = dlsym(library, "curl_easy_setopt");
    *(void **)&easy_perform = dlsym(library, "curl_easy_perform");
    *(void **)&easy_getinfo = dlsym(library, "curl_easy_getinfo");
    *(void **)&easy_cleanup = dlsym(library, "curl_easy_cleanup");
    *(void **)&easy_reset = dlsym(library, "curl_easy_reset");
    *(void **)&slist_append = dlsym(library, "curl_slist_append");
    *(void **)&slist_free_all = dlsym(library, "curl_slist_free_all");
    *(void **)&easy_strerror = dlsym(library, "curl_easy_strerror");
    *(void **)&global_init = dlsym(library, "curl_global_init");
    // Only the Redis stream needs these; a libcurl without them still serves HTTP.
    *(void **)&easy_send = dlsym(library, "curl_easy_send");
    *(void **)&easy_recv = dlsym(library, "curl_easy_recv");
    if (!easy_init || !easy_setopt || !easy_perform || !easy_getinfo || !easy_cleanup || !easy_reset
        || !slist_append || !slist_free_all || !easy_strerror || !global_init) return;
    // FoundationNetworking may already have done this; libcurl counts the calls.
    if (global_init(GLOBAL_ALL) != 0) return;
    loaded = 1;
    // The first request's handle, made here on the loading thread while the command reads its configuration.
    __atomic_store_n(&prepared, easy_init(), __ATOMIC_RELEASE);
}

int tracker_curl_load(void) {
    pthread_once(&once, load);
    return loaded;
}

void *tracker_curl_handle_new(void) {
    if (!tracker_curl_load()) return NULL;
    void *handle = __atomic_exchange_n(&prepared, NULL, __ATOMIC_ACQ_REL);
    return handle ? handle : easy_init();
}

void tracker_curl_handle_free(void *handle) {
    if (handle) easy_cleanup(handle);
}

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
} buffer;

static int append(buffer *into, const char *bytes, size_t count) {
    if (into->length + count + 1 > into->capacity) {
        size_t capacity = into->capacity ? into->capacity : 16384;
        while (capacity < into->length + count + 1) capacity *= 2;
        char *grown = realloc(into->data, capacity);
        if (!grown) return 0;
        into->data = grown;
        into->capacity = capacity;
    }
    memcpy(into->data + into->length, bytes, count);
    into->length += count;
    into->data[into->length] = 0;
    return 1;
}

typedef struct {
    buffer memory;
    void *handle;
    tracker_curl_request *request;
    tracker_curl_response *response;
    /// -1 until the status is known; then whether the body goes to the descriptor.
    int to_file;
} sink;

static size_t on_body(char *bytes, size_t size, size_t count, void *into) {
    sink *target = into;
    size_t length = size * count;
    if (target->to_file < 0) {
        long status = 0;
        easy_getinfo(target->handle, INFO_RESPONSE_CODE, &status);
        target->to_file = target->request->body_fd >= 0 && status >= 200 && status < 300;
    }
    long long received = __atomic_add_fetch(&target->request->received, (long long)length, __ATOMIC_RELAXED);
    if (target->request->max_body > 0 && received > target->request->max_body) return 0;
    if (!target->to_file) return append(&target->memory, bytes, length) ? length : 0;
    size_t done = 0;
    while (done < length) {
        ssize_t written = write(target->request->body_fd, bytes + done, length - done);
        if (written < 0) {
            if (errno == EINTR) continue;
            target->response->write_errno = errno;
            return 0;
        }
        done += (size_t)written;
    }
    return length;
}

static size_t on_header(char *bytes, size_t size, size_t count, void *into) {
    buffer *headers = into;
    // A new status line (after a 100 Continue or a redirect) starts the headers of the answer over.
    if (size * count >= 5 && memcmp(bytes, "HTTP/", 5) == 0) headers->length = 0;
    return append(headers, bytes, size * count) ? size * count : 0;
}

static int on_progress(void *request, long long a, long long b, long long c, long long uploaded) {
    (void)a; (void)b; (void)c;
    tracker_curl_request *call = request;
    __atomic_store_n(&call->sent, uploaded, __ATOMIC_RELAXED);
    return __atomic_load_n(&call->cancelled, __ATOMIC_RELAXED) ? 1 : 0;
}

/// libcurl's prerequest callback: the connection is open and the request not yet sent. Redirects call it again; the
/// gate is asked once (a download's redirect goes where the first request was already let go).
static int on_connected(void *data, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)primary_ip; (void)local_ip; (void)primary_port; (void)local_port;
    tracker_curl_request *request = data;
    if (!request->before_sending) return 0;
    int (*gate)(void *) = request->before_sending;
    request->before_sending = NULL;
    return gate(request->before_sending_context) ? 0 : 1;
}

int tracker_curl_perform(void *handle, tracker_curl_request *request, tracker_curl_response *response) {
    memset(response, 0, sizeof *response);
    if (!handle || !tracker_curl_load()) {
        strcpy(response->error, "libcurl could not be loaded");
        return response->code = 2;
    }
    // Reset keeps the handle's connection cache, so keep-alive connections are reused across requests.
    easy_reset(handle);
    buffer headers = {0};
    sink body = {{0}, handle, request, response, -1};
    struct slist *list = NULL;
    for (int i = 0; i < request->header_count; i++) list = slist_append(list, request->headers[i]);
    // libcurl would otherwise wait for a 100 Continue before sending a body over 1 KiB.
    list = slist_append(list, "Expect:");
    easy_setopt(handle, OPT_URL, request->url);
    easy_setopt(handle, OPT_NOSIGNAL, 1L);
    easy_setopt(handle, OPT_HTTPHEADER, list);
    easy_setopt(handle, OPT_ACCEPT_ENCODING, "");
    easy_setopt(handle, OPT_ERRORBUFFER, response->error);
    easy_setopt(handle, OPT_WRITEFUNCTION, on_body);
    easy_setopt(handle, OPT_WRITEDATA, &body);
    easy_setopt(handle, OPT_HEADERFUNCTION, on_header);
    easy_setopt(handle, OPT_HEADERDATA, &headers);
    easy_setopt(handle, OPT_NOPROGRESS, 0L);
    easy_setopt(handle, OPT_XFERINFOFUNCTION, on_progress);
    easy_setopt(handle, OPT_XFERINFODATA, request);
    if (request->body_fd >= 0 || request->stall_deadline_only) {
        // A large file on a slow line may take longer than any one deadline; a stalled one may not.
        easy_setopt(handle, OPT_LOW_SPEED_LIMIT, 1L);
        easy_setopt(handle, OPT_LOW_SPEED_TIME, (request->timeout_ms + 999) / 1000);
    } else {
        easy_setopt(handle, OPT_TIMEOUT_MS, request->timeout_ms);
    }
    easy_setopt(handle, OPT_CONNECTTIMEOUT_MS, request->timeout_ms);
    if (request->follow_redirects) {
        easy_setopt(handle, OPT_FOLLOWLOCATION, 1L);
        easy_setopt(handle, OPT_MAXREDIRS, 5L);
    }
    if (request->fresh_connection) {
        easy_setopt(handle, OPT_FRESH_CONNECT, 1L);
        easy_setopt(handle, OPT_FORBID_REUSE, 1L);
    }
    if (request->body) {
        easy_setopt(handle, OPT_POST, 1L);
        easy_setopt(handle, OPT_POSTFIELDSIZE_LARGE, (long long)request->body_length);
        // The caller keeps the body alive until the transfer ends: no copy of a 7 MB upload.
        easy_setopt(handle, OPT_POSTFIELDS, request->body);
    } else if (strcmp(request->method, "POST") == 0) {
        // A POST without a body (a webhook's refresh) is still a POST, with an empty one.
        easy_setopt(handle, OPT_POST, 1L);
        easy_setopt(handle, OPT_POSTFIELDSIZE_LARGE, 0LL);
        easy_setopt(handle, OPT_POSTFIELDS, "");
    } else {
        easy_setopt(handle, OPT_HTTPGET, 1L);
    }
    if (strcmp(request->method, "GET") != 0 && strcmp(request->method, "POST") != 0) {
        easy_setopt(handle, OPT_CUSTOMREQUEST, request->method);
    }
    if (request->before_sending && easy_setopt(handle, OPT_PREREQFUNCTION, on_connected) == 0) {
        easy_setopt(handle, OPT_PREREQDATA, request);
    } else if (request->before_sending) {
        // No prerequest callback in this libcurl: the gate is asked before the connection is opened.
        int (*gate)(void *) = request->before_sending;
        request->before_sending = NULL;
        if (!gate(request->before_sending_context)) {
            slist_free_all(list);
            strcpy(response->error, "abandoned before it was sent");
            return response->code = RESULT_ABORTED_BY_CALLBACK;
        }
    }
    struct slist *pins = NULL;
    if (request->pinned) {
        pins = slist_append(NULL, request->pinned);
        easy_setopt(handle, OPT_RESOLVE, pins);
        easy_setopt(handle, OPT_PROXY, "");
        easy_setopt(handle, OPT_PROTOCOLS_STR, "https");
        easy_setopt(handle, OPT_REDIR_PROTOCOLS_STR, "https");
    }
    response->code = easy_perform(handle);
    if (response->code == 23 && request->max_body > 0 && request->received > request->max_body) {
        response->code = RESULT_FILESIZE_EXCEEDED;
        strcpy(response->error, "the answer is longer than allowed");
    }
    easy_getinfo(handle, INFO_RESPONSE_CODE, &response->status);
    slist_free_all(list);
    if (pins) slist_free_all(pins);
    response->body = body.memory.data;
    response->body_length = body.memory.length;
    response->header_block = headers.data;
    response->header_length = headers.length;
    return response->code;
}

void tracker_curl_response_free(tracker_curl_response *response) {
    free(response->body);
    free(response->header_block);
    response->body = NULL;
    response->header_block = NULL;
}

const char *tracker_curl_strerror(int code) {
    return tracker_curl_load() ? easy_strerror(code) : "libcurl could not be loaded";
}

long long tracker_curl_received(long long *counter) { return __atomic_load_n(counter, __ATOMIC_RELAXED); }


void *tracker_curl_stream_open(const char *url, const char *unix_path, const char *ca_file, long connect_timeout_ms,
                               int *code, char *error) {
    error[0] = 0;
    if (!tracker_curl_load() || !easy_send || !easy_recv) {
        strcpy(error, "libcurl could not be loaded");
        *code = 2;
        return NULL;
    }
    struct tracker_stream *stream = calloc(1, sizeof *stream);
    void *handle = stream ? easy_init() : NULL;
    if (!handle) {
        free(stream);
        strcpy(error, "libcurl could not make a handle");
        *code = 2;
        return NULL;
    }
    easy_setopt(handle, OPT_URL, url);
    easy_setopt(handle, OPT_NOSIGNAL, 1L);
    easy_setopt(handle, OPT_CONNECT_ONLY, 1L);
    easy_setopt(handle, OPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    easy_setopt(handle, OPT_ERRORBUFFER, error);
    // http_proxy and its kind are for HTTP; a Redis is reached directly.
    easy_setopt(handle, OPT_PROXY, "");
    // Redis speaks RESP, not HTTP/2: no protocol is offered in the handshake.
    easy_setopt(handle, OPT_SSL_ENABLE_ALPN, 0L);
    if (unix_path) easy_setopt(handle, OPT_UNIX_SOCKET_PATH, unix_path);
    if (ca_file) easy_setopt(handle, OPT_CAINFO, ca_file);
    *code = easy_perform(handle);
    if (*code != 0) {
        if (!error[0]) strncpy(error, easy_strerror(*code), 255);
        easy_cleanup(handle);
        free(stream);
        return NULL;
    }
    easy_setopt(handle, OPT_ERRORBUFFER, NULL);
    stream->handle = handle;
    stream->fd = -1;
    return stream;
}

int tracker_stream_wait(int fd, short events, long timeout_ms) {
    if (fd < 0) return -1;
    struct pollfd target = {fd, events, 0};
    for (;;) {
        int ready = poll(&target, 1, (int)timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        return ready < 0 ? -1 : ready;
    }
}

/// Waits until libcurl's socket is ready for `events`, at most `timeout_ms`: 1 ready, 0 timed out, -1 failed.
static int wait_for(void *handle, short events, long timeout_ms) {
    // curl_socket_t is an int on Linux and macOS.
    int socket = -1;
    if (easy_getinfo(handle, INFO_ACTIVESOCKET, &socket) != 0) return -1;
    return tracker_stream_wait(socket, events, timeout_ms);
}

long long tracker_milliseconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// A peer that sends a byte at a time (a TLS record in pieces) wakes poll again and again, and each wait must take only
// what the whole exchange has left.
long tracker_left_until(long long deadline) {
    long long left = deadline - tracker_milliseconds_now();
    return left > 0 ? (long)left : 0;
}

int tracker_curl_stream_send(void *opaque, const char *bytes, size_t length, long timeout_ms) {
    struct tracker_stream *stream = opaque;
    long long deadline = tracker_milliseconds_now() + timeout_ms;
    if (!stream) return RESULT_SEND_ERROR;
    if (!stream->handle) return tracker_socket_send(stream, bytes, length, deadline);
    size_t done = 0;
    while (done < length) {
        size_t sent = 0;
        int result = easy_send(stream->handle, bytes + done, length - done, &sent);
        if (result == RESULT_AGAIN) {
            long left = tracker_left_until(deadline);
            if (left == 0) return RESULT_TIMEOUT;
            int ready = wait_for(stream->handle, POLLOUT, left);
            if (ready == 0) return RESULT_TIMEOUT;
            if (ready < 0) return RESULT_SEND_ERROR;
            continue;
        }
        if (result != 0) return result;
        done += sent;
    }
    return 0;
}

int tracker_curl_stream_receive(void *opaque, char *buffer, size_t capacity, size_t *received, long timeout_ms) {
    struct tracker_stream *stream = opaque;
    *received = 0;
    long long deadline = tracker_milliseconds_now() + timeout_ms;
    if (!stream) return RESULT_RECV_ERROR;
    if (!stream->handle) return tracker_socket_receive(stream, buffer, capacity, received, deadline);
    for (;;) {
        int result = easy_recv(stream->handle, buffer, capacity, received);
        // TLS may have records buffered that poll cannot see, so the library is asked first and poll only after.
        if (result != RESULT_AGAIN) return result;
        long left = tracker_left_until(deadline);
        if (left == 0) return RESULT_TIMEOUT;
        int ready = wait_for(stream->handle, POLLIN, left);
        if (ready == 0) return RESULT_TIMEOUT;
        if (ready < 0) return RESULT_RECV_ERROR;
    }
}

void tracker_curl_stream_close(void *opaque) {
    struct tracker_stream *stream = opaque;
    if (!stream) return;
    if (stream->handle) easy_cleanup(stream->handle);
    if (stream->fd >= 0) close(stream->fd);
    free(stream);
}
