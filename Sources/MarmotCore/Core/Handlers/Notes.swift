import Foundation

/// Notes to self and linked devices (issue 29): the Notes chat is a group of only this account's
/// devices; the messaging layer makes it, lists the devices and links or removes them.
extension AppCore {
    /// Shows the Notes chat, asking the service to make it when this session has none yet.
    func openNotes() {
        guard let session else { return }
        if let notes = session.chats.values.first(where: { $0.info.isNotes && $0.info.isMember }) {
            showChat(notes.id)
            finish(.openNotes, .ok)
            return
        }
        guard let service = session.service else {
            finish(.openNotes, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        let id = session.id
        spawn {
            do {
                return .notesOpened(session: id, .success(try await service.openNotes()))
            } catch {
                return .notesOpened(session: id, .failure(ServiceError(error)))
            }
        }
    }

    func notesOpened(_ result: Result<ChatInfo, ServiceError>) {
        switch result {
        case .success(let info):
            upsertChat(info)
            showChat(info.chatID)
            finish(.openNotes, .ok)
        case .failure(let error):
            fail(.openNotes, error, prefix: "Could not open Notes")
        }
    }

    /// Lists (`.listDevices`), links or removes (`id`) a device; the list comes back as it is after.
    func changeDevices(_ operation: UserOperation, id: String? = nil) {
        guard let session else { return }
        guard let service = session.service else {
            finish(operation, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        let target = id?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() ?? ""
        if operation != .listDevices, target.isEmpty {
            finish(operation, .unknownDevice, "Name a device id (see the device list)")
            return
        }
        state.devices.loading = true
        let sessionID = session.id
        spawn {
            do {
                let change: (devices: [DeviceInfo], groups: [DeviceGroupOutcome])
                switch operation {
                case .linkDevice: change = (try await service.linkDevice(target), [])
                case .removeDevice: change = try await service.removeDevice(target)
                default: change = (try await service.devices(), [])
                }
                return .devicesLoaded(session: sessionID, operation, .success(change))
            } catch {
                return .devicesLoaded(session: sessionID, operation, .failure(ServiceError(error)))
            }
        }
    }

    func devicesLoaded(
        _ operation: UserOperation, _ result: Result<(devices: [DeviceInfo], groups: [DeviceGroupOutcome]), ServiceError>
    ) {
        state.devices.loading = false
        switch result {
        case .success(let change):
            state.devices.list = change.devices.map { device in
                DeviceSummary(
                    id: device.id, name: device.name, addedAt: device.addedAt, addedDisplay: formatter.listTime(device.addedAt),
                    isThisDevice: device.isThisDevice, isLinked: device.isLinked)
            }
            state.devices.loaded = true
            guard operation == .removeDevice else {
                finish(operation, .ok)
                return
            }
            state.devices.lastRemoval = change.groups
            finish(operation, .ok, DevicesState.removalSummary(change.groups))
        case .failure(let error):
            let verb =
                switch operation {
                case .linkDevice: "Could not link the device"
                case .removeDevice: "Could not remove the device"
                default: "Could not list the devices"
                }
            fail(operation, error, prefix: verb)
        }
    }

    /// Adds this account's other linked devices to `chatID` (issue 29: "add my other devices").
    func addMyDevices(_ chatID: ChatID) {
        guard let session else { return }
        guard let service = session.service else {
            finish(.addMyDevices, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        guard let chat = session.chats[chatID], chat.info.isMember else {
            finish(.addMyDevices, .unknownChat, "No such chat")
            return
        }
        let sessionID = session.id
        spawn {
            do {
                return .myDevicesAdded(session: sessionID, .success(try await service.addMyDevices(chatID: chatID)))
            } catch {
                return .myDevicesAdded(session: sessionID, .failure(ServiceError(error)))
            }
        }
    }

    func myDevicesAdded(_ result: Result<[String], ServiceError>) {
        switch result {
        case .success(let ids):
            finish(.addMyDevices, .ok, "Added \(ids.count) device\(ids.count == 1 ? "" : "s"): \(ids.joined(separator: ", "))")
        case .failure(let error):
            fail(.addMyDevices, error, prefix: "Could not add your devices")
        }
    }
}
