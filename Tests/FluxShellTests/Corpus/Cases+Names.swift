extension Corpus {
    /// Names of stores, actions and views that do not exist.
    static let names: [BadInput] = [
        lua(.names, "flux.state('nope')", "unknown store 'nope' (known: annotationFilter, issues, visibleIssues, ticTacToe, connectFour, probe, notes)"),
        lua(.names, "flux.state('')", "unknown store ''"),
        lua(.names, "flux.state('TicTacToe')", "unknown store 'TicTacToe'"),
        lua(.names, "flux.state('probe ')", "unknown store 'probe '"),
        lua(.names, "flux.state('probe\\0')", "unknown store 'probe\\0'", title: "flux.state of a store name with a zero byte after it"),
        lua(.names, "flux.actions('nope')", "unknown store 'nope'"),
        lua(.names, "flux.subscribe('nope', print)", "unknown store 'nope'"),
        lua(.names, "flux.view('v', {store = 'nope', render = function() return {sections = {}} end})", "unknown store 'nope'"),
        lua(.names, "flux.dispatch('nope')", "unknown action 'nope'"),
        lua(.names, "flux.dispatch('')", "unknown action ''"),
        lua(.names, "flux.dispatch('ticTacToe.placetoken', {index = 1})", "unknown action 'ticTacToe.placetoken'"),
        lua(.names, "flux.dispatch('ticTacToe')", "unknown action 'ticTacToe'"),
        lua(.names, "flux.dispatch('probe.add\\0', {by = 1})", "unknown action 'probe.add\\0'", title: "flux.dispatch of an action name with a zero byte after it"),
        lua(.names, "flux.dispatch{type = 'nope.nothing'}", "unknown action 'nope.nothing'"),
        lua(.names, "flux.dispatch('flux.undo')", "unknown action 'flux.undo'"),
        lua(.names, "flux.dispatch('lua.action')", "unknown action 'lua.action'"),
        lua(.names, "flux.model('nope')", "unknown view 'nope' (known: "),
        lua(.names, "flux.render('')", "unknown view ''"),
        lua(.names, "flux.render('probe')", "unknown view 'probe'", title: "flux.render of a store that has no view"),
        lua(.names, "flux.watch('nope', print)", "unknown view 'nope'"),
        lua(.names, "flux.store{name = 'late', wait_for = {'nope'}, on = {['late.go'] = function(s) return s end}} flux.dispatch('late.go')",
            "wait_for names no store 'nope'",
            outcome: .asIf(["flux.store{name = 'late', wait_for = {'nope'}, on = {['late.go'] = function(s) return s end}}"],
                           why: "defining the store succeeded; only its first dispatch failed")),
    ]
}
