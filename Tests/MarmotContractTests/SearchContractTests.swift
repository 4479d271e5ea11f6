import Foundation
import MarmotContract
import MarmotCore
import Testing

/// Issue 48: the `search` action and state slice in the contract JSON.
@Suite("Contract JSON: search")
struct SearchContractTests {
    @Test("search actions round-trip; a bad chatId or limit is refused")
    func actions() throws {
        for action: AppAction in [.search(query: "café lunch", chatID: nil, limit: 50), .search(query: "x", chatID: "c1", limit: 3)] {
            #expect(try ContractJSON.action(fromJSON: ContractJSON.string(ContractJSON.actionObject(action))) == action)
        }
        #expect(try ContractJSON.action(fromJSON: #"{"schemaVersion":1,"type":"search","query":"hi"}"#) == .search(query: "hi", chatID: nil, limit: 50))
        #expect(throws: ContractError.invalidField("limit")) {
            try ContractJSON.action(fromJSON: #"{"schemaVersion":1,"type":"search","query":"hi","limit":"9"}"#)
        }
        #expect(throws: ContractError.invalidField("chatId")) {
            try ContractJSON.action(fromJSON: #"{"schemaVersion":1,"type":"search","query":"hi","chatId":7}"#)
        }
    }

    @Test("the state carries the search results")
    func state() throws {
        var state = AppState.initial
        state.search = SearchState(
            query: "lunch", chatID: nil,
            results: [SearchHit(chatID: "c1", messageID: "m1", sender: "You", createdAt: 42, snippet: "lunch at noon")])
        let object = ContractJSON.stateObject(state)
        let search = try #require(object["search"] as? [String: Any])
        #expect(search["query"] as? String == "lunch")
        #expect(search["chatId"] is NSNull)
        let hit = try #require((search["results"] as? [[String: Any]])?.first)
        #expect(hit["messageId"] as? String == "m1" && hit["createdAt"] as? Int == 42 && hit["snippet"] as? String == "lunch at noon")
    }
}
