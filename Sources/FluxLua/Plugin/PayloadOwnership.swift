/// Who may declare an action's payload: the store the action is named after (`bank` declares
/// `bank.deposit`). Another store that handles the action handles the payload as declared there; were it
/// to declare the payload first, the owner's dispatches would be read by its declaration instead.
extension FluxHost {
    /// The store an action is named after: the text before its first `.`, or the whole name.
    static func storeName(ofAction action: String) -> String {
        action.firstIndex(of: ".").map { String(action[..<$0]) } ?? action
    }

    /// Refuses declarations the store `name` may not make: of another store's action, or of an action
    /// named after no store that another store declares differently.
    func checkPayloadDeclarations(_ payloads: [String: LuaPayloadDeclaration], of name: String) throws {
        for (action, fields) in payloads.sorted(by: { $0.key < $1.key }) {
            let owner = Self.storeName(ofAction: action)
            if action.contains("."), owner != name {
                throw FluxScriptError("store '\(name)' declares the payload of '\(action)', an action of store '\(owner)': only '\(owner)' declares it (handle the action without declaring it in 'actions')")
            }
            for (otherName, declared) in actionIndex.declarations(of: action).sorted(by: { $0.key < $1.key })
            where otherName != name && declared != fields {
                let owner = (dispatcher.store(named: otherName) as? LuaStore)?.owner ?? .swift
                throw FluxScriptError("store '\(name)' declares the payload of '\(action)' unlike store '\(otherName)' (\(owner)), which declared it first: declare it the same way, or not at all")
            }
        }
    }
}

extension FluxHost {
    /// Refuses defining the store `name` again by another spelling of the same name (`cafe\u{301}` for
    /// `café`): one of the two definitions would silently replace the other.
    func checkSpelling(_ spelling: [UInt8], ofStore name: String) throws {
        guard let kept = storeSpellings[name], kept != spelling else { return }
        let shown = { (bytes: [UInt8]) in String(decoding: bytes, as: UTF8.self).unicodeScalars
            .map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}" }.joined() }
        throw FluxScriptError("store '\(name)' is defined already as \"\(shown(kept))\"; \"\(shown(spelling))\" is the same name in another Unicode form: spell it the same way")
    }
}
