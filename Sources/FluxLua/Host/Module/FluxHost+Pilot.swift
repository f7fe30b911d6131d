import FluxTable
import FluxViews

/// `flux.pilot(view, {width = 50, height = 24})`: a live view on a screen nobody sees, driven by key
/// names, for tests — what `:open` shows, exactly, without a terminal.
///
/// ```lua
/// local ui = flux.pilot("ticTacToe", {width = 40, height = 10})
/// ui:press("right"):press("enter")
/// expect(ui:screen(), golden)
/// ui:close()
/// ```
extension FluxHost {
    /// `flux.pilot(view | {views…}, {width, height, color, unicode}?)` → pilot.
    func pilot(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        var names: [String] = []
        switch lua.type(at: 1) {
        case .string: names = [try arguments.name(1, "view name")]
        case .table: names = try lua.decode([String].self, at: 1, root: "views")
        case let other: throw arguments.error(1, "view name or list of view names expected, got \(other.name)")
        }
        var width = 80
        var height = 24
        var options = RenderOptions(width: 80, color: false, unicode: true)
        if !lua.isNil(at: 2) {
            try arguments.expect(.table, at: 2)
            for key in ["width", "height"] {
                switch lua.rawGet(key, from: 2) {
                case .nil: break
                case .number:
                    guard let value = lua.integer(at: -1), (1 ... 10_000).contains(value) else {
                        throw arguments.error(2, "field '\(key)' must be a whole number from 1 to 10000")
                    }
                    if key == "width" { width = value } else { height = value }
                case let other: throw arguments.error(2, "field '\(key)' must be a number, got \(other.name)")
                }
                lua.pop()
            }
            for key in ["color", "unicode"] {
                switch lua.rawGet(key, from: 2) {
                case .nil: break
                case .boolean:
                    let value = lua.boolean(at: -1) ?? false
                    if key == "color" { options.color = value } else { options.unicode = value }
                case let other: throw arguments.error(2, "field '\(key)' must be a boolean, got \(other.name)")
                }
                lua.pop()
            }
        }
        options.width = width
        let screen = try LiveScreen(views: names, actions: self, width: width, height: height, options: options)
        lua.push(LuaPilot(screen), as: Self.pilotType)
        return 1
    }

    /// The pilot's methods: `press`, `click`, `type`, `screen`, `status`, `close`.
    nonisolated(unsafe) static let pilotType: LuaObjectType<LuaPilot> = {
        var type = LuaObjectType<LuaPilot>("flux.pilot")
        type.method("press") { lua, pilot in
            let arguments = LuaArguments(lua, function: "press")
            try arguments.expect(atMost: 2)
            let name = try arguments.name(2, "key name")
            guard let key = LiveKey(name: name) else {
                throw arguments.error(2, "unknown key '\(name)': a character, ctrl+LETTER, or one of up, down, left, right, pageup, pagedown, home, end, tab, backtab, enter, escape, backspace, space")
            }
            try pilot.open(arguments).press(key)
            lua.top = 1
            return 1
        }
        type.method("click") { lua, pilot in
            let arguments = LuaArguments(lua, function: "click")
            try arguments.expect(atMost: 3)
            var position: [Int] = []
            for index: Int32 in 2 ... 3 {
                guard let value = lua.integer(at: index), value >= 0 else {
                    throw arguments.error(index, "\(index == 2 ? "line" : "column") expected: a whole number from 0 (the top left)")
                }
                position.append(value)
            }
            try pilot.open(arguments).press(.click(line: position[0], column: position[1]))
            lua.top = 1
            return 1
        }
        type.method("type") { lua, pilot in
            let arguments = LuaArguments(lua, function: "type")
            try arguments.expect(atMost: 2)
            try arguments.expect(.string, at: 2)
            let screen = try pilot.open(arguments)
            for character in lua.string(at: 2) ?? "" {
                guard let key = LiveKey(name: String(character)) else { continue }
                screen.press(key)
            }
            lua.top = 1
            return 1
        }
        type.method("screen") { lua, pilot in
            lua.push(pilot.screen.text)
            return 1
        }
        type.method("status") { lua, pilot in
            lua.push(pilot.screen.status)
            return 1
        }
        type.method("close") { _, pilot in
            pilot.screen.close()
            return 0
        }
        type.metamethod(.close) { _, pilot in
            pilot.screen.close()
            return 0
        }
        type.metamethod(.toString) { lua, pilot in
            lua.push("flux.pilot(\(pilot.screen.viewNames.joined(separator: ", "))\(pilot.screen.isFinished ? ", closed" : ""))")
            return 1
        }
        return type
    }()
}

/// A ``LiveScreen`` as `flux.pilot` hands it to Lua.
final class LuaPilot {
    let screen: LiveScreen

    init(_ screen: LiveScreen) {
        self.screen = screen
    }

    /// The screen, unless it was closed or left.
    func open(_ arguments: LuaArguments) throws -> LiveScreen {
        guard !screen.isFinished else {
            throw arguments.error(1, "the pilot's view is closed" + (screen.closingMessage.map { " (\($0))" } ?? ""))
        }
        return screen
    }

    deinit {
        screen.close()
    }
}
