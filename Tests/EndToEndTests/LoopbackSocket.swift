import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The loopback sockets the tests' own servers use: a listener on a free port, and a connection to one.
enum LoopbackSocket {
    /// A listening socket on 127.0.0.1 and the port the system gave it.
    static func listen(backlog: Int32 = 16) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = self.address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, Glibc.listen(descriptor, backlog) == 0 else {
            close(descriptor)
            throw XCTSkip("no free loopback port")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Accepts connections on `listener` on a thread of its own, handing each to `each`, until the listener closes.
    static func acceptEach(on listener: Int32, _ each: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            while case let client = accept(listener, nil, nil), client >= 0 { each(client) }
        }
    }

    /// Stops `listener`: a thread blocked in `accept` returns.
    static func stop(_ listener: Int32) {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// A connection to `port` on 127.0.0.1, or nil.
    static func connect(port: Int) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = self.address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
