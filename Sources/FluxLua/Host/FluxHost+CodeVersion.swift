import Foundation

extension FluxHost {
    /// A version of the code that handles the actions of store `name`: a hash of its handlers' bytecode
    /// (`string.dump`, without debug information) and, for a plugin's store, of the plugin's file. Nil
    /// for a store not defined in Lua (Swift stores change only with the program).
    ///
    /// The same code defined again has the same version; a handler changed, or the plugin's file
    /// changed, gives another. A session records it, so that a replay of its journal knows which
    /// entries the handlers now would not make as they were made. (What the handlers reach outside the
    /// plugin's file — a module it requires, a global — is not in the version.)
    ///
    /// - Returns: the version, and who defined the store (`plugin p1 (plugins/p1/init.lua)`).
    public func codeVersion(ofStore name: String) -> (version: String, origin: String)? {
        guard let store = dispatcher.store(named: name) as? LuaStore else { return nil }
        var hash = StableHash()
        do {
            let dump = try vm.load("return string.dump(..., true)", chunkName: "=code version")
            for (action, handler) in store.handlers.sorted(by: { $0.key < $1.key }) {
                hash.add(Array(action.utf8))
                hash.add(try vm.call(dump, results: 1, arguments: { $0.push(handler) }) { lua, results in
                    lua.withBytes(at: results.lowerBound) { Array($0) } ?? []
                })
            }
        } catch {
            return nil
        }
        if case let .plugin(_, file) = store.owner, let source = FileManager.default.contents(atPath: file) {
            hash.add(Array(source))
        }
        return (hash.hex, store.owner.description)
    }
}

/// A hash the same in every process (FNV-1a, 64 bits), for versions saved in files.
struct StableHash {
    private var value: UInt64 = 0xCBF2_9CE4_8422_2325

    /// Adds `bytes`, and their count (so that two parts are not read as one).
    mutating func add(_ bytes: [UInt8]) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01B3
        }
        value ^= UInt64(bytes.count)
        value = value &* 0x0000_0100_0000_01B3
    }

    /// The hash as 16 hexadecimal digits.
    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
