import Foundation

/// One function of the `flux` Lua module as `:help flux.NAME` explains it and README's API table lists it.
struct FluxFunction {
    /// The name after `flux.`: `dispatch`.
    let name: String
    /// How it is called: `flux.dispatch(name, [payload])`.
    let signature: String
    /// What it does, one paragraph (the API table's second column).
    let summary: String
    /// A line of Lua using it.
    let example: String
    /// More paragraphs, for `:help flux.NAME` and `docs/lua-api.md` (the fields a table argument takes).
    var details: [String] = []

    /// The summary up to its first `; ` or `: ` outside parentheses, for the list of functions.
    var firstClause: String {
        var depth = 0
        var previous: Character = " "
        for (offset, character) in summary.enumerated() {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if character == " ", depth == 0, previous == ";" || previous == ":" {
                return String(summary.prefix(offset - 1))
            }
            previous = character
        }
        return summary
    }
}

/// Every function of the `flux` module, documented once: `:help flux.NAME` prints an entry, and
/// README's API table is ``markdownTable`` (a spec checks both against the module itself).
enum FluxReference {
    static let functions: [FluxFunction] = [
        FluxFunction(name: "stores", signature: "flux.stores()", summary: "the store names",
                     example: "for _, name in ipairs(flux.stores()) do print(name) end"),
        FluxFunction(name: "state", signature: "flux.state(store)",
                     summary: "a snapshot of the store's state as a plain table (changing it changes no store); inside a store handler, the state this action has made so far, so after `wait_for` a store reads the awaited store's new state",
                     example: "flux.state(\"ticTacToe\").gameInstruction"),
        FluxFunction(name: "actions", signature: "flux.actions([store])", summary: "the action names, of one store or all",
                     example: "flux.actions(\"ticTacToe\")"),
        FluxFunction(name: "dispatch", signature: "flux.dispatch(name, [payload]), flux.dispatch{type = name, …}",
                     summary: "dispatches an action; errors (unknown action, bad payload — a wrong type, a missing field, a field the action does not have — a handler's error, dispatch inside a handler) are Lua errors and change nothing",
                     example: "flux.dispatch(\"ticTacToe.placeToken\", {index = 4})"),
        FluxFunction(name: "subscribe", signature: "flux.subscribe(store, fn)",
                     summary: "calls `fn(state, previous)` now and after every change, until cancelled: `sub:cancel()`, or `local sub <close> = …` (a plugin's end when it is reloaded)",
                     example: "sub = flux.subscribe(\"ticTacToe\", function(state) print(state.gameInstruction) end)"),
        FluxFunction(name: "subscriptions", signature: "flux.subscriptions([store])",
                     summary: "the live subscriptions (of `flux.subscribe` and `flux.watch`; of one store or view), oldest first: `for _, s in ipairs(flux.subscriptions()) do s:cancel() end`",
                     example: "for _, s in ipairs(flux.subscriptions()) do s:cancel() end"),
        FluxFunction(name: "store", signature: "flux.store{name, state, on, wait_for, actions, version, migrate}",
                     summary: "defines a store in Lua; its actions are dispatchable by name; `actions` may declare their payload fields; a field it does not take is an error naming the ones it does",
                     example: "flux.store{name = \"counter\", state = {n = 0}, on = {[\"counter.add\"] = function(s, p) s.n = s.n + p.by end}}",
                     details: [
                        "`name`: the store's name. `state`: its initial state, a table (copied: the script keeps its own). `on`: a table from action names to handlers `function(state, action)`; a handler changes the draft `state` in place, or returns a new table; an error refuses the action and rolls the whole dispatch back. `wait_for`: the names of stores whose handlers run first. `actions`: the payload fields of actions `on` handles, `{[\"todo.add\"] = {title = \"string\", due = \"number?\"}}`, each `\"string\"`, `\"number\"`, `\"integer\"`, `\"boolean\"` or `\"table\"`, `?` for optional; a payload with an undeclared field, a missing one or a wrong type is refused.",
                        "`version`: the version of the state's shape (an integer). `migrate`: `function(old_state, old_version)` returning the new state (or changing `old_state` in place), called when a session restores a state saved in another shape or version (`old_version` 0 when none was declared). Without `migrate`, a field of the new initial state the saved one lacks gets its initial value, a saved field whose type changed takes the initial value, and every other saved field is kept; the session says so in one line and keeps the state as saved (`:session restore-store NAME`).",
                        "Defining a name again from the same owner keeps the store's state and takes the new handlers; a name another owner holds is an error naming the owner.",
                     ]),
        FluxFunction(name: "derived", signature: "flux.derived{name, from, compute}",
                     summary: "defines a store whose state is computed from other stores' states: `compute(state, …)` gets a copy of each store `from` names, in order, and returns the state; it runs again only in a dispatch that changed one of them, after they handled the action (same transaction, same undo step), and a result equal to the state before publishes nothing",
                     example: "flux.derived{name = \"instruction\", from = {\"ticTacToe\"}, compute = function(game) return {text = game.gameInstruction} end}",
                     details: [
                        "`name`: the store's name. `from`: the names of the stores it is computed from (Swift or Lua stores, derived ones too). `compute`: `function(state, …)` returning the new state table; an error refuses the action that changed a source and rolls the whole dispatch back. The state is computed once when it is defined.",
                        "A derived store handles no actions of its own: an action that changes none of its sources costs it nothing. Defining the name again from the same owner (a reloaded plugin) takes the new sources and `compute` and keeps the state until a source changes.",
                     ]),
        FluxFunction(name: "view", signature: "flux.view(name, {store, render})",
                     summary: "defines a view provider: `render(state)` returns a table model",
                     example: "flux.view(\"counter\", {store = \"counter\", render = function(s) return {sections = {{cells = {{title = tostring(s.n)}}}}} end})",
                     details: [
                        "A table model is `{sections = {{header = \"Issues\", height = 28, cells = {{title = \"Open\", detail = \"3\", accessory = \"checkmark\"}}}}}`. A cell has `id` (default: its title), `title`, `detail`, `accessory` (`\"none\"`, `\"checkmark\"`, `\"disclosure\"`), `enabled` (default true) and `selected` (default false); a section has `id` (default: its header), `header`, `height` and `cells`. A field the model does not have is an error.",
                        "`store`: the store whose state `render(state)` receives (a read-only view of it). A Lua view never replaces a Swift one.",
                        "A section may be built lazily: `{id = ID, from = VALUE, build = function(value) return {header = …, cells = …} end}` calls `build(VALUE)` only when the section `ID` was not built in the last render from the same `from` (`rawequal`: a part of a Lua store's state keeps its identity while unchanged; or a version number); else the section built then is reused, none of its cells made again. Without `from` it is built every time (docs/live-views.md).",
                     ]),
        FluxFunction(name: "views", signature: "flux.views()", summary: "the view names",
                     example: "flux.views()"),
        FluxFunction(name: "model", signature: "flux.model(view)", summary: "a view's table model, as a table",
                     example: "flux.model(\"ticTacToe\").sections[1].header"),
        FluxFunction(name: "render", signature: "flux.render(view, [width])", summary: "a view's table rendered as text, at the terminal's width or `width` columns",
                     example: "print(flux.render(\"ticTacToe\", 40))"),
        FluxFunction(name: "watch", signature: "flux.watch(view, fn)",
                     summary: "calls `fn(diff)` after every change of the view's table: `diff.text` is the patch (`+` inserted, `-` deleted, `~` updated, `>` moved), with counts `inserted`, `deleted`, `updated`, `moved`; returns a subscription like `flux.subscribe`'s",
                     example: "w = flux.watch(\"ticTacToe\", function(diff) print(diff.text) end)"),
        FluxFunction(name: "group", signature: "flux.group(label, fn)", summary: "every action `fn` dispatches undoes as one step, all or nothing: when `fn` raises, what it dispatched is rolled back (subscribers hear the restored state) and no step remains; returns what `fn` returns; called from a subscriber, the actions it queues run as one group",
                     example: "flux.group(\"two moves\", function() flux.dispatch(\"ticTacToe.placeToken\", {index = 1}) flux.dispatch(\"ticTacToe.placeToken\", {index = 2}) end)"),
        FluxFunction(name: "undo", signature: "flux.undo()", summary: "one step back; `false` when there is none",
                     example: "flux.undo()"),
        FluxFunction(name: "redo", signature: "flux.redo()", summary: "one step forward; `false` when there is none",
                     example: "flux.redo()"),
        FluxFunction(name: "log", signature: "flux.log(on)",
                     summary: "with `true`, prints after every action its payload and, per store that changed, each changed path with its old and new value (failed actions with their error), as `:log on` does; `false` stops",
                     example: "flux.log(true)"),
        FluxFunction(name: "inspect", signature: "flux.inspect(value)",
                     summary: "the text the prompt prints for `value`: a table in constructor form, keys sorted, nested tables indented",
                     example: "local text = flux.inspect(flux.state(\"ticTacToe\"))"),
        FluxFunction(name: "print", signature: "flux.print(...)",
                     summary: "prints its arguments as the prompt prints results: strings as they are, other values as `flux.inspect` writes them, tab-separated",
                     example: "flux.print(flux.state(\"ticTacToe\"))"),

        FluxFunction(name: "command", signature: "flux.command{name, run, complete, usage, summary}",
                     summary: "defines the `:` command `:name`, owned like a store (gone on `:unload`, replaced on `:reload`): `run(args)` gets the text after the name as `args.text` and its words as `args[1]`…, and a string it returns is printed; `complete(prefix, text)` returns the candidates Tab offers; `:help` lists it",
                     example: "flux.command{name = \"greet\", usage = \"<name>\", summary = \"say hello\", run = function(args) return \"hello \" .. args.text end}"),
        FluxFunction(name: "exec", signature: "flux.exec(line)",
                     summary: "runs a `:` command as if typed (`:load`, a plugin's command, `:health`): what it prints is printed; its error is a Lua error with the message it would show",
                     example: "flux.exec(\":stores\")"),
        FluxFunction(name: "after", signature: "flux.after(ms, fn)",
                     summary: "calls `fn()` once after `ms` milliseconds, owned by whoever starts it (a plugin's timers end on `:unload`); returns a handle whose `:cancel()` may be called any number of times, usable with `<close>`",
                     example: "local t <close> = flux.after(1000, function() print(\"tick\") end)"),
        FluxFunction(name: "every", signature: "flux.every(ms, fn)",
                     summary: "calls `fn()` every `ms` milliseconds until cancelled; returns a handle with `:cancel()`",
                     example: "local t <close> = flux.every(1000, function() print(os.date()) end)"),
        FluxFunction(name: "spawn", signature: "flux.spawn(argv, opts)",
                     summary: "starts a process from a list of words (no shell): `opts.on_line(line, stream)`, `opts.on_exit(code, signal)`, `cwd`, `env`, `stdin`, `timeout_ms`; returns a handle with `:write`, `:close_stdin`, `:kill`, `:pid`; refused inside a store's handler",
                     example: "flux.spawn({\"ls\", \"-1\"}, {on_line = function(line) print(line) end})"),
        FluxFunction(name: "watch_path", signature: "flux.watch_path(path, fn)",
                     summary: "calls `fn(event, name)` when the file or folder at `path` changes; returns a handle with `:cancel()`",
                     example: "local w <close> = flux.watch_path(\".\", function(event, name) print(event, name) end)"),
        FluxFunction(name: "on", signature: "flux.on(action_or_pattern, fn)",
                     summary: "calls `fn(action)` after an action of that name (or matching a `*` pattern) has committed, never for a refused or rolled-back one: a place to start effects from intents; returns a handle with `:cancel()`",
                     example: "flux.on(\"issues.add\", function(action) print(action.name) end)"),
        FluxFunction(name: "effects", signature: "flux.effects()",
                     summary: "the live timers, processes, watches and listeners, each with its owner, kind and age (as `:effects` lists them)",
                     example: "for _, e in ipairs(flux.effects()) do print(e.kind, e.owner) end"),
        FluxFunction(name: "advance", signature: "flux.advance(ms)",
                     summary: "in `fluxsh test`, moves the virtual clock by `ms` and fires every timer due, in time order; returns how many fired",
                     example: "-- in a fluxsh test script, with flux.every(1000, f) running: expect(flux.advance(60000), 60)"),
        FluxFunction(name: "settle", signature: "flux.settle([timeout_ms])",
                     summary: "waits until no process or file-watch callback is pending (or the timeout passes)",
                     example: "flux.settle(2000)"),
        FluxFunction(name: "pilot", signature: "flux.pilot(view, {width, height})",
                     summary: "drives a view as `:open` shows it, without a terminal, for tests: `:press(key)`, `:click(line, column)` (from 0: a row selects it, the selected row runs its action), `:type(text)`, `:screen()`, `:status()`, `:close()`",
                     example: "local ui = flux.pilot(\"ticTacToe\", {width = 40, height = 12}) ui:press(\"enter\") print(ui:screen())"),
        FluxFunction(name: "globals", signature: "flux.globals(plugin)",
                     summary: "a read-only view of a plugin's own globals, for a person debugging at the prompt (refused to plugins)",
                     example: "-- at the prompt, with plugin todo loaded: for k, v in pairs(flux.globals(\"todo\")) do print(k, v) end"),
        FluxFunction(name: "on_event", signature: "flux.on_event(name, fn)",
                     summary: "calls `fn(name, plugin)` when the event happens: `start` (config, plugins and session loaded), `quit` (before the shell exits), `plugin_loaded`, `plugin_unloaded`, `session_restored`; owned like a subscription, errors counted in `:errors`",
                     example: "flux.on_event(\"quit\", function() print(\"bye\") end)"),
        FluxFunction(name: "configure", signature: "flux.configure(plugin, options)",
                     summary: "sets options of a plugin before it loads (in the user's init.lua): only keys its manifest declares, each of the default's type",
                     example: "-- in init.lua, before the plugin loads: flux.configure(\"z_stats\", {window = 20})"),
        FluxFunction(name: "options", signature: "flux.options([plugin])",
                     summary: "a plugin's options: its manifest's defaults with what `flux.configure` set over them (the running plugin's without a name)",
                     example: "-- in plugin z_stats: local window = flux.options(\"z_stats\").window"),
        FluxFunction(name: "outbox", signature: "flux.outbox{name, actions, send, rejected, retry}",
                     summary: "queues each committed action of the names in `actions` (durably, with the session's journal) and hands the entries to `send(entry, reply)` one at a time, in order; `reply(\"ok\")` settles one, `reply(\"retry\", why)` waits and sends it again, `reply(\"reject\", why)` drops it and dispatches `rejected` (see docs/outbox.md)",
                     example: "flux.outbox{name = \"sync\", actions = {\"issues.create\"}, send = function(entry, reply) print(entry.id, entry.json) reply(\"ok\") end}",
                     details: [
                        "Fields: `name`; `actions`, a list of action names (their stores defined first); `send(entry, reply)`, where `entry` is `{id, outbox, action, payload, json, attempt, last_error}` and `reply` may be called later (from a process's `on_exit`); `rejected`, the action dispatched with `{entry, reason}` when the world refuses an entry; `retry = {first_ms, max_ms}` (1000 and 300000): after the nth failure the outbox waits between d/2 and d, d = min(max_ms, first_ms·2^(n-1)). A `send` that raises counts as a retry.",
                        "`entry.id` is stable across restarts: a receiver that dedupes by it sees each change once. Undoing an action not sent yet takes its entry back; `:replay` and `:goto` send nothing.",
                     ]),
        FluxFunction(name: "outbox_state", signature: "flux.outbox_state(name)",
                     summary: "an outbox's state, as `:outbox` shows it: `{name, paused, pending, in_flight, sent, rejected, next_ms, entries}`, each entry `{id, action, attempts, last_error}`",
                     example: "flux.outbox{name = \"s\", actions = {\"issues.create\"}, send = function() end} print(flux.outbox_state(\"s\").pending)"),
    ]

