import MarmotAppKit
import SwiftUI

/// The core's toast at the bottom of the screen; the manager clears it after a while.
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
        // The toast is read here, on the main actor, not inside the task's `@Sendable` closure.
        .task(id: manager.state.toast) { [toast = manager.state.toast] in await manager.toastDisplayed(toast) }
    }
}
