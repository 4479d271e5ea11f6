import Foundation
import Testing

@testable import MarmotAppKit

@Suite("FileSecretStore")
struct FileSecretStoreTests {
    private let directory = Fixtures.temporaryDirectory()

    private func store(_ relative: String = "secrets/nsec") -> FileSecretStore {
        FileSecretStore(fileURL: directory.appendingPathComponent(relative))
    }

    private func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    @Test("round trip: nothing, save, overwrite, delete, delete again")
    func roundTrip() throws {
        defer { cleanUp() }
        let store = store()
        #expect(try store.load() == nil)
        try store.save(Fixtures.nsec)
        #expect(try store.load() == Fixtures.nsec)
        try store.save("nsec1replacement")
        #expect(try store.load() == "nsec1replacement")
        try store.delete()
        #expect(try store.load() == nil)
        try store.delete()
    }

    @Test("the file is 0600 and a created parent folder 0700")
    func permissions() throws {
        defer { cleanUp() }
        let store = store("a/b/nsec")
        try store.save(Fixtures.nsec)
        #expect(try filePermissions(store.fileURL) == 0o600)
        #expect(try filePermissions(store.fileURL.deletingLastPathComponent()) == 0o700)
    }

    @Test("wider permissions are tightened on save and on load")
    func fixesPermissions() throws {
        defer { cleanUp() }
        let store = store()
        try store.save(Fixtures.nsec)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.fileURL.path)
        try store.save(Fixtures.nsec)
        #expect(try filePermissions(store.fileURL) == 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: store.fileURL.path)
        #expect(try store.load() == Fixtures.nsec)
        #expect(try filePermissions(store.fileURL) == 0o600)
    }

    @Test("an existing parent folder is used as is, and no temporary file is left behind")
    func noLeftovers() throws {
        defer { cleanUp() }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = store("nsec")
        for index in 0..<5 { try store.save("nsec1value\(index)") }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == ["nsec"])
        #expect(try store.load() == "nsec1value4")
    }

    @Test("a hand-written file with a trailing newline loads trimmed; an empty one loads as nothing")
    func handWritten() throws {
        defer { cleanUp() }
        let store = store("nsec")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("\(Fixtures.nsec)\n".utf8).write(to: store.fileURL)
        #expect(try store.load() == Fixtures.nsec)
        try Data().write(to: store.fileURL)
        #expect(try store.load() == nil)
    }

    @Test("a file that cannot be written reports where, never what")
    func failureIsTyped() throws {
        defer { cleanUp() }
        // A regular file where the parent folder should be.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: directory.appendingPathComponent("blocker"))
        let store = store("blocker/nsec")
        let error = try #require(throws: SecretStoreError.self) { try store.save(Fixtures.nsec) }
        guard case .file(_, let path, _) = error else {
            Issue.record("expected a file error, got \(error)")
            return
        }
        #expect(path.hasPrefix(directory.path))
        #expect(!"\(error)".contains(Fixtures.nsec))
    }

    @Test("descriptions show the location only")
    func description() throws {
        defer { cleanUp() }
        let store = store()
        try store.save(Fixtures.nsec)
        #expect("\(store)" == "FileSecretStore(\(store.fileURL.path))")
    }
}

@Suite("InMemorySecretStore")
struct InMemorySecretStoreTests {
    @Test("round trip")
    func roundTrip() throws {
        let store = InMemorySecretStore()
        #expect(try store.load() == nil)
        try store.save(Fixtures.nsec)
        #expect(try store.load() == Fixtures.nsec)
        try store.delete()
        #expect(try store.load() == nil)
    }

    @Test("printing, debug-printing and dumping never show the secret")
    func redacted() {
        let store = InMemorySecretStore(secret: Fixtures.nsec)
        var dumped = ""
        dump(store, to: &dumped)
        for text in ["\(store)", String(reflecting: store), dumped] {
            #expect(!text.contains(Fixtures.nsec))
        }
        #expect("\(store)" == "InMemorySecretStore(secret: redacted)")
        #expect("\(InMemorySecretStore())" == "InMemorySecretStore(empty)")
    }
}
