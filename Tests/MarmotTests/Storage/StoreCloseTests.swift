import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// Closing a store while other tasks still use it (a client's background work at shutdown).
@Suite struct StoreCloseTests {
    @Test func closeWaitsForCallsInProgressAndLaterCallsFailCleanly() async throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let account = Keys.generate()
        let key = StorageKey(deriving: account.secretKey, installationSecret: .generate())
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        let id = GroupID(Data(repeating: 9, count: 16))
        try store.saveGroup(StoredGroup(
            mlsGroupID: id, nostrGroupID: .random(), mlsState: Data("state".utf8), epoch: 1, name: "", groupDescription: "",
            admins: [account.publicKey], relays: [], peer: nil, status: .active, createdAt: 1_800_000_000))

        // Readers hammer the store from several threads while it is closed under them.
        let outcomes = await withTaskGroup(of: (ok: Int, closed: Int, other: Int).self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var tally = (ok: 0, closed: 0, other: 0)
                    for _ in 0..<300 {
                        do {
                            _ = try store.group(mlsGroupID: id)
                            tally.ok += 1
                        } catch StorageError.closed {
                            tally.closed += 1
                        } catch {
                            tally.other += 1
                        }
                    }
                    return tally
                }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(5))
                try? store.close()
                return (0, 0, 0)
            }
            var total = (ok: 0, closed: 0, other: 0)
            for await t in group { total = (total.ok + t.ok, total.closed + t.closed, total.other + t.other) }
            return total
        }
        #expect(outcomes.ok + outcomes.closed == 1_200)
        #expect(outcomes.other == 0)
        #expect(throws: StorageError.closed) { _ = try store.group(mlsGroupID: id) }
        #expect(throws: StorageError.closed) { try store.markGroupRead(mlsGroupID: id) }
        try store.close()  // a second close is harmless
    }
}
