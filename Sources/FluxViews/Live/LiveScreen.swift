import Flux
import FluxTable

/// A full screen of live views, headless: views stacked top to bottom, each a title line and a window
/// of its table, then a status line (the last action and its result, an error in red) and one line of
/// key help. Keys move the cursor and dispatch the selected row's action; any change of a viewed store
/// reaches the screen through the view's watch and only the rows it touched change.
///
/// It draws nothing itself: ``lines()`` is the screen as ``ScreenLine``s, which a terminal loop hands to
/// a ``ScreenPainter`` and a test reads as ``text``. `:open`, `fluxsh open` and `flux.pilot` all drive
/// one.
///
/// ```swift
/// let screen = try LiveScreen(views: ["ticTacToe"], actions: host, width: 40, height: 12)
/// screen.press(.down)
/// screen.press(.enter)
/// print(screen.text)
/// screen.close()
/// ```
public final class LiveScreen {
    /// The screen's size in columns and lines.
    public private(set) var width: Int
    public private(set) var height: Int
    /// Colour and Unicode marks.
    public var options: RenderOptions
    /// Called when a viewed store changed, from whatever changed it: a loop waiting for keys wakes up.
    public var onChange: (() -> Void)?
    /// The status line's text.
    public private(set) var status = ""
    /// Whether the status line holds an error.
    public private(set) var statusIsError = false
    /// Whether the user left (q, Esc, Ctrl-C) or every view went away.
    public private(set) var isFinished = false
    /// Why the screen closed by itself (its views went away), for the shell to print once it is left.
    public private(set) var closingMessage: String?

    // Weak: the application owns what dispatches, and a pilot held by its Lua VM must not keep it.
    private weak var actions: (any LiveViewActions)?
    private var panes: [LivePane] = []
    private var focus = 0
    private var showingHelp = false
    private var dispatching = false
    /// A view's render failure during the action being run, which the action's status then reports.
    private var renderFailure: String?

    /// Opens the views called `names` (each once) on a screen of `width` × `height`.
    ///
    /// - Throws: ``ViewError/unknownView(_:known:)``, a view named twice, or the error a view's first
    ///   model fails with; nothing stays subscribed.
    public init(
        views names: [String], actions: any LiveViewActions, width: Int, height: Int,
        options: RenderOptions = RenderOptions(width: 80, color: false, unicode: true)
    ) throws {
        self.actions = actions
        self.width = max(width, 1)
        self.height = max(height, 1)
        self.options = options
        guard !names.isEmpty else { throw LiveViewError.noViews }
        do {
            for name in names {
                guard !panes.contains(where: { $0.name == name }) else { throw LiveViewError.openedTwice(name) }
                guard let provider = actions.view(named: name) else {
                    throw ViewError.unknownView(name, known: actions.viewNames)
                }
                let pane = LivePane(name: name, keys: provider.keys, model: try provider.model())
                pane.subscription = try provider.watch(onChange: { [weak self, weak pane] diff, old, new in
                    guard let self, let pane else { return }
                    pane.apply(diff, from: old, to: new)
                    self.onChange?()
                }, onError: { [weak self, weak pane] error in
                    guard let self, let pane else { return }
                    let message = "\(pane.name) failed to render, its last good table stays: \(self.describe(error))"
                    pane.error = self.describe(error)
                    self.renderFailure = message
                    self.setStatus(message, error: true)
                    self.onChange?()
                })
                panes.append(pane)
            }
        } catch {
            close()
            throw error
        }
        status = "\(panes[0].name): \(helpHint)"
    }

    deinit {
        for pane in panes { pane.subscription?.cancel() }
    }

    /// Stops watching every view; the screen is finished.
    public func close() {
        for pane in panes { pane.subscription?.cancel() }
        isFinished = true
    }

    /// The screen's new size; the views reflow.
    public func resize(width: Int, height: Int) {
        self.width = max(width, 1)
        self.height = max(height, 1)
    }

    /// The names of the views on screen, top to bottom.
    public var viewNames: [String] { panes.map(\.name) }

    /// The view with the cursor.
    public var focusedView: String? { panes.indices.contains(focus) ? panes[focus].name : nil }

    /// The row under the focused view's cursor.
    public var selectedCell: CellViewModel? { panes.indices.contains(focus) ? panes[focus].selectedCell : nil }

    // MARK: Keys

