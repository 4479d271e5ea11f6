// marmot-bench: prints speed figures for each layer (`make bench`).
// `marmot-bench [section…]` runs only the named sections: nostr mls treekem framing group relay marmot groups versions convergence app media deadrelays search
// (`app-send` and `app-cold` run one half of `app`).
// `marmot-bench profile` (never part of a full run) does each MLS group operation once, for callgrind;
// `marmot-bench profile-layer` the Marmot layer's 200 message creates and processes.
#if DEBUG
print("marmot-bench (debug build: figures are pessimistic; `make bench` builds release)")
#else
print("marmot-bench (release build)")
#endif
let chosen = Set(CommandLine.arguments.dropFirst())
func wanted(_ section: String) -> Bool { chosen.isEmpty || chosen.contains(section) }
if chosen.contains("profile") { ProfileTargets.run() }
// The Marmot layer's message create + process alone (no relay, no threads of its own), for callgrind.
if chosen.contains("profile-layer") {
    do { try MarmotProtocolBench.layerCost() } catch { print("marmot layer: failed: \(error)") }
}
if wanted("nostr") { NostrBench.run() }
if wanted("mls") { MLSCryptoBench.run() }
if wanted("treekem") { TreeKEMBench.run() }
if wanted("framing") { MLSFramingBench.run() }
if wanted("group") { MLSGroupBench.run() }
if wanted("relay") { await RelayBench.run() }
if wanted("marmot") { await MarmotProtocolBench.run() }
if wanted("groups") { GroupChatBench.run() }
if wanted("versions") { VersionBench.run() }
if wanted("convergence") {
    ConvergenceBench.run()
    await ClientConvergenceBench.run()
}
if wanted("app") {
    await AppCoreBench.run()
} else if chosen.contains("app-send") || chosen.contains("app-cold") {
    await AppCoreBench.run(sections: Set(["send", "cold"].filter { chosen.contains("app-\($0)") }))
}
if wanted("media") { await MediaBench.run() }
if wanted("deadrelays") { await DeadRelayBench.run() }
if wanted("search") { SearchBench.run() }
