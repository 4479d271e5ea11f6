import MarmotAppKit
import SwiftUI

/// The core's toast at the bottom of the screen; the core clears it after a while (issue 16).
struct ToastOverlay: View {
    let manager: AppManager

    var body: some View {
        VStack {
            if let toast = manager.state.toast {
                Text(toast)
                    .font(.callout)
                    .padding(.horizontal, 16)
                    .padding(.vertical, 10)
                    .background(.regularMaterial, in: Capsule())
                    .padding(.bottom, 32)
                    .transition(.move(edge: .bottom).combined(with: .opacity))
                    .onTapGesture { manager.dispatch(.clearToast) }
            }
        }
        .animation(.default, value: manager.state.toast)
    }
}
