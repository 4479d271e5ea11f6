import MarmotAppKit
import SwiftUI

/// The root: a loading surface while a session is restored, Login when logged out, else a navigation
/// stack bound to the core's router (MVP spec, Views; bible §4.1.4).
struct ContentView: View {
    let manager: AppManager

    var body: some View {
        ZStack {
            if manager.isRestoring {
                ProgressView("Restoring your session…")
            } else {
                switch manager.state.router.defaultScreen {
                case .login:
                    LoginView(manager: manager)
                default:
                    NavigationStack(path: screenStack) {
                        ScreenView(manager: manager, screen: manager.state.router.defaultScreen)
                            .navigationDestination(for: Screen.self) { screen in
                                ScreenView(manager: manager, screen: screen)
                            }
                    }
                }
            }
        }
        .overlay(alignment: .bottom) { ToastOverlay(manager: manager) }
        .alert("Account key", isPresented: problemShown, presenting: manager.secretStoreProblem) { _ in
            Button("OK") { manager.dismissSecretStoreProblem() }
        } message: { problem in
            Text(problem.message)
        }
    }

    /// The router's stack; pops by the user (swipe back, back button) are reported to the core.
    ///
    /// `Binding(get:set:)` takes `@Sendable` closures, which are not main-actor isolated unless marked;
    /// the manager is, so both closures say so.
    private var screenStack: Binding<[Screen]> {
        Binding(
            get: { @MainActor in manager.state.router.screenStack },
            set: { @MainActor stack in manager.setScreenStack(stack) })
    }

    private var problemShown: Binding<Bool> {
        Binding(
            get: { @MainActor in manager.secretStoreProblem != nil },
            set: { @MainActor shown in if !shown { manager.dismissSecretStoreProblem() } })
    }
}

/// The view for one screen of the router.
struct ScreenView: View {
    let manager: AppManager
    let screen: Screen

    var body: some View {
        switch screen {
        case .login: LoginView(manager: manager)
        case .chatList: ChatListView(manager: manager)
        case .chat: ChatView(manager: manager)
        case .newChat: NewChatView(manager: manager)
        case .groupInfo: GroupInfoView(manager: manager)
        case .newGroup: NewGroupView(manager: manager)
        case .relays: RelaysView(manager: manager)
        case .profile: ProfileView(manager: manager)
        case .devices: DevicesView(manager: manager)
        }
    }
}
