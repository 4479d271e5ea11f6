import MarmotAppKit
import SwiftUI

/// Create an account or import one by its nsec (MVP spec, Screens: Login).
struct LoginView: View {
    let manager: AppManager
    @State private var nsec = ""

    var body: some View {
        VStack(spacing: 24) {
            Text("Marmot")
                .font(.largeTitle.bold())
            Button("Create New Account") { manager.dispatch(.createAccount) }
                .buttonStyle(.borderedProminent)
                .disabled(!manager.state.busy.canAuthenticate)
            Divider()
            SecureField("nsec1…", text: $nsec)
                .textInputAutocapitalization(.never)
                .autocorrectionDisabled()
                .textFieldStyle(.roundedBorder)
            Button("Log In") {
                manager.login(nsec: nsec)
                nsec = ""
            }
            .disabled(!manager.state.busy.canLogin(nsec: nsec))
            if let busy = manager.state.busy.statusText {
                ProgressView(busy)
            }
        }
        .padding()
    }
}
