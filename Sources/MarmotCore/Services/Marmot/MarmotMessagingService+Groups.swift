import Foundation
import MLS
import Marmot
import Nostr

/// Group chats through the Marmot client (MIP-01/03 as MDK 0.8.0 does them).
extension MarmotMessagingService {
    func setRelays(_ urls: [URL]) async throws {
        let client = try await connectedClient()
        let relays = try urls.map { url in
            do { return try RelayURL(url.absoluteString) } catch { throw MarmotMessagingError.invalidRelay(url.absoluteString) }
        }
        do {
            try await client.setRelays(relays)
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
        let kept = Set(relays.map(\.string)).union(groupRelays.map(\.url))
        for url in relayStates.keys where !kept.contains(url) { relayStates[url] = nil }
        for url in relayDetails.keys where !kept.contains(url) { relayDetails[url] = nil }
        continuation?.yield(.relayStatus(relayStatus(total: relays.count)))
    }

    func setProfileName(_ name: String) async throws -> String {
        let client = try await connectedClient()
        do {
            return try await client.publishProfile(name: name).shownName ?? name
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func createGroup(name: String, members: [PublicKey]) async throws -> ChatInfo {
        let client = try await connectedClient()
        do {
            let created = try await client.createGroup(name: name, members: members)
            guard let info = try await info(created.chat, client: client) else { throw MarmotMessagingError.unknownChat }
            return info
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func changeGroup(_ chatID: ChatID, _ change: GroupChange) async throws -> ChatInfo? {
        let client = try await connectedClient()
        let group = try Self.groupID(chatID)
        do {
            switch change {
            case .add(let members): _ = try await client.addMembers(members, to: group)
            case .remove(let member): _ = try await client.removeMembers([member], from: group)
            case .rename(let name): _ = try await client.updateGroupData(group, name: name)
            case .setRetention(let seconds): _ = try await client.updateGroupData(group, retention: seconds)
            case .setImage(let data, let mediaType): _ = try await client.setGroupImage(group, data: data, mediaType: mediaType)
            case .clearImage: _ = try await client.clearGroupImage(group)
            case .disband: _ = try await client.disbandGroup(group)
            case .leave: _ = try await client.leaveGroup(group)
            case .setAdmin(let member, let isAdmin):
                guard let chat = try await client.chat(group) else { throw MarmotMessagingError.unknownChat }
                if !isAdmin && member == context.keys.publicKey {
                    _ = try await client.selfDemote(group)
                } else {
                    var admins = chat.admins.filter { $0 != member }
                    if isAdmin { admins.append(member) }
                    _ = try await client.updateGroupData(group, admins: admins)
                }
            }
        } catch let error as GroupChangeError {
            throw MarmotMessagingError.other("\(error)")
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
        guard let chat = try await client.chat(group) else { return nil }
        return try await info(chat, client: client)
    }
}
