import MarmotAppKit
import SwiftUI

/// The account's relays with their connection, as the core lists them (`NetworkState.relays`): add
/// one by URL, swipe one to remove it. The core checks the URL and keeps at least one relay; its
/// refusal shows here from `lastOutcome` (and as a toast).
struct RelaysView: View {
    let manager: AppManager
    @State private var newRelay = ""
    @State private var newBlossom = ""

    var body: some View {
        List {
            Section {
                ForEach(manager.state.network.relays) { relay in
                    RelayRow(relay: relay)
                        .swipeActions {
                            Button("Remove", role: .destructive) {
                                manager.dispatch(.removeRelay(url: relay.url))
                            }
                        }
                }
            } header: {
                Text(manager.state.network.statusText)
            } footer: {
                Text("Swipe a relay to remove it.")
            }
            Section {
                TextField("wss://relay.example.com", text: $newRelay)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                    .keyboardType(.URL)
                    .onSubmit(add)
                Button("Add Relay", action: add)
            } header: {
                Text("Add Relay")
            } footer: {
                if let failure {
                    Text(failure)
                        .foregroundStyle(.red)
                }
            }
            // Where pictures and files are uploaded (issue 28): the user's servers, else the relays' own.
            Section {
                ForEach(manager.state.network.blossomServers, id: \.self) { url in
                    Text(url)
                        .font(.footnote.monospaced())
                        .lineLimit(1)
                        .truncationMode(.middle)
                        .swipeActions {
                            if manager.state.network.blossomServersNamed {
                                Button("Remove", role: .destructive) {
                                    manager.dispatch(.removeBlossomServer(url: url))
                                }
                            }
                        }
                }
                TextField("https://blossom.example.com", text: $newBlossom)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                    .keyboardType(.URL)
                    .onSubmit(addBlossom)
                Button("Add Blossom Server", action: addBlossom)
            } header: {
                Text("Blossom servers")
            } footer: {
                Text(manager.state.network.blossomServersNamed
                    ? "Your pictures and files go to the first, encrypted."
                    : "Your relays' own servers are used until you add one.")
            }
        }
        .navigationTitle("Relays")
    }

    private func addBlossom() {
        manager.dispatch(.addBlossomServer(url: newBlossom))
        newBlossom = ""
    }

    /// The core's message when the last relay change failed.
    private var failure: String? {
        guard let outcome = manager.state.lastOutcome, outcome.operation == .changeRelays, !outcome.isSuccess else {
            return nil
        }
        return outcome.message
    }

    private func add() {
        manager.dispatch(.addRelay(url: newRelay))
        newRelay = ""
    }
}

/// One relay: the URL and the core's status text ("connected · last event 2 min ago", "failing:
/// connection refused"), green when connected, red when failing.
private struct RelayRow: View {
    let relay: RelayEntry

    var body: some View {
        HStack {
            Text(relay.url)
                .font(.footnote.monospaced())
                .lineLimit(1)
                .truncationMode(.middle)
            Spacer()
            Text(relay.statusText)
                .font(.caption)
                .foregroundStyle(color)
        }
    }

    private var color: Color {
        switch relay.state {
        case .connected: .green
        case .failing: .red
        case .connecting, .disconnected: .secondary
        }
    }
}
