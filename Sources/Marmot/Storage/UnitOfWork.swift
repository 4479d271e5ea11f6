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

    private static func key(_ store: AnyObject) -> String { "marmot.unit-of-work.\(ObjectIdentifier(store).hashValue)" }

    /// The transaction of `store`'s unit in progress on this thread, if any.
    static func current(of store: AnyObject) -> Database? {
        (Thread.current.threadDictionary[key(store)] as? Box)?.db
    }

    /// Runs `body` with `db` as `store`'s transaction on this thread. An error of `body` that is not
    /// a database one is carried out of GRDB's write unchanged (`MarmotStoreUnitError`), after GRDB
    /// rolled the transaction back.
    static func run<T>(on db: Database, of store: AnyObject, _ body: () throws -> T) throws -> T {
        let key = key(store)
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
