import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
@testable import Marmot

/// A v2 party that does not run our client: it builds v2 key packages, groups, Welcomes, commits and
/// kind-445 events from our MLS and Marmot types, so it can break any v2 rule on purpose.
struct V2HostileParty: CommittingParty {
    let keys: Keys
    var group: MLSGroup?
    var ownPackage: (keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial)?

    init(keys: Keys = .generate()) { self.keys = keys }

    var publicKey: PublicKey { keys.publicKey }
    var nostrGroupID: NostrGroupID? { group.flatMap { try? V2GroupRules().metadata(of: $0.extensions).nostrGroupID } }

    /// Publishes a valid v2 key package (so our client can invite this party) and keeps its private half.
    mutating func publishKeyPackage(to url: String) async throws {
        let created = try V2KeyPackage.create(keys: keys)
        ownPackage = created
        let event = try V2KeyPackageEvent.build(keyPackage: created.keyPackage, keys: keys)
        guard try await RelayReads.publish(event, to: url).isAccepted else { throw HarnessError.unexpected("key package refused") }
    }

    /// Creates a v2 group with this party's leaf, `admins` in the admin policy and `extraRequired`
    /// added to the required component list, adding `invitees`; returns the Welcome.
    mutating func createGroup(
        admins: [PublicKey], invitees: [KeyPackage], relays: [RelayURL], extraRequired: [UInt16] = []
    ) throws -> Welcome {
        let rules = V2GroupRules()
        let signer = CipherSuiteProvider.mls128X25519.generateSignatureKey()
        let leaf = try rules.ownLeaf(keys: keys, signer: signer)
        var extensions = try rules.groupContextExtensions(
            GroupMetadata(nostrGroupID: .random(), name: "", description: "", admins: admins, relays: relays), invitees: invitees)
        if !extraRequired.isEmpty, var dictionary = try extensions.payload(AppDataDictionary.self) {
            dictionary.set(
                MarmotComponentID.appComponents, Data(ComponentsList(V2GroupRules.requiredComponents + extraRequired).bytes))
            extensions = extensions.map { $0.type == .appDataDictionary ? Extension(dictionary) : $0 }
        }
        var created = try MLSGroup.create(
            groupID: GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16)), signer: signer,
            credential: NostrIdentity.credential(publicKey), capabilities: leaf.capabilities, leafExtensions: leaf.extensions,
            groupContextExtensions: extensions, configuration: .marmotV2)
        let pending = try created.commit(adding: invitees)
        group = pending.newGroup
        guard let welcome = pending.welcome else { throw HarnessError.unexpected("no welcome") }
        return welcome
    }

    /// Waits for a gift-wrapped v2 Welcome on the relay and joins with its key package, under
    /// `configuration` (modified code may frame its handshakes otherwise).
    mutating func joinFromRelay(_ url: String, configuration: GroupConfiguration = .marmotV2) async throws {
        guard let own = ownPackage else { throw HarnessError.unexpected("no key package") }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let wraps = try await RelayReads.fetch(Filter(kinds: [.giftWrap], tags: ["p": [publicKey.hex]]), from: url)
            if let wrap = wraps.first {
                let rumor = try GiftWrap.unwrap(wrap, recipient: keys.secretKey).rumor
                let welcome = try V2WelcomeRumor.parse(rumor).welcome
                group = try MLSGroup.join(
                    welcome: welcome, keyPackage: own.keyPackage, privateMaterial: own.privateMaterial,
                    configuration: configuration)
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError.timeout("welcome for the hostile party")
    }

    /// A kind-445 event with exactly `tags` (default: the v2 `h` tag) carrying `message` in the
    /// current epoch, or in that of `epochOf`.
    func event(
        _ message: MLSMessage, tags: [Tag]? = nil, epochOf: MLSGroup? = nil, createdAt: Int64 = UnsignedEvent.now()
    ) throws -> Event {
        guard let group = epochOf ?? group else { throw HarnessError.unexpected("no group") }
        guard let nostrGroupID = try? V2GroupRules().metadata(of: group.extensions).nostrGroupID else {
            throw HarnessError.unexpected("no group")
        }
        let key = try GroupEventKey(exporter: { try group.exporter(label: $0, context: $1, length: $2) })
        return try GroupEvent.build(
            mlsMessage: message.tlsSerialized, tags: tags ?? [Tag(["h", nostrGroupID.hex])], key: key, createdAt: createdAt)
    }

    /// Makes a v2 key package and keeps its private half, for joining a group directly.
    mutating func makeKeyPackage() throws -> KeyPackage {
        let created = try V2KeyPackage.create(keys: keys)
        ownPackage = created
        return created.keyPackage
    }

    /// Joins from a Welcome with the key package `makeKeyPackage` made.
    mutating func join(_ welcome: Welcome) throws {
        guard let own = ownPackage else { throw HarnessError.unexpected("no key package") }
        group = try MLSGroup.join(
            welcome: welcome, keyPackage: own.keyPackage, privateMaterial: own.privateMaterial, configuration: .marmotV2)
    }

    /// Encrypts a valid v2 inner chat event as this party in its current epoch.
    mutating func chat(_ text: String) throws -> MLSMessage {
        guard var group else { throw HarnessError.unexpected("no group") }
        let rumor = UnsignedEvent(pubkey: publicKey, createdAt: UnsignedEvent.now(), kind: .chatMessage, tags: [], content: text)
        let sealed = try group.encrypt(Data(rumor.jsonString.utf8))
        self.group = group
        return sealed
    }

    /// Gift-wraps a v2 Welcome, sealed by this party, to the author of `invitee`.
    func wrap(_ welcome: Welcome, to invitee: PeerKeyPackage, relays: [RelayURL]) throws -> Event {
        try V2GroupRules().wrapWelcome(
            welcome, author: keys, invitee: invitee, relays: relays, client: nil, createdAt: UnsignedEvent.now())
    }

    /// Creates a v2 group (see `createGroup`) inviting `invitee` with its newest v2 key package on the
    /// relay and, with `publish`, delivers the sealed Welcome there.
    @discardableResult
    mutating func invite(
        _ invitee: PublicKey, on url: String, admins: [PublicKey]? = nil, extraRequired: [UInt16] = [], publish: Bool = true
    ) async throws -> (welcome: Welcome, package: PeerKeyPackage) {
        let package = try await Self.keyPackage(of: invitee, on: url)
        let relays = [try RelayURL(url)]
        let welcome = try createGroup(
            admins: admins ?? [publicKey], invitees: [package.keyPackage], relays: relays, extraRequired: extraRequired)
        if publish {
            guard try await RelayReads.publish(try wrap(welcome, to: package, relays: relays), to: url).isAccepted else {
                throw HarnessError.unexpected("welcome refused")
            }
        }
        return (welcome, package)
    }

    /// The newest v2 key package `author` published on the relay.
    static func keyPackage(of author: PublicKey, on url: String) async throws -> PeerKeyPackage {
        let events = try await RelayReads.fetch(Filter(authors: [author], kinds: [.addressableKeyPackage]), from: url)
        for event in events.sorted(by: { $0.createdAt > $1.createdAt }) {
            if let parsed = try? PeerKeyPackage(v2Event: event, now: UnsignedEvent.now()) { return parsed }
        }
        throw HarnessError.unexpected("no v2 key package of \(author.hex)")
    }
}
