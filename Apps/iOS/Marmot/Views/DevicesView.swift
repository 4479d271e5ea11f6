import MarmotAppKit
import SwiftUI

/// This account's devices as the core lists them (`AppState.devices`, issue 29): linked ones with
/// "this device" marked, then those waiting to be linked. Link adds a waiting device to Notes after a
/// confirmation, swipe removes a linked one; the core checks the ids, says how it went in
/// `lastOutcome`, and its history notice says what a linked device does not get.
struct DevicesView: View {
    let manager: AppManager
    /// The device whose Link or Remove waits for the user's confirmation (UI-only state).
    @State private var linking: DeviceSummary?
    @State private var removing: DeviceSummary?

    var body: some View {
        List {
            Section {
                ForEach(manager.state.devices.list) { device in
                    DeviceRow(device: device) {
                        linking = device
                    }
                    .disabled(manager.state.devices.loading)
                    .swipeActions {
                        if device.isLinked && !device.isThisDevice {
                            Button("Remove", role: .destructive) { removing = device }
                        }
                    }
                }
            } header: {
                if manager.state.devices.loading {
                    ProgressView()
                } else {
                    Text("Your devices")
                }
            } footer: {
                VStack(alignment: .leading, spacing: 6) {
                    if let failure {
                        Text(failure)
                            .foregroundStyle(.red)
                    }
                    Text(DevicesState.historyNotice)
                    Text("Swipe a linked device to remove it.")
                }
            }
        }
        .overlay {
            if manager.state.devices.loaded && manager.state.devices.list.isEmpty {
                ContentUnavailableView("No devices listed", systemImage: "laptopcomputer.and.iphone")
            }
        }
        .navigationTitle("Devices")
        .refreshable { manager.dispatch(.loadDevices) }
        .confirmationDialog(
            "Link this device?", isPresented: shown($linking), titleVisibility: .visible, presenting: linking
        ) { device in
            Button("Link \(device.name)") { manager.dispatch(.linkDevice(id: device.id)) }
            Button("Cancel", role: .cancel) {}
        } message: { _ in
            Text("Only link a device you logged in to yourself. " + DevicesState.historyNotice)
        }
        .confirmationDialog(
            "Remove this device?", isPresented: shown($removing), titleVisibility: .visible, presenting: removing
        ) { device in
            Button("Remove \(device.name)", role: .destructive) { manager.dispatch(.removeDevice(id: device.id)) }
            Button("Cancel", role: .cancel) {}
        } message: { _ in
            Text("It reads nothing written in Notes after.")
        }
    }

    /// The core's message when the last device list, link or remove failed.
    private var failure: String? {
        let operations: Set<UserOperation> = [.listDevices, .linkDevice, .removeDevice]
        guard let outcome = manager.state.lastOutcome, !outcome.isSuccess, operations.contains(outcome.operation) else {
            return nil
        }
        return outcome.message
    }

    /// Up while `device` is set; dismissing clears it.
    private func shown(_ device: Binding<DeviceSummary?>) -> Binding<Bool> {
        Binding(
            get: { @MainActor in device.wrappedValue != nil },
            set: { @MainActor shown in if !shown { device.wrappedValue = nil } })
    }
}

/// One device: its name and id, when it was added, and the core's status label; a waiting device has
/// a Link button.
private struct DeviceRow: View {
    let device: DeviceSummary
    let link: () -> Void

    var body: some View {
        HStack(alignment: .firstTextBaseline) {
            VStack(alignment: .leading, spacing: 4) {
                Text(device.name)
                    .font(.headline)
                    .lineLimit(1)
                Text(device.id)
                    .font(.caption.monospaced())
                    .foregroundStyle(.secondary)
                if !device.addedDisplay.isEmpty {
                    Text("Added \(device.addedDisplay)")
                        .font(.caption)
                        .foregroundStyle(.secondary)
                }
            }
            Spacer()
            VStack(alignment: .trailing, spacing: 6) {
                Text(device.statusLabel)
                    .font(.caption)
                    .foregroundStyle(device.isThisDevice ? .green : device.isLinked ? .secondary : .orange)
                if !device.isLinked {
                    Button("Link", action: link)
                        .buttonStyle(.borderedProminent)
                }
            }
        }
    }
}
