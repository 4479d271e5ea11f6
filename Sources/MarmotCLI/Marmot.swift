import Nostr

@main
struct MarmotCommand {
    static func main() {
        print("marmot: under construction")
    }
}