    /// Handles one key: moves, dispatches, undoes, shows the keys, or leaves.
    public func press(_ key: LiveKey) {
        closeVanishedViews()
        guard !isFinished else { return }
        if showingHelp {
            showingHelp = false // any key closes the list of keys, and does nothing else
            return
        }
        guard let pane = panes.indices.contains(focus) ? panes[focus] : nil else { return }
        switch key {
        case .up, .character("k"): pane.step(forward: false)
        case .down, .character("j"): pane.step(forward: true)
        case .pageUp: pane.page(by: -max(bodyHeight(of: focus) - 1, 1))
        case .pageDown: pane.page(by: max(bodyHeight(of: focus) - 1, 1))
        case .home, .character("g"): pane.home(last: false)
        case .end, .character("G"): pane.home(last: true)
        case .left, .character("h"): choose(in: pane, by: -1)
        case .right, .character("l"): choose(in: pane, by: 1)
        case .tab: focus = (focus + 1) % panes.count
        case .backTab: focus = (focus + panes.count - 1) % panes.count
        case .enter, .character(" "): runSelected(in: pane, action: nil)
        case .character("u"): travel(undo: true)
        case .control("r"): travel(undo: false)
        case .character("?"): showingHelp = true
        case .character("q"), .escape, .control("c"): isFinished = true
        case let .click(line, _): click(atLine: line)
        default:
            if let action = pane.keys[key.description] {
                runSelected(in: pane, action: action)
            } else {
                setStatus("\(key) does nothing here: ? lists the keys", error: false)
            }
        }
        closeVanishedViews()
    }

    /// A click: on a view's title it focuses that view; on a row it focuses the view and selects the row;
    /// on the row already selected it runs the row's action, as Enter does. Elsewhere it does nothing.
    private func click(atLine line: Int) {
        var start = 0
        for (index, paneHeight) in paneHeights().enumerated() {
            guard line >= start, line < start + paneHeight else {
                start += paneHeight
                continue
            }
            let pane = panes[index]
            let wasFocused = focus == index
            focus = index
            let bodyLine = line - start - (paneHeight >= 2 ? 1 : 0)
            guard bodyLine >= 0, let path = pane.row(atBodyLine: bodyLine) else { return }
            if wasFocused && pane.cursor == path {
                runSelected(in: pane, action: nil)
            } else {
                pane.select(path)
            }
            return
        }
    }

    private func choose(in pane: LivePane, by step: Int) {
        guard let current = pane.effectiveChoice, let count = pane.selectedCell?.payload?.choices?.count else { return }
        pane.choice = min(max(current + step, 0), count - 1)
    }

    /// Dispatches the selected row's action (or `action`, a view key's, with the row's payload).
    private func runSelected(in pane: LivePane, action keyAction: String?) {
        guard let cell = pane.selectedCell else { return setStatus("no row to act on", error: false) }
        guard let name = keyAction ?? cell.action else {
            return setStatus("'\(cell.title)' has no action", error: false)
        }
        var payload = cell.payload
        if let choices = payload?.choices, let choice = pane.effectiveChoice {
            payload = choices[choice]
        }
        let described = payload.map { "\(name) \($0.luaSource)" } ?? name
        for other in panes { other.lastChange = nil }
        renderFailure = nil
        do {
            dispatching = true
            defer { dispatching = false }
            guard let actions else { throw LiveViewError.applicationGone }
            try actions.dispatch(action: name, payload: payload)
        } catch {
            return setStatus("\(described): \(describe(error))", error: true)
        }
        reportOutcome(of: described)
    }

    private func travel(undo: Bool) {
        for other in panes { other.lastChange = nil }
        do {
            guard let actions else { throw LiveViewError.applicationGone }
            renderFailure = nil
            if let label = undo ? try actions.undo() : try actions.redo() {
                reportOutcome(of: (undo ? "undid " : "redid ") + label)
            } else {
                setStatus(undo ? "nothing to undo" : "nothing to redo", error: false)
            }
        } catch {
            setStatus((undo ? "undo: " : "redo: ") + describe(error), error: true)
        }
    }

    /// The status after `what` ran: what it changed on screen, or (in red) the render it broke.
    private func reportOutcome(of what: String) {
        if let failure = renderFailure {
            setStatus("\(what) → \(failure)", error: true)
        } else {
            setStatus("\(what) → \(changeSummary())", error: false)
        }
    }

    /// What the last action changed on screen: `2 rows in annotationFilter`.
    private func changeSummary() -> String {
        let changed = panes.compactMap { pane -> String? in
            guard let diff = pane.lastChange, !diff.isEmpty else { return nil }
            let rows = diff.rowUpdates.count + diff.rowInserts.count + diff.rowDeletes.count + diff.rowMoves.count
            let count = rows > 0 ? rows : diff.changeCount
            return "\(count) \(count == 1 ? "row" : "rows") changed in \(pane.name)"
        }
        return changed.isEmpty ? "no change on screen" : changed.joined(separator: ", ")
    }

    private func describe(_ error: any Error) -> String {
        actions?.describe(error) ?? String(describing: error)
    }

    private func setStatus(_ text: String, error: Bool) {
        status = text
        statusIsError = error
    }

    /// Closes the views whose view or store went away (a plugin unloaded); the last one closes the screen.
    public func closeVanishedViews() {
        guard !isFinished else { return }
        let gone = panes.filter { actions?.view(named: $0.name) == nil }
        guard !gone.isEmpty else { return }
        for pane in gone { pane.subscription?.cancel() }
        let names = gone.map { "'\($0.name)'" }.joined(separator: ", ")
        let message = "closed \(names): the view or its store is gone (unloaded?)"
        panes.removeAll { pane in gone.contains { $0 === pane } }
        focus = min(focus, max(panes.count - 1, 0))
        setStatus(message, error: true)
        if panes.isEmpty {
            closingMessage = message
            isFinished = true
        }
    }

