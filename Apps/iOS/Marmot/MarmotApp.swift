import MarmotAppKit
import SwiftUI

/// The app's entry point: one manager for the app's lifetime (bible §4.1.3), and the saver that keeps
/// the relays the user sets in `<data>/relays` for the next launch.
@main
struct MarmotIOSApp: App {
    @State private var manager: AppManager
    @State private var relaySaver: RelaySaver
    @Environment(\.scenePhase) private var scenePhase

    init() {
        let manager = AppManager.production()
        _manager = State(initialValue: manager)
        _relaySaver = State(initialValue: RelaySaver(manager: manager, file: AppManager.relaysFile))
    }

    var body: some Scene {
        WindowGroup {
            ContentView(manager: manager)
        }
        .onChange(of: scenePhase) { _, phase in
            if phase == .active { manager.onForeground() }
        }
    }
}
