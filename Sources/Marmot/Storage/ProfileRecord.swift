import Foundation

/// What a `profiles_v2` row seals: whose profile, and the profile as the client encoded it.
struct ProfileRecord: Codable {
    var person: Data
    var profile: Data
}
