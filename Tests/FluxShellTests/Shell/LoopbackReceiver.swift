import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP receiver on 127.0.0.1 (a port of its own), started by a spec: it answers `POST`s whose
/// `X-Entry-Id` header names the entry and whose body is its payload. It fails the first `failFirst`
/// requests (503), refuses the payloads `refuse` picks (409), and dedupes by id: an id seen before gets
/// the answer it got then, and is not taken twice.
final class LoopbackReceiver: @unchecked Sendable {
    /// An entry the receiver took: its id and payload, in the order they first arrived.
    struct Taken: Equatable {
        let id: Int
        let payload: String
    }

    let port: Int
    private let socket: Int32
    private let lock = NSLock()
    private var failuresLeft: Int
    private let refuse: @Sendable (String) -> Bool
    private var answers: [Int: Int] = [:]
    private var _taken: [Taken] = []
    private var _refused: [Taken] = []
    private var _requests = 0
    private var _duplicates = 0

    /// The URL to post to.
    var url: String { "http://127.0.0.1:\(port)/entries" }
    /// What it took, each id once, in the order first taken.
    var taken: [Taken] { lock.withLock { _taken } }
    /// What it refused, each id once.
    var refused: [Taken] { lock.withLock { _refused } }
    /// Every request, duplicates and failures included.
    var requests: Int { lock.withLock { _requests } }
    /// Requests for an id answered before (a send again after a crash between the send and its answer being saved).
    var duplicates: Int { lock.withLock { _duplicates } }

    init(failFirst: Int = 0, refuse: @escaping @Sendable (String) -> Bool = { _ in false }) throws {
        failuresLeft = failFirst
        self.refuse = refuse
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw ReceiverError(what: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    struct ReceiverError: Error {
        let what: String
    }

    /// Stops accepting (the thread's accept fails and it ends).
    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    private func serve() {
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else { return }
            handle(client)
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Range<Data.Index>?
        var bodyLength = 0
        while true {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            data.append(buffer, count: count)
            if headerEnd == nil, let end = data.range(of: Data("\r\n\r\n".utf8)) {
                headerEnd = end
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
                bodyLength = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
            }
            if let end = headerEnd, data.count - end.upperBound >= bodyLength { break }
        }
        let head = String(decoding: data[..<headerEnd!.lowerBound], as: UTF8.self)
        let body = String(decoding: data[headerEnd!.upperBound...], as: UTF8.self)
        let id = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-entry-id:") }
            .flatMap { Int($0.dropFirst(11).trimmingCharacters(in: .whitespaces)) }
        let status: Int = lock.withLock {
            _requests += 1
            if failuresLeft > 0 {
                failuresLeft -= 1
                return 503
            }
            guard let id else { return 400 }
            if let answer = answers[id] {
                _duplicates += 1
                return answer
            }
            let answer = refuse(body) ? 409 : 200
            answers[id] = answer
            if answer == 200 { _taken.append(Taken(id: id, payload: body)) } else { _refused.append(Taken(id: id, payload: body)) }
            return answer
        }
        let reason = [200: "OK", 409: "Conflict", 503: "Service Unavailable", 400: "Bad Request"][status] ?? "?"
        let response = "HTTP/1.1 \(status) \(reason)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = response.withCString { write(client, $0, strlen($0)) }
    }
}
