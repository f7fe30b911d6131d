extension Corpus {
    /// Payloads that do not decode into the action: wrong types, missing fields, extra fields.
    static let payloads: [BadInput] = [
        // Wrong types, for each shipped action's fields.
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = '4'})", "ticTacToe.placeToken: field 'index': expected an integer, got string"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = 4.5})", "ticTacToe.placeToken: field 'index'"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = true})", "field 'index': expected an integer, got boolean"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = {4}})", "field 'index': expected an integer, got table"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = print})", "field 'index': expected an integer, got function"),
        lua(.payloads, "flux.dispatch('connectFour.dropToken', {column = 'a'})", "connectFour.dropToken: field 'column': expected an integer, got string"),
        lua(.payloads, "flux.dispatch('annotationFilter.toggleFilter', {filter = 5})", "annotationFilter.toggleFilter: field 'filter': expected a string, got number"),
        lua(.payloads, "flux.dispatch('annotationFilter.enterFilterGroup', {group = {}})", "annotationFilter.enterFilterGroup: field 'group': expected a string, got table"),
        lua(.payloads, "flux.dispatch('annotationFilter.resetFiltersInGroup', {group = false})", "field 'group': expected a string, got boolean"),
        lua(.payloads, "flux.dispatch('issues.selectBlueprint', {blueprint = 101})", "issues.selectBlueprint: field 'blueprint': expected a string, got number"),
        lua(.payloads, "flux.dispatch('issues.create', {title = 5})", "issues.create: field 'title': expected a string, got number"),
        lua(.payloads, "flux.dispatch('issues.create', {title = 'Crack', assignee = 7})", "issues.create: field 'assignee'"),
        lua(.payloads, "flux.dispatch('issues.edit', {id = '1', title = 'x'})", "issues.edit: field 'id': expected an integer, got string"),
        lua(.payloads, "flux.dispatch('issues.assign', {id = 1, assignee = {}})", "issues.assign: field 'assignee'"),
        lua(.payloads, "flux.dispatch('issues.close', {id = 1.25})", "issues.close: field 'id'"),
        lua(.payloads, "flux.dispatch('issues.reopen', {id = 'one'})", "issues.reopen: field 'id': expected an integer, got string"),
        lua(.payloads, "flux.dispatch('probe.add', {by = '1'})", "probe.add: field 'by': expected an integer, got string"),
        lua(.payloads, "flux.dispatch('probe.tag', {tags = 'a,b'})", "probe.tag: field 'tags': expected an array, got string"),
        lua(.payloads, "flux.dispatch('probe.tag', {tags = {'a', 2}})", "probe.tag: field 'tags[2]': expected a string, got number"),
        lua(.payloads, "flux.dispatch{type = 'probe.add', by = 'lots'}", "probe.add: field 'by': expected an integer, got string"),

        // Missing fields.
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken')", "ticTacToe.placeToken: field 'index'"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {})", "ticTacToe.placeToken: field 'index'"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = nil})", "ticTacToe.placeToken: field 'index'"),
        lua(.payloads, "flux.dispatch{type = 'ticTacToe.placeToken'}", "ticTacToe.placeToken: field 'index'"),
        lua(.payloads, "flux.dispatch('connectFour.dropToken')", "connectFour.dropToken: field 'column'"),
        lua(.payloads, "flux.dispatch('annotationFilter.toggleFilter')", "annotationFilter.toggleFilter: field 'filter'"),
        lua(.payloads, "flux.dispatch('issues.edit', {id = 1})", "issues.edit: field 'title'"),
        lua(.payloads, "flux.dispatch('issues.edit', {title = 'x'})", "issues.edit: field 'id'"),
        lua(.payloads, "flux.dispatch('issues.assign', {assignee = 'me'})", "issues.assign: field 'id'"),
        lua(.payloads, "flux.dispatch('probe.fail')", "probe.fail: field 'kind'"),
        lua(.payloads, "flux.dispatch('notes.add')", "notes.add: field 'text' must be a string, got nil"),

        // Extra and misspelt fields: the field the action needs is still missing.
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {indx = 4})", "ticTacToe.placeToken: field 'index'"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {4})", "ticTacToe.placeToken: field 'index'"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {Index = 4, extra = true})", "ticTacToe.placeToken: field 'index'"),
        lua(.payloads, "flux.dispatch('connectFour.dropToken', {col = 3, row = 1})", "connectFour.dropToken: field 'column'"),
        lua(.payloads, "flux.dispatch('annotationFilter.toggleFilter', {filters = {'issues.status'}})", "annotationFilter.toggleFilter: field 'filter'"),
        lua(.payloads, "flux.dispatch{type = 'ticTacToe.placeToken', payload = {index = 4}}", "ticTacToe.placeToken: field 'index'"),

        // Extra and misspelt fields beside the right ones: refused, naming the field and the real ones.
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = 0, extra = true})", "ticTacToe.placeToken: field 'extra': unknown field (fields: index)"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = 0, [1] = 0})", "ticTacToe.placeToken: field '[1]': unknown field (fields: index)"),
        lua(.payloads, "flux.dispatch{type = 'ticTacToe.placeToken', index = 0, player = 'O'}", "ticTacToe.placeToken: field 'player': unknown field (fields: index)"),
        lua(.payloads, "flux.dispatch('issues.create', {title = 'Crack', assigne = 'me'})", "issues.create: field 'assigne': unknown field, did you mean 'assignee'? (fields: assignee, title)"),
        lua(.payloads, "flux.dispatch('probe.tag', {tags = {'a'}, tag = 'b'})", "probe.tag: field 'tag': unknown field, did you mean 'tags'? (fields: tags)"),

        // Well-formed payloads the store refuses.
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = 9})", "cell 9 is not on the board"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = -1})", "cell -1 is not on the board"),
        lua(.payloads, "flux.dispatch('ticTacToe.placeToken', {index = 4})", "cell 4 is already taken"),
        lua(.payloads, "flux.dispatch('connectFour.dropToken', {column = 7})", "column 7 is not on the board"),
        lua(.payloads, "flux.dispatch('annotationFilter.toggleFilter', {filter = 'nope'})", "nope"),
        lua(.payloads, "flux.dispatch('annotationFilter.enterFilterGroup', {group = 'nope'})", "nope"),
        lua(.payloads, "flux.dispatch('issues.selectBlueprint', {blueprint = 'Z-999'})", "Z-999"),
        lua(.payloads, "flux.dispatch('issues.create', {title = 'Crack in slab'})", "store 'issues' failed on 'issues.create'"),
        lua(.payloads, "flux.dispatch('issues.edit', {id = 99, title = 'x'})", "store 'issues' failed on 'issues.edit'"),
    ]
}
