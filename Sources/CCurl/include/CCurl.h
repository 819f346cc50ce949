// A minimal bridge to libcurl's easy interface, loaded at run time with dlopen, so tracker builds without libcurl's
// headers (the -dev package) and runs wherever FoundationNetworking does: it links the same libcurl.so.4.
#ifndef TRACKER_CCURL_H
#define TRACKER_CCURL_H

#include <stddef.h>

/// Whether libcurl could be loaded (done once; safe from any thread).
int tracker_curl_load(void);

/// A reusable easy handle: it keeps its connections alive between requests.
void *tracker_curl_handle_new(void);
void tracker_curl_handle_free(void *handle);

/// One request. Strings are NUL-terminated; `headers` holds `header_count` "Name: value" lines.
typedef struct {
    const char *url;
    const char *method;
    const char *const *headers;
    int header_count;
    const char *body;
    long long body_length;
    long timeout_ms;
    /// Non-zero: a connection of its own, closed afterwards (never a reused one that libcurl may silently re-send on).
    int fresh_connection;
    /// Set to non-zero from another thread to abandon the transfer.
    int cancelled;
    /// A descriptor the body of a 2xx answer is written to as it arrives (other answers are kept in memory); -1 for
    /// none. A download then has no overall deadline: it fails when under a byte a second arrives for `timeout_ms`.
    int body_fd;
    /// Non-zero: no overall deadline; the transfer fails when under a byte a second moves for `timeout_ms` (uploads).
    int stall_deadline_only;
    /// Non-zero: follow redirects (downloads; never with a token).
    int follow_redirects;
    /// Body bytes received so far, for progress; read with an atomic load from another thread.
    long long received;
    /// Request body bytes sent so far, for an upload's progress; read the same way.
    long long sent;
    /// Called once, on the transfer's thread, when the connection is open (DNS, TCP, TLS, any proxy done) and before
    /// the request's first byte leaves; non-zero lets it go, 0 abandons it with nothing sent. NULL: no gate. A libcurl
    /// older than 7.80 (no prerequest callback) calls it before connecting instead.
    int (*before_sending)(void *context);
    void *before_sending_context;
    /// When not NULL, "host:port:address": the host is connected at that address only (checked beforehand, so no
    /// second DNS answer can point it elsewhere), with no proxy and https alone.
    const char *pinned;
    /// When positive, the most body bytes taken: a longer answer is abandoned (error 63).
    long long max_body;
} tracker_curl_request;

/// What came back. `body` and `header_block` are malloc'd; free them with tracker_curl_response_free.
typedef struct {
    int code;
    long status;
    char *header_block;
    size_t header_length;
    char *body;
    size_t body_length;
    char error[256];
    /// The errno of a failed write to `body_fd`, else 0.
    int write_errno;
} tracker_curl_response;

/// Performs `request` on `handle` (blocking), filling `response`. Returns libcurl's result code (0 is success).
int tracker_curl_perform(void *handle, tracker_curl_request *request, tracker_curl_response *response);

void tracker_curl_response_free(tracker_curl_response *response);

/// An atomic read of a request's `received` counter.
long long tracker_curl_received(long long *counter);

/// libcurl's words for a result code.
const char *tracker_curl_strerror(int code);

/// A byte stream opened by libcurl's connect-only mode (TCP, TLS verified as for HTTPS, or a Unix socket): how tracker
/// speaks to a Redis without a library of its own. `url` is `http://host:port` or `https://host:port`; `unix_path`, when
/// not NULL, is the socket to connect to instead; `ca_file`, when not NULL, is the only CA trusted. Proxies are never
/// used. Returns the handle, or NULL with libcurl's result code in `*code` and its words in `error` (256 bytes).
void *tracker_curl_stream_open(const char *url, const char *unix_path, const char *ca_file, long connect_timeout_ms,
                               int *code, char *error);

/// A byte stream over a plain socket, for a Redis without TLS at a numeric address (IPv4 or IPv6 `host` and `port`) or a
/// Unix socket (`unix_path`): nothing is loaded for it. NULL with libcurl's result code for the failure in `*code`
/// (7 not connected, 28 timed out, 3 neither a numeric address nor a usable path) and the system's words in `error`
/// (256 bytes). The functions below take either kind of stream.
void *tracker_socket_stream_open(const char *host, int port, const char *unix_path, long connect_timeout_ms,
                                 int *code, char *error);

/// Sends all of `length` bytes, waiting at most `timeout_ms` for the socket; libcurl's result code (0 is success).
int tracker_curl_stream_send(void *stream, const char *bytes, size_t length, long timeout_ms);

/// Receives what has arrived (at most `capacity` bytes), waiting at most `timeout_ms` for something; the count in
/// `*received` (0 when the peer closed), and libcurl's result code.
int tracker_curl_stream_receive(void *stream, char *buffer, size_t capacity, size_t *received, long timeout_ms);

/// Closes the stream and frees its handle.
void tracker_curl_stream_close(void *stream);

#endif
