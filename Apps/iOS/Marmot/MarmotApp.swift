import MarmotAppKit
import SwiftUI

/// The app's entry point: one manager for the app's lifetime (bible §4.1.3).
@main
struct MarmotIOSApp: App {
    @State private var manager = AppManager.production()
    @Environment(\.scenePhase) private var scenePhase

    var body: some Scene {
        WindowGroup {
            ContentView(manager: manager)
        }
        .onChange(of: scenePhase) { _, phase in
            if phase == .active { manager.onForeground() }
        }
    }
}