    /// The function called `name` (`dispatch` or `flux.dispatch`).
    static func function(named name: String) -> FluxFunction? {
        let name = name.hasPrefix("flux.") ? String(name.dropFirst(5)) : name
        return functions.first { $0.name == name }
    }

    /// README's API table.
    static var markdownTable: String {
        (["| Call | What it does |", "| --- | --- |"] + functions.map { function in
            let calls = function.signature.components(separatedBy: ", flux.").joined(separator: "`, `flux.")
            return "| `\(calls)` | \(function.summary) |"
        }).joined(separator: "\n")
    }

    /// What `:help flux.NAME` prints: the signature, the paragraphs wrapped to `width`, an example.
    static func help(_ function: FluxFunction, width: Int) -> String {
        ([function.signature] + ([function.summary] + function.details).flatMap { wrap($0, width: width - 2).map { "  " + $0 } }
            + ["  example: " + function.example]).joined(separator: "\n")
    }

    /// The part of `docs/lua-api.md` made from this table and the shell's commands: a spec checks that
    /// the file holds it between ``generatedBegin`` and ``generatedEnd`` (`FLUX_WRITE_DOCS=1 swift test
    /// --filter LuaAPIDocSpec` writes it there).
    static var generatedReference: String {
        var lines = ["## The `flux` module", "", markdownTable, ""]
        for function in functions {
            lines += ["### `flux.\(function.name)`", "", "`" + function.signature + "`: " + function.summary + ".", ""]
            for paragraph in function.details { lines += [paragraph, ""] }
            lines += ["```lua", function.example, "```", ""]
        }
        lines += ["## Shell commands", "", "| Command | What it does |", "| --- | --- |"]
        lines += Shell.commands.map { command in
            "| `\(command.usage.replacingOccurrences(of: "|", with: "\\|"))` | \(command.summary.replacingOccurrences(of: "|", with: "\\|")) |"
        }
        return lines.joined(separator: "\n")
    }

    static let generatedBegin = "<!-- generated from Sources/FluxShell/Devtools/FluxReference.swift and ShellCommands.swift: begin -->"
    static let generatedEnd = "<!-- generated: end -->"

    /// `text` in lines of at most `width` characters, broken at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
