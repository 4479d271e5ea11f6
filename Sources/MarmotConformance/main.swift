import Foundation

/// `marmot-conformance FILE…`: runs MDK 0.9.14's portable conformance vectors (scenario files and
/// the branch-selector cases) against our Marmot v2 group engine and prints PASS, FAIL or SKIP per
/// vector with the first unmet expectation. Exit 0 only when nothing failed; 2 on a usage error.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print("""
        usage: marmot-conformance [--verbose] FILE…
          Runs MDK conformance vectors (scenarios/*.v1.json, policy/policy_cases.json) against
          Marmot's v2 group engine over a deterministic in-process bus.
          Prints PASS/FAIL/SKIP per vector and a summary; exits 0 only if none failed.
        """)
    exit(arguments.isEmpty ? 2 : 0)
}
let verbose = arguments.contains("--verbose")
var passed = 0, failed = 0, skipped = 0
for path in arguments where !path.hasPrefix("--") {
    let url = URL(fileURLWithPath: path)
    let file: JSON
    do {
        file = try JSON(file: url)
    } catch {
        print("FAIL \(url.lastPathComponent): cannot read: \(error)")
        failed += 1
        continue
    }
    if file.array != nil {
        do {
            for result in try PolicyCases.run(file) {
                if let failure = result.failure {
                    print("FAIL policy/\(result.name): \(failure)")
                    failed += 1
                } else {
                    print("PASS policy/\(result.name)")
                    passed += 1
                }
            }
        } catch {
            print("FAIL \(url.lastPathComponent): \(error)")
            failed += 1
        }
        continue
    }
    let (name, verdict, log) = ScenarioRunner(vector: file).run()
    switch verdict {
    case .pass:
        print("PASS \(name)")
        passed += 1
    case .fail(let why):
        print("FAIL \(name): \(why)")
        failed += 1
        if verbose { for line in log { print("    \(line)") } }
    case .skip(let why):
        print("SKIP \(name): \(why)")
        skipped += 1
    }
}
print("\(passed) passed, \(failed) failed, \(skipped) skipped")
exit(failed == 0 ? 0 : 1)
