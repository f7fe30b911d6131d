extension Corpus {
    /// Lua that builds a table nested `depth` levels deep in `t`.
    static func deep(_ depth: Int, leaf: String = "'x'") -> String {
        "local t = \(leaf) for i = 1, \(depth) do t = {t = t, text = 'x'} end"
    }

    /// Lua that builds a table with 10^6 entries in `t`.
    static let huge = "local t = {} for i = 1, 1000000 do t[i] = i end"

    /// Cyclic, deep, huge and mixed tables; strings that are not UTF-8 or hold zeros; NaN, ±inf and
    /// numbers out of Int range.
    static let values: [BadInput] = [
        // Cyclic tables.
        lua(.values, "local t = {text = 'x'} t.self = t flux.dispatch('notes.add', t)", "it contains itself (a cycle)"),
        lua(.values, "local t = {text = 'x'} t.self = t flux.dispatch{type = 'notes.add', text = 'x', more = t}", "it contains itself (a cycle)"),
        lua(.values, "local t = {} t[1] = t flux.dispatch('probe.tag', {tags = t})", "probe.tag: field 'tags[1]'"),
        lua(.values, "local t = {} t.by = t flux.dispatch('probe.add', t)", "probe.add: field 'by': expected an integer, got table"),
        lua(.values, "local a, b = {}, {} a.b, b.a = b, a flux.dispatch('notes.add', {text = 'x', a = a})", "it contains itself (a cycle)"),
        lua(.values, "flux.store{name = 'loop', on = {['loop.go'] = function(s) s.me = s s.text = 'ok' error('refused after making a cycle') end}} flux.dispatch('loop.go')",
            "refused after making a cycle",
            outcome: .asIf(["flux.store{name = 'loop', on = {['loop.go'] = function(s) s.me = s s.text = 'ok' error('refused after making a cycle') end}}"],
                           why: "the store was defined; its failing handler changed nothing")),

        // Nesting past the limit (200 levels).
        lua(.values, deep(250) + " flux.dispatch('notes.add', t)", "nested deeper than 200 levels"),
        lua(.values, deep(250) + " flux.dispatch('notes.add', {text = 'x', deep = t})", "nested deeper than 200 levels"),
        lua(.values, deep(100_000) + " flux.dispatch('notes.add', t)", "nested deeper than 200 levels"),
        lua(.values, deep(250) + " flux.dispatch('probe.tag', {tags = {t}})", "probe.tag: field 'tags[1]'"),
        lua(.values, deep(250) + " flux.store{name = 'deep', state = t} error('after defining: ' .. tostring(flux.state('deep').text))",
            "after defining: x",
            outcome: .unpredictable(why: "defining the store with a deep state succeeds; the error comes after it")),

        // Huge tables: 10^6 entries.
        lua(.values, huge + " flux.dispatch('probe.add', {by = t})", "probe.add: field 'by': expected an integer, got table"),
        lua(.values, huge + " flux.dispatch('notes.add', t)", "notes.add: field 'text' must be a string, got nil"),
        lua(.values, huge + " t.by = 'many' flux.dispatch('probe.add', t)", "probe.add: field 'by': expected an integer, got string"),
        lua(.values, huge + " t[#t + 1] = {} flux.dispatch('probe.tag', {tags = t})", "probe.tag: field 'tags[1]': expected a string, got number"),
        lua(.values, "local t = {} for i = 1, 1000000 do t['k' .. i] = i end flux.dispatch('notes.add', t)", "notes.add: field 'text' must be a string, got nil"),
        lua(.values, huge + " flux.dispatch('ticTacToe.placeToken', {index = t})", "field 'index': expected an integer, got table"),

        // Mixed array and hash keys where an array is expected.
        lua(.values, "flux.dispatch('probe.tag', {tags = {'a', 'b', x = 'c'}})", "probe.tag: field 'tags'"),
        lua(.values, "flux.dispatch('probe.tag', {tags = {'a', nil, 'c'}})", "probe.tag: field 'tags[2]'"),
        lua(.values, "flux.dispatch('probe.tag', {tags = {[0] = 'a'}})", "probe.tag: field 'tags'"),
        lua(.values, "flux.dispatch('probe.tag', {tags = {[2] = 'b'}})", "probe.tag: field 'tags[1]'"),
        lua(.values, "flux.dispatch('probe.tag', {tags = {[1.5] = 'a'}})", "probe.tag: field 'tags'"),
        lua(.values, "flux.dispatch('probe.tag', {tags = {[-1] = 'a', 'b'}})", "probe.tag: field 'tags'"),
        lua(.values, "flux.dispatch('probe.tag', {tags = {[true] = 'a'}})", "probe.tag: field 'tags'"),
        lua(.values, "flux.dispatch('probe.add', {[1] = 5, [2] = 6})", "probe.add: field 'by'"),

        // Strings that are not UTF-8, or hold zeros.
        lua(.values, "flux.dispatch('annotationFilter.toggleFilter', {filter = '\\xff\\xfe'})", "field 'filter': invalid string: not UTF-8"),
        lua(.values, "flux.dispatch('probe.tag', {tags = {'ok', 'caf\\xe9'}})", "field 'tags[2]': invalid string: not UTF-8"),
        lua(.values, "flux.dispatch('issues.selectBlueprint', {blueprint = '\\xc3'})", "field 'blueprint': invalid string: not UTF-8"),
        lua(.values, "flux.dispatch('issues.selectBlueprint', {blueprint = 'A-101\\0'})", "A-101\\0", title: "a blueprint id with a zero byte after it"),
        lua(.values, "flux.dispatch('annotationFilter.toggleFilter', {filter = 'issues.status\\0hidden'})", "issues.status\\0hidden",
            title: "a filter id with a zero byte inside"),
        lua(.values, "flux.dispatch('\\xff\\xfe')", #"name "\xFF\xFE" is not valid UTF-8"#),
        lua(.values, "flux.state('\\xe9')", #"name "\xE9" is not valid UTF-8"#),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', ['\\xff'] = 1})", "notes.add: invalid key: not UTF-8"),
        lua(.values, "flux.dispatch('notes.add', {text = 'caf\\xe9'})", "notes.add: field 'text': invalid string: not UTF-8"),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', tags = {'ok', '\\xc3\\x28'}})", "notes.add: field 'tags[2]': invalid string: not UTF-8"),
        lua(.values, "flux.dispatch('notes.add', {text = 'a\\0b', [true] = 1})", "notes.add: invalid key: a boolean key"),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', [1.5] = 'half'})", "notes.add: invalid key: a number key"),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', [{}] = 1})", "notes.add: invalid key: a table key"),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', callback = print})", "notes.add: field 'callback': invalid value: a function cannot be sent in a payload"),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', file = io.stdout})", "notes.add: field 'file': invalid value: a userdata cannot be sent in a payload"),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', job = coroutine.create(print)})", "notes.add: field 'job': invalid value: a thread cannot be sent in a payload"),
        lua(.values, "flux.dispatch{type = 'notes.add', text = 'x', more = {deeper = {f = print}}}", "notes.add: field 'more.deeper.f': invalid value: a function"),

        // NaN, infinities and numbers out of Int range.
        lua(.values, "flux.dispatch('probe.add', {by = 0/0})", "probe.add: field 'by'"),
        lua(.values, "flux.dispatch('probe.add', {by = math.huge})", "probe.add: field 'by'"),
        lua(.values, "flux.dispatch('probe.add', {by = -math.huge})", "probe.add: field 'by'"),
        lua(.values, "flux.dispatch('probe.add', {by = 2^63})", "probe.add: field 'by'"),
        lua(.values, "flux.dispatch('probe.add', {by = -2^64})", "probe.add: field 'by'"),
        lua(.values, "flux.dispatch('probe.add', {by = 1e308 * 10})", "probe.add: field 'by'"),
        lua(.values, "flux.dispatch('probe.add', {by = math.maxinteger})", "overflows the count"),
        lua(.values, "flux.dispatch('ticTacToe.placeToken', {index = math.maxinteger})", "is not on the board"),
        lua(.values, "flux.dispatch('ticTacToe.placeToken', {index = math.mininteger})", "is not on the board"),
        lua(.values, "flux.dispatch('connectFour.dropToken', {column = 0/0})", "connectFour.dropToken: field 'column'"),
        lua(.values, "flux.dispatch('issues.close', {id = math.huge})", "issues.close: field 'id'"),
        lua(.values, "flux.dispatch('notes.add', {text = 0/0})", "notes.add: field 'text': invalid number: nan cannot be logged"),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', size = math.huge})", "notes.add: field 'size': invalid number: inf cannot be logged"),
        lua(.values, "flux.dispatch('notes.add', {text = 'x', sizes = {1, -math.huge}})", "notes.add: field 'sizes[2]': invalid number: -inf cannot be logged"),
        lua(.values, "flux.dispatch('notes.add', {[0/0] = 1})", "table index is NaN"),
        lua(.values, "flux.render('ticTacToe', math.huge)", "bad argument #2 to 'render' (width must be a positive integer"),
    ]
}
