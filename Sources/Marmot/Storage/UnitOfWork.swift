import Foundation
import GRDB

/// The transaction a store's `unitOfWork` runs on the current thread, so that the store calls made
/// within it use it instead of starting their own.
///
/// GRDB runs a write's closure synchronously on the calling thread's stack, so the calls `body`
/// makes find the transaction in the thread's dictionary; another thread never sees it and waits
/// for the writer as usual.
enum UnitOfWork {
    private final class Box {
        let db: Database
        init(_ db: Database) { self.db = db }
    }

    /// A thread-dictionary key for one store's units, made once per store.
    static func newKey() -> String { "marmot.unit-of-work." + UUID().uuidString }

    /// The transaction of the unit in progress on this thread under `key`, if any.
    static func current(_ key: String) -> Database? {
        (Thread.current.threadDictionary[key] as? Box)?.db
    }

    /// Runs `body` with `db` as the transaction of `key`'s unit on this thread. An error of `body`
    /// that is not a database one is carried out of GRDB's write unchanged (`MarmotStoreUnitError`),
    /// after GRDB rolled the transaction back.
    static func run<T>(on db: Database, key: String, _ body: () throws -> T) throws -> T {
        Thread.current.threadDictionary[key] = Box(db)
        defer { Thread.current.threadDictionary.removeObject(forKey: key) }
        do { return try body() } catch let error as DatabaseError { throw error } catch {
            throw MarmotStoreUnitError(underlying: error)
        }
    }
}

/// An error of a unit of work's body, carried through GRDB's rollback to the unit's caller.
struct MarmotStoreUnitError: Error {
    let underlying: any Error
}
