import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether a Nostr relay answers on a loopback port: its NIP-11 information document (`GET /` with
/// `Accept: application/nostr+json`) within a second.
///
/// Tells the home's own embedded relay, run by another `marmot` process, from another program that
/// took its port (`EmbeddedRelay`).
enum RelayProbe {
    static func answers(port: Int, timeout: TimeInterval = 1) async -> Bool {
        guard let url = URL(string: "http://127.0.0.1:\(port)/") else { return false }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("application/nostr+json", forHTTPHeaderField: "Accept")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        guard let (data, response) = try? await session.data(for: request),
            (response as? HTTPURLResponse)?.statusCode == 200,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return false }
        return object["supported_nips"] != nil || object["name"] != nil
    }
}