    // MARK: Drawing

    private var helpHint: String { "? lists the keys" }

    private var footerLines: Int { height >= 3 ? 2 : height - 1 }

    /// The lines each view gets, title included.
    private func paneHeights() -> [Int] {
        let area = height - footerLines
        guard !panes.isEmpty else { return [] }
        let base = area / panes.count
        let extra = area % panes.count
        return panes.indices.map { base + ($0 < extra ? 1 : 0) }
    }

    private func bodyHeight(of index: Int) -> Int {
        let heights = paneHeights()
        guard heights.indices.contains(index) else { return 1 }
        return heights[index] >= 2 ? heights[index] - 1 : heights[index]
    }

    /// The screen, exactly ``height`` lines.
    public func lines() -> [ScreenLine] {
        closeVanishedViews()
        let color = options.color
        var lines: [ScreenLine] = []
        lines.reserveCapacity(height)
        if showingHelp {
            lines += helpLines().prefix(height - footerLines)
        } else {
            for (index, paneHeight) in paneHeights().enumerated() where paneHeight > 0 {
                let pane = panes[index]
                var body = paneHeight
                if paneHeight >= 2 {
                    lines.append(titleLine(of: pane, focused: index == focus))
                    body -= 1
                }
                lines += pane.lines(width: width, height: body, options: options)
            }
        }
        while lines.count < height - footerLines { lines.append(.empty) }
        if footerLines >= 1 {
            lines.append(ScreenLine(status, width: width, style: statusIsError ? .error : .plain, color: color,
                                    ellipsis: options.unicode ? "…" : "..."))
        }
        if footerLines >= 2 {
            // The bottom line stops one column short: writing the last column of the last line would scroll
            // some terminals.
            lines.append(ScreenLine(keyHelp(), width: width - 1, style: .dim, color: color))
        }
        return lines
    }

    /// The screen's text: one line per row, without styles or trailing blanks.
    public var text: String {
        lines().map(\.text).joined(separator: "\n")
    }

    private func titleLine(of pane: LivePane, focused: Bool) -> ScreenLine {
        let marker = options.unicode ? "▸" : ">"
        let multiple = panes.count > 1
        var title = (focused && multiple ? marker + " " : multiple ? "  " : "") + pane.name
        if let error = pane.error { title += " (render failed: \(error))" }
        return ScreenLine(title, width: width, style: focused ? .reverse : .bold, color: options.color)
    }

    private func keyHelp() -> String {
        let unicode = options.unicode
        var parts = [unicode ? "↑↓ move" : "up/down move"]
        if selectedCell?.payload?.choices != nil { parts.append(unicode ? "←→ choose" : "left/right choose") }
        parts.append((unicode ? "⏎" : "enter") + " run")
        if panes.count > 1 { parts.append("tab view") }
        if panes.indices.contains(focus) {
            parts += panes[focus].keys.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        }
        parts += ["u undo", "^R redo", "? keys", "q quit"]
        return parts.joined(separator: "  ")
    }

    private func helpLines() -> [ScreenLine] {
        var rows: [(String, String)] = [
            ("Up Down  k j", "move to the previous, next row (disabled rows are skipped)"),
            ("PgUp PgDn", "move a page"),
            ("Home End  g G", "first, last row"),
            ("Left Right  h l", "choose within the row (a board row's squares)"),
            ("Tab  Shift-Tab", "next, previous view"),
            ("Enter Space", "run the row's action"),
            ("click", "select a row; on the selected row, run its action"),
            ("u  Ctrl-R", "undo, redo"),
            ("?", "these keys (any key closes them)"),
            ("q Esc Ctrl-C", "leave"),
        ]
        if panes.indices.contains(focus) {
            rows += panes[focus].keys.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value) with the row's payload") }
        }
        let keyWidth = rows.map { DisplayWidth.of($0.0) }.max() ?? 0
        return [ScreenLine("Keys", width: width, style: .bold, color: options.color)] + rows.map { key, meaning in
            ScreenLine("  " + key + String(repeating: " ", count: keyWidth - DisplayWidth.of(key) + 2) + meaning,
                       width: width, color: options.color)
        }
    }
}

/// Why views cannot be opened.
public enum LiveViewError: Error, Equatable, CustomStringConvertible {
    /// No view was named.
    case noViews
    /// A view was named twice.
    case openedTwice(String)
    /// What dispatches the views' actions is gone.
    case applicationGone

    public var description: String {
        switch self {
        case .noViews: "name a view to open (:views lists them)"
        case let .openedTwice(name): "view '\(name)' is named twice: a view is shown once"
        case .applicationGone: "the shell these views belong to is gone"
        }
    }
}
