import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange over URLSession that never buffers more than `maxBytes` of the answer.
///
/// Why a delegate and not `data(for:)`: a hostile or broken server can send a body of any size; the
/// delegate sees `Content-Length` and each chunk, and cancels the task as soon as the limit is
/// passed, so memory stays bounded by the caller's limit.
///
/// Redirects are never followed (issue 46, N1/D4): a media URL is checked against `MediaURLPolicy`
/// (with its resolved addresses) before the request, and a `302` to a loopback or private address
/// would skip that check. A 3xx answer is `.refused(status:reason:)` and the target is not asked.
enum BlossomHTTP {
    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// The reason given when a server answers with a redirect.
    static let redirectRefusal = "redirects are not followed (the target was not checked as a media URL)"

    /// Bytes of a request body sent so far and in all; called on URLSession's delegate queue.
    typealias Progress = @Sendable (_ sent: Int64, _ total: Int64) -> Void

    static func perform(
        _ request: URLRequest, body: Data?, maxBytes: Int, timeout: TimeInterval, progress: Progress? = nil
    ) async throws(BlossomError) -> Answer {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = max(timeout, 600)
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let collector = BoundedCollector(maxBytes: maxBytes, progress: progress)
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Answer, BlossomError>, Never>) in
                collector.start(continuation)
                let task = body.map { session.uploadTask(with: request, from: $0) } ?? session.dataTask(with: request)
                collector.attach(task)
                task.resume()
            }
        } onCancel: {
            collector.cancel()
        }
        return try result.get()
    }
}

/// URLSession delegate collecting one answer up to a byte limit; resumes its continuation exactly once.
final class BoundedCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let maxBytes: Int
    private let lock = NSLock()
    // Guarded by `lock`.
    private var continuation: CheckedContinuation<Result<BlossomHTTP.Answer, BlossomError>, Never>?
    private var task: URLSessionTask?
    private var response: HTTPURLResponse?
    private var data = Data()
    private var failure: BlossomError?
    /// An error status, answered without reading its body.
    private var earlyAnswer: BlossomHTTP.Answer?
    private var cancelled = false
    private let progress: BlossomHTTP.Progress?

    init(maxBytes: Int, progress: BlossomHTTP.Progress? = nil) {
        self.maxBytes = maxBytes
        self.progress = progress
    }

    /// Reports how much of an upload's body has gone out (URLSession calls this as it sends).
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        progress?(totalBytesSent, totalBytesExpectedToSend)
    }

    /// Refuses every redirect: the new URL was not checked by the media URL policy (issue 46, N1).
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        lock.withLock {
            if failure == nil, earlyAnswer == nil {
                failure = .refused(status: response.statusCode, reason: BlossomHTTP.redirectRefusal)
            }
        }
        completionHandler(nil)
        task.cancel()
    }

    func start(_ continuation: CheckedContinuation<Result<BlossomHTTP.Answer, BlossomError>, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    func attach(_ task: URLSessionTask) {
        let cancelNow = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionTask? in
            cancelled = true
            if failure == nil, earlyAnswer == nil { failure = .unreachable("cancelled") }
            return self.task
        }
        task?.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse else {
            lock.withLock { failure = .invalidResponse("not an HTTP response") }
            completionHandler(.cancel)
            return
        }
        let announced = http.expectedContentLength
        let isHead = dataTask.originalRequest?.httpMethod == "HEAD"
        let stop = lock.withLock { () -> Bool in
            self.response = http
            if failure != nil { return true }
            // An error answer says why in its status and `X-Reason`; its body is not needed.
            if !(200..<300).contains(http.statusCode) {
                earlyAnswer = BlossomHTTP.Answer(status: http.statusCode, headers: Self.headers(http), body: Data())
                return true
            }
            if !isHead, announced > 0, announced > Int64(maxBytes) {
                failure = .tooLarge
                return true
            }
            return false
        }
        completionHandler(stop ? .cancel : .allow)
    }

    static func headers(_ response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return headers
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive chunk: Data) {
        let over = lock.withLock { () -> Bool in
            guard failure == nil, earlyAnswer == nil else { return true }
            if data.count + chunk.count > maxBytes {
                failure = .tooLarge
                return true
            }
            data.append(chunk)
            return false
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = lock.withLock { () -> (CheckedContinuation<Result<BlossomHTTP.Answer, BlossomError>, Never>?, Result<BlossomHTTP.Answer, BlossomError>) in
            defer { self.continuation = nil }
            let result: Result<BlossomHTTP.Answer, BlossomError>
            if let earlyAnswer {
                result = .success(earlyAnswer)
            } else if let failure {
                result = .failure(failure)
            } else if let error {
                let why = (error as NSError).localizedDescription
                result = .failure(response == nil ? .unreachable(why) : .interrupted(why))
            } else if let response {
                let headers = Self.headers(response)
                let announced = response.expectedContentLength
                if announced >= 0, Int64(data.count) != announced, task.originalRequest?.httpMethod != "HEAD" {
                    result = .failure(.interrupted("received \(data.count) of \(announced) bytes"))
                } else {
                    result = .success(BlossomHTTP.Answer(status: response.statusCode, headers: headers, body: data))
                }
            } else {
                result = .failure(.invalidResponse("no response"))
            }
            return (self.continuation, result)
        }
        continuation?.resume(returning: result)
    }
}
