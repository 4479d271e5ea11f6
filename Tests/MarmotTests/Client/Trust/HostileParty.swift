import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
@testable import Marmot

/// A party that does not run our client: it builds MLS groups, commits, Welcomes and kind-445
/// events directly from our MLS and Marmot types, so it can do what modified code would (claim
/// someone else's identity, commit as a removed admin, re-wrap events).
struct HostileParty: CommittingParty {
    let keys: Keys
    var group: MLSGroup?
    var nostrGroupID: NostrGroupID?
    var ownPackage: (KeyPackage, KeyPackagePrivateMaterial)?

    init(keys: Keys = .generate()) { self.keys = keys }

    var publicKey: PublicKey { keys.publicKey }

    /// A KeyPackage whose leaf claims `identity`, signed with a key only this party holds.
    static func keyPackage(claiming identity: PublicKey) throws -> (KeyPackage, KeyPackagePrivateMaterial) {
        let created = try KeyPackage.create(identity: Data(identity.bytes), capabilities: .marmotDefault(grease: true))
        return (created.keyPackage, created.privateMaterial)
    }

    /// Creates a group whose own leaf claims `leafIdentity` (its own key unless given), with
    /// `admins` in the 0xF2EE data, adding `invitees`; returns the Welcome.
    mutating func createGroup(
        leafIdentity: PublicKey? = nil, admins: [PublicKey], invitees: [KeyPackage], relays: [RelayURL], name: String = ""
    ) throws -> Welcome {
        let data = NostrGroupData(nostrGroupID: .random(), name: name, description: "", admins: admins, relays: relays)
        var created = try MLSGroup.create(
            groupID: GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16)),
            signer: CipherSuiteProvider.mls128X25519.generateSignatureKey(),
            credential: NostrIdentity.credential(leafIdentity ?? publicKey),
            capabilities: .marmotDefault(grease: true),
            groupContextExtensions: MarmotGroupExtensions.groupContextExtensions(groupData: data, invitees: invitees),
            configuration: .marmot)
        let pending = try created.commit(adding: invitees)
        group = pending.newGroup
        nostrGroupID = data.nostrGroupID
        guard let welcome = pending.welcome else { throw HarnessError.unexpected("no welcome") }
        return welcome
    }

    /// Joins from a Welcome with a key package this party made.
    mutating func join(_ welcome: Welcome, keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial) throws {
        // Modified code: it does not hold itself to the rule that a leaf's identity never changes.
        var lax = GroupConfiguration.marmot
        lax.credentialsImmutable = false
        let joined = try MLSGroup.join(
            welcome: welcome, keyPackage: keyPackage, privateMaterial: privateMaterial, configuration: lax)
        group = joined
        nostrGroupID = try NostrGroupData(groupContextExtensions: joined.extensions).nostrGroupID
    }

    /// Publishes a key package of its own (so our client can invite it) and keeps its private half.
    mutating func publishKeyPackage(to url: String) async throws {
        let created = try HostileParty.keyPackage(claiming: publicKey)
        ownPackage = created
        let published = try KeyPackageEvent.build(keyPackage: created.0, relays: [try RelayURL(url)], keys: keys)
        guard try await RelayReads.publish(published.addressable, to: url).isAccepted else {
            throw HarnessError.unexpected("key package refused")
        }
    }

    /// Waits for a gift-wrapped Welcome to this party on the relay and joins with its key package.
    mutating func joinFromRelay(_ url: String) async throws {
        guard let own = ownPackage else { throw HarnessError.unexpected("no key package") }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let wraps = try await RelayReads.fetch(Filter(kinds: [.giftWrap], tags: ["p": [publicKey.hex]]), from: url)
            if let wrap = wraps.first {
                let incoming = try IncomingWelcome(giftWrap: wrap, recipient: keys.secretKey)
                try join(incoming.welcome, keyPackage: own.0, privateMaterial: own.1)
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError.timeout("welcome for the hostile party")
    }

    /// Fetches every kind-445 event of its group and processes, in order, those it has not seen.
    mutating func catchUp(_ url: String, seen: inout Set<EventID>) async throws -> [ProcessedMessage] {
        guard let nostrGroupID else { throw HarnessError.unexpected("no group") }
        let events = try await RelayReads.fetch(Filter(kinds: [.groupMessage], tags: ["h": [nostrGroupID.hex]]), from: url)
        var results: [ProcessedMessage] = []
        for event in events.sorted(by: MarmotClient.chronological) where seen.insert(event.id).inserted {
            if let result = try? process(event) { results.append(result) }
        }
        return results
    }

    /// The gift-wrapped Welcome, sealed by this party's own Nostr key, to the author of `invitee`.
    func wrap(_ welcome: Welcome, to invitee: PeerKeyPackage, relays: [RelayURL]) throws -> Event {
        try WelcomeRumor.wrap(welcome: welcome, author: keys, invitee: invitee, relays: relays).giftWrap
    }

    /// The kind-445 event carrying `message` in the current epoch of this party's group, or of
    /// `epochOf` (the state a commit was made from).
    func event(_ message: MLSMessage, createdAt: Int64 = UnsignedEvent.now(), epochOf: MLSGroup? = nil) throws -> Event {
        guard let group = epochOf ?? group, let nostrGroupID else { throw HarnessError.unexpected("no group") }
        let key = try GroupEventKey(exporter: { try group.exporter(label: $0, context: $1, length: $2) })
        return try GroupEvent.build(
            mlsMessage: message.tlsSerialized, nostrGroupID: nostrGroupID, key: key, createdAt: createdAt)
    }

    /// Opens a kind-445 event of the current epoch and processes it.
    @discardableResult
    mutating func process(_ event: Event) throws -> ProcessedMessage {
        guard var group else { throw HarnessError.unexpected("no group") }
        let key = try GroupEventKey(exporter: { try group.exporter(label: $0, context: $1, length: $2) })
        let validated = try GroupEvent.validate(event, now: UnsignedEvent.now(), window: .mdkDefault)
        let plaintext = try validated.decrypt(with: key)
        let result = try group.process(bytes: plaintext)
        self.group = group
        return result
    }
}

