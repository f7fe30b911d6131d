import Flux
import FluxTable
import Testing
@testable import FluxLua

private struct Part: Decodable {
    var name: String
    var enabled: Bool?
}

private enum Mark: Decodable {
    case cross(size: Int)
    case nought
}

private struct Shape: Decodable {
    var name: String
    var size: Int?
    var parts: [Part]?
    var mark: Mark?
    var tags: [String: Double]?
}

/// Random Lua values of every kind, nested a few levels, with keys drawn from the fields above and
/// from table view models (what a Lua view provider returns) so that many of them nearly decode. Seeded: a failing case reproduces from its seed.
private let generator = """
local names = {"name", "size", "parts", "mark", "tags", "enabled", "cross", "nought", "type", "x",
  "sections", "cells", "id", "title", "detail", "accessory", "header", "height", "selected", "checkmark"}
local leaves = {
  function() return nil end,
  function() return math.random(2) == 1 end,
  function() return math.random(-3, 12) end,
  function() return math.random() * 10 end,
  function() return names[math.random(#names)] end,
  function() return "a\\0b" end,
  function() return print end,
}
local function value(depth)
  if depth <= 0 or math.random(3) == 1 then return leaves[math.random(#leaves)]() end
  local t = {}
  if math.random(2) == 1 then
    for i = 1, math.random(0, 4) do t[i] = value(depth - 1) end
  else
    for _ = 1, math.random(0, 4) do t[names[math.random(#names)]] = value(depth - 1) end
    if math.random(6) == 1 then t[math.random(3)] = value(depth - 1) end
  end
  return t
end
function random_value(seed) math.randomseed(seed) return value(4) end
"""

extension FluxLuaTests {
    @Suite("Decoding random values")
    struct DecodingProperties {
        private static func decode<T: Decodable>(_ type: T.Type, _ decoder: LuaDecoder, _ vm: LuaVM) -> String? {
            do {
                _ = try decoder.decode(type, from: vm.stack, at: -1, root: "value")
                return nil
            } catch let error as DecodingError {
                return error.fieldMessage
            } catch {
                return "\(error)"
            }
        }

        @Test("random Lua values decode into typed values or fail with a message naming what was wrong; the stack stays as it was")
        func randomValues() throws {
            let vm = LuaVM()
            _ = try vm.run(generator, chunkName: "generator")
            var strict = LuaDecoder()
            strict.rejectsUnknownKeys = true
            var decoded = 0
            for seed in 1 ... 1_500 {
                vm.stack.getGlobal("random_value")
                vm.stack.push(seed)
                try vm.stack.pcall(arguments: 1, results: 1)
                for decoder in [LuaDecoder(), strict] {
                    let messages = [
                        Self.decode(Shape.self, decoder, vm), Self.decode([Shape].self, decoder, vm),
                        Self.decode([String: Mark].self, decoder, vm), Self.decode([Mark?].self, decoder, vm),
                        Self.decode([String: [Int]].self, decoder, vm), Self.decode(Part?.self, decoder, vm),
                        Self.decode(TableViewModel.self, decoder, vm),
                    ]
                    for message in messages {
                        if let message {
                            #expect(message.contains("expected") || message.contains("invalid") || message.contains("unknown"),
                                    "seed \(seed): \(message)")
                        } else {
                            decoded += 1
                        }
                    }
                    #expect(vm.stack.top == 1, "seed \(seed)")
                }
                vm.stack.pop()
            }
            #expect(decoded > 500) // the generator's values often fit: the success path is exercised too
        }
    }
}
