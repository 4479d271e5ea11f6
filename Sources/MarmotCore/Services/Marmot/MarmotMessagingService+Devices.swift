import Foundation
import Marmot

/// Notes to self and linked devices through the Marmot client (issue 29).
extension MarmotMessagingService {
    func openNotes() async throws -> ChatInfo {
        let client = try await connectedClient()
        do {
            let chat = try await client.openNotes()
            guard let info = try await info(chat, client: client) else { throw MarmotMessagingError.unknownChat }
            return info
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func devices() async throws -> [DeviceInfo] {
        let client = try await connectedClient()
        return try await deviceCall(client) { try await client.devices() }
    }

    func linkDevice(_ id: String) async throws -> [DeviceInfo] {
        let client = try await connectedClient()
        return try await deviceCall(client) {
            try await client.linkDevice(id)
            return try await client.devices()
        }
    }

    func removeDevice(_ id: String) async throws -> (devices: [DeviceInfo], groups: [DeviceGroupOutcome]) {
        let client = try await connectedClient()
        var results: [DeviceGroupResult] = []
        let devices = try await deviceCall(client) {
            results = try await client.removeDeviceEverywhere(id)
            return try await client.devices()
        }
        var groups: [DeviceGroupOutcome] = []
        for result in results {
            let chatID = Self.chatID(result.group)
            switch result.status {
            case .done: groups.append(DeviceGroupOutcome(chatID: chatID, isNotes: result.isNotes, status: .removed))
            case .notAllowed: groups.append(DeviceGroupOutcome(chatID: chatID, isNotes: result.isNotes, status: .notAllowed))
            case .failed(let why):
                groups.append(DeviceGroupOutcome(chatID: chatID, isNotes: result.isNotes, status: .failed, reason: why))
            }
            if !result.isNotes, let chat = try? await client.chat(result.group), let info = try? await info(chat, client: client) {
                continuation?.yield(.chatUpdated(info))
            }
        }
        return (devices, groups)
    }

    func addMyDevices(chatID: ChatID) async throws -> [String] {
        let client = try await connectedClient()
        let group = try Self.groupID(chatID)
        let added: [String]
        do {
            added = try await client.addMyDevices(to: group)
        } catch let error as DeviceError {
            throw error
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
        if let chat = try? await client.chat(group), let info = try? await info(chat, client: client) {
            continuation?.yield(.chatUpdated(info))
        }
        return added
    }

    /// Runs a device call, then reports the Notes chat as it is after (made, grown or shrunk).
    private func deviceCall(_ client: MarmotClient, _ call: () async throws -> [AccountDevice]) async throws -> [DeviceInfo] {
        let devices: [AccountDevice]
        do {
            devices = try await call()
        } catch let error as DeviceError {
            throw error
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
        if let notes = await client.notesChat(), let info = try? await info(notes, client: client) {
            continuation?.yield(.chatUpdated(info))
        }
        return devices.map {
            DeviceInfo(id: $0.id, name: $0.name, addedAt: $0.addedAt, isThisDevice: $0.isThisDevice, isLinked: $0.isLinked)
        }
    }
}

extension DeviceError: OutcomeCoded, LocalizedError {
    var outcomeCode: OutcomeCode {
        switch self {
        case .unknownDevice: .unknownDevice
        case .thisDevice: .failed
        case .noOtherDevice: .unknownDevice
        }
    }

    public var errorDescription: String? {
        switch self {
        case .unknownDevice(let id): "No device \(id) of this account (see the device list)"
        case .thisDevice: "This device cannot remove itself"
        case .noOtherDevice: "No other linked device to add (link one from Devices first)"
        }
    }
}