/// A party holding its own MLS group state outside our client.
protocol CommittingParty {
    var group: MLSGroup? { get set }
}

extension CommittingParty {
    /// Builds a commit of this party's group and adopts it at once (it does not wait for relays);
    /// returns the message and the state it was made from.
    mutating func commit(_ build: (inout MLSGroup) throws -> PendingCommit) throws -> (message: MLSMessage, before: MLSGroup) {
        guard var group else { throw HarnessError.unexpected("no group") }
        let pending = try build(&group)
        let before = group
        self.group = pending.newGroup
        return (pending.message, before)
    }
}

/// Reading relays in trust tests.
enum RelayReads {
    /// Every stored event matching `filter` (until EOSE).
    static func fetch(_ filter: Filter, from url: String) async throws -> [Event] {
        let raw = try await ClientHarness.rawClient(url)
        defer { Task { await raw.disconnect() } }
        return try await withTimeout(60, "fetch") {
            var events: [Event] = []
            for await message in await raw.subscribe([filter]) {
                if case .event(let event) = message { events.append(event) }
                if message == .endOfStoredEvents { break }
            }
            return events
        }
    }

    /// The newest usable key package `author` published on the relay.
    static func keyPackage(of author: PublicKey, on url: String) async throws -> PeerKeyPackage {
        // Our clients publish v1 as kind 443 beside a v2 kind-30443 one: the newest v1 one wins.
        let events = try await fetch(Filter(authors: [author], kinds: [.addressableKeyPackage, .keyPackage]), from: url)
        for event in events.sorted(by: { $0.createdAt > $1.createdAt }) {
            if let parsed = try? PeerKeyPackage(event: event) { return parsed }
        }
        throw HarnessError.unexpected("no v1 key package of \(author.hex)")
    }

    /// Publishes through a fresh raw connection.
    static func publish(_ event: Event, to url: String) async throws -> PublishResult {
        let raw = try await ClientHarness.rawClient(url)
        defer { Task { await raw.disconnect() } }
        return await raw.publish(event)
    }
}
