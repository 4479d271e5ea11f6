import MarmotAppKit
import SwiftUI

/// The name others see instead of this account's npub (`AppState.profile`): the saved name, a field
/// to change it, the core's saving text while it publishes, and its refusal from `lastOutcome`.
struct ProfileView: View {
    let manager: AppManager
    @State private var newName = ""

    var body: some View {
        Form {
            Section {
                LabeledContent("Name", value: manager.state.profile.name ?? "Not set")
                if case .loggedIn(let npub, _) = manager.state.auth {
                    Text(npub)
                        .font(.footnote.monospaced())
                        .textSelection(.enabled)
                }
            } footer: {
                Text("People see this name instead of your npub in their chats.")
            }
            Section {
                TextField("Your name", text: $newName)
                    .onSubmit(save)
                    .disabled(manager.state.profile.saving)
                Button("Save Name", action: save)
                    .disabled(manager.state.profile.saving)
            } header: {
                Text("Change Name")
            } footer: {
                if let saving = manager.state.profile.statusText {
                    ProgressView(saving)
                } else if let failure {
                    Text(failure)
                        .foregroundStyle(.red)
                }
            }
        }
        .navigationTitle("Profile")
    }

    /// The core's message when the last name change failed.
    private var failure: String? {
        guard let outcome = manager.state.lastOutcome, outcome.operation == .setProfileName, !outcome.isSuccess else {
            return nil
        }
        return outcome.message
    }

    private func save() {
        manager.dispatch(.setProfileName(name: newName))
        newName = ""
    }
}
