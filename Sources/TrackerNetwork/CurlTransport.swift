import TrackerSystem
import TrackerModel
#if os(Linux)
    import CCurl
    import Dispatch
    import FoundationEssentials
    import Glibc

    /// Sends requests with libcurl's blocking easy interface, each on a thread of its own, so waiting for Airtable
    /// costs no CPU: FoundationNetworking's URLSession spins while a request is in flight (the benchmark README has
    /// the CPU a wait costs each way). libcurl is loaded at run time (libcurl.so.4, which every
    /// distribution has), so building needs nothing but the toolchain, and FoundationNetworking is not linked at all.
    /// macOS uses URLSession, which waits idle there.
    ///
    /// It keeps what the URLSession path did: compressed answers inflated (every coding libcurl has), the system's CA
    /// certificates, `HTTPS_PROXY`/`NO_PROXY` from the environment (libcurl reads them), a hard deadline per request,
    /// and writes on a connection of their own (`fresh`), because libcurl silently re-sends a request when a reused
    /// connection dies before answering.
    final class CurlTransport: HTTPTransport, @unchecked Sendable {
        /// Easy handles with live connections, reused by reads (the last used last); writes get a handle of their own.
        private let pool = Locked<[Handle]>([])

        private final class Handle: @unchecked Sendable {
            let pointer: UnsafeMutableRawPointer
            init?() {
                guard let pointer = tracker_curl_handle_new() else { return nil }
                self.pointer = pointer
            }
            deinit { tracker_curl_handle_free(pointer) }
        }

        /// A transport, or nil when libcurl cannot be loaded.
        init?() {
            guard Self.load() else { return nil }
        }

        /// Loads libcurl once per process (later calls wait for the first); false when it cannot be.
        static func load() -> Bool { tracker_curl_load() != 0 }

        public func send(_ request: HTTPRequest, fresh: Bool, timeout: Double) async -> TransportOutcome {
            await send(request, fresh: fresh, timeout: timeout, gate: nil)
        }

        /// libcurl's prerequest callback (7.80 and later) runs when the connection is open, before the request leaves.
        var connectsBeforeSending: Bool { true }

        func send(
            _ request: HTTPRequest, fresh: Bool, timeout: Double, whenConnected: @escaping @Sendable () async -> Bool
        ) async -> TransportOutcome {
            await send(request, fresh: fresh, timeout: timeout, gate: whenConnected)
        }

        private func send(
            _ request: HTTPRequest, fresh: Bool, timeout: Double, gate: (@Sendable () async -> Bool)?
        ) async -> TransportOutcome {
            let call = Call(request: request, timeout: timeout, fresh: fresh, gate: gate)
            guard let progress = request.sendProgress else { return await perform(call, fresh: fresh) }
            return await reporting({ progress.report(call.sent) }) { await perform(call, fresh: fresh) }
        }

        /// Runs `work`, calling `report` five times a second while it runs and once when it is done.
        private func reporting(_ report: @escaping @Sendable () -> Void, _ work: () async -> TransportOutcome) async
            -> TransportOutcome
        {
            let reporter = Task {
                while !Task.isCancelled {
                    report()
                    try? await Task.sleep(nanoseconds: 200_000_000)
                }
            }
            let outcome = await work()
            reporter.cancel()
            report()
            return outcome
        }

        public func download(
            _ request: HTTPRequest, into descriptor: Int32, timeout: Double,
            progress: @escaping @Sendable (Int64) -> Void
        ) async -> TransportOutcome {
            let call = Call(request: request, timeout: timeout, fresh: false, bodyDescriptor: descriptor)
            // Progress is read off the transfer's counter while it runs.
            return await reporting({ progress(call.received) }) { await perform(call, fresh: false) }
        }

        private func perform(_ call: Call, fresh: Bool) async -> TransportOutcome {
            let reused = fresh ? nil : pool.withLock { $0.popLast() }
            guard let handle = reused ?? Handle() else { return .failed(.broken("libcurl could not be loaded")) }
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<TransportOutcome, Never>) in
                    let started = DetachedThread.start {
                        continuation.resume(returning: call.perform(on: handle.pointer))
                    }
                    if !started { continuation.resume(returning: .failed(.broken("no thread for the request"))) }
                }
            } onCancel: {
                call.cancel()
            }
            if !fresh {
                pool.withLock { $0.append(handle) }
            }
            return outcome
        }

        /// One request's C structures, alive until libcurl is done with them.
        private final class Call: @unchecked Sendable {
            /// On the heap: libcurl's thread reads it while another may set its `cancelled` flag, which Swift's
            /// exclusive access to a stored property would not allow.
            private let request = UnsafeMutablePointer<tracker_curl_request>.allocate(capacity: 1)
            private let strings: [UnsafeMutablePointer<CChar>]
            private let headerList: UnsafeMutablePointer<UnsafePointer<CChar>?>
            /// The body as the request holds it: libcurl reads it in place while `perform` runs, so a 7 MB upload is
            /// not copied.
            private let body: Data?
            /// Asked on the transfer's thread once the connection is open; the task running it, to cancel with the call.
            private let gate: (@Sendable () async -> Bool)?
            private let gateTask = Locked<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

            init(
                request: HTTPRequest, timeout: Double, fresh: Bool, bodyDescriptor: Int32 = -1,
                gate: (@Sendable () async -> Bool)? = nil
            ) {
                self.gate = gate
                let url = strdup(request.url.absoluteString)!
                let method = strdup(request.method)!
                let headers = request.headers.sorted { $0.key < $1.key }.map {
                    strdup("\($0.key): \($0.value)")!
                }
                self.request.initialize(to: tracker_curl_request())
                strings = [url, method] + headers
                headerList = .allocate(capacity: max(1, headers.count))
                for (index, header) in headers.enumerated() { headerList[index] = UnsafePointer(header) }
                body = request.body
                self.request.pointee.body_fd = bodyDescriptor
                self.request.pointee.follow_redirects = bodyDescriptor >= 0 ? 1 : 0
                self.request.pointee.stall_deadline_only = request.isLongTransfer ? 1 : 0
                self.request.pointee.url = UnsafePointer(url)
                self.request.pointee.method = UnsafePointer(method)
                self.request.pointee.headers = UnsafePointer(headerList)
                self.request.pointee.header_count = Int32(headers.count)
                self.request.pointee.timeout_ms = Int((timeout + 0.5) * 1000)
                self.request.pointee.fresh_connection = fresh ? 1 : 0
                if gate != nil {
                    self.request.pointee.before_sending = { context in
                        guard let context else { return 0 }
                        return Unmanaged<Call>.fromOpaque(context).takeUnretainedValue().askGate() ? 1 : 0
                    }
                    // Unretained: the call outlives its transfer (`perform` runs on it).
                    self.request.pointee.before_sending_context = Unmanaged.passUnretained(self).toOpaque()
                }
            }

            /// Runs the gate on the transfer's thread (a thread of its own, not the cooperative pool's), waiting for it.
            private func askGate() -> Bool {
                guard let gate else { return true }
                let answer = Locked(false)
                let done = DispatchSemaphore(value: 0)
                let task = Task.detached {
                    let go = await gate()
                    answer.withLock { $0 = go }
                    done.signal()
                }
                let cancelled = gateTask.withLock { state in
                    state.task = task
                    return state.cancelled
                }
                if cancelled { task.cancel() }
                done.wait()
                return answer.withLock { $0 }
            }

            deinit {
                request.deallocate()
                strings.forEach { free($0) }
                headerList.deallocate()
            }

            /// Request body bytes sent so far.
            var sent: Int64 { withUnsafeMutablePointer(to: &request.pointee.sent) { tracker_curl_received($0) } }

            /// Body bytes received so far.
            var received: Int64 {
                withUnsafeMutablePointer(to: &request.pointee.received) { tracker_curl_received($0) }
            }

            func cancel() {
                // The transfer thread reads the flag with an atomic load in its progress callback.
                request.pointee.cancelled = 1
                gateTask.withLock { state in
                    state.cancelled = true
                    return state.task
                }?.cancel()
            }

            func perform(on handle: UnsafeMutableRawPointer) -> TransportOutcome {
                guard let body else { return perform(on: handle, body: nil) }
                let empty: [CChar] = [0]
                return body.isEmpty
                    ? empty.withUnsafeBufferPointer { perform(on: handle, body: ($0.baseAddress!, 0)) }
                    : body.withUnsafeBytes { bytes in
                        perform(on: handle, body: (bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count))
                    }
            }

            private func perform(on handle: UnsafeMutableRawPointer, body: (UnsafePointer<CChar>, Int)?)
                -> TransportOutcome
            {
                request.pointee.body = body?.0
                request.pointee.body_length = Int64(body?.1 ?? 0)
                defer { request.pointee.body = nil }
                var response = tracker_curl_response()
                let code = tracker_curl_perform(handle, request, &response)
                if response.write_errno != 0 {
                    return .failed(.local("cannot write the file: " + String(cString: strerror(response.write_errno))))
                }
                defer { tracker_curl_response_free(&response) }
                guard code == 0 else {
                    let detail = withUnsafeBytes(of: &response.error) { bytes in
                        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    return .failed(Self.failure(code, detail: detail))
                }
                let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
                let block =
                    response.header_block.map {
                        String(
                            decoding: UnsafeRawBufferPointer(start: $0, count: response.header_length), as: UTF8.self)
                    } ?? ""
                return .answered(HTTPAnswer(status: Int(response.status), headers: Self.headers(block), body: body))
            }

            /// The header lines of the last answer (libcurl hands them over as they came).
            /// Read as bytes: Foundation's trimming goes through NSString, which cost more than the request on a fast
            /// loopback listing.
            static func headers(_ block: String) -> [String: String] {
                var headers: [String: String] = [:]
                func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
                    let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D }
                    let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
                    let end = bytes.lastIndex { !isSpace($0) }.map { $0 + 1 } ?? start
                    return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
                }
                for line in Array(block.utf8).split(separator: 0x0A).dropFirst() {
                    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
                    headers[trimmed(line[..<colon]).lowercased()] = trimmed(line[(colon + 1)...])
                }
                return headers
            }

            /// libcurl's result codes (curl.h, stable) in the terms of `TransportFailure`, with its own words.
            static func failure(_ code: Int32, detail: String) -> TransportFailure {
                let words = detail.isEmpty ? String(cString: tracker_curl_strerror(code)) : detail
                switch code {
                case 5, 6: return .unreachable("host name not found")
                case 7:
                    // COULDNT_CONNECT: libcurl 7.88 says "Couldn't connect to server" for a refused connection.
                    let lowered = words.lowercased()
                    let unreachable = lowered.contains("no route") || lowered.contains("unreachable")
                    return .unreachable(unreachable ? "network unreachable" : "connection refused")
                case 28: return .timedOut
                case 18: return .broken("the answer was cut off")
                case 61: return .broken("the compressed answer could not be decoded")
                case 52: return .broken("connection closed without an answer")
                case 55, 56: return .broken("connection reset")
                case 42: return .cancelled
                case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98: return .tls(words)
                default: return TransportFailure.fromCurl(words)
                }
            }
        }
    }
#endif
