-- The plugins in examples/plugins, checked: what `fluxsh --plugins examples/plugins` loads.
--
-- Shows: loading a plugin by hand (a file with dofile; a folder by putting it on the package path
-- and running its init.lua, as the shell does), then using its stores and views like any other.
-- A plugin's own store can take part in the shipped stores' actions: the scoreboard counts
-- tic-tac-toe results in the same dispatch as the move, so undo takes a point back with the move.

-- The plugins live next to this script, wherever it is run from.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local plugins = here .. "plugins/"

dofile(plugins .. "counter.lua")
package.path = plugins .. "scoreboard/?.lua;" .. package.path
dofile(plugins .. "scoreboard/init.lua")

-- The counter: a store and a view of its own.
flux.dispatch("counter.increment")
flux.dispatch("counter.increment", {by = 41})
expect(flux.state("counter").count, 42, "count")
expect(flux.model("counter").sections[1].cells[1].detail, "42", "the view shows the count")
expect_error(function() flux.dispatch("counter.increment", {by = 0.5}) end, "'by' must be an integer")
flux.dispatch("counter.reset")
expect(flux.state("counter").count, 0, "count after reset")

-- The scoreboard: X wins on the left column (X: 0, 3, 6), then a new game ends in a draw.
local function play(...)
  for _, index in ipairs{...} do flux.dispatch("ticTacToe.placeToken", {index = index}) end
end
play(0, 1, 3, 4)
expect(flux.state("scoreboard"), {X = 0, O = 0, draws = 0}, "no score while the game goes on")
play(6)
expect(flux.state("scoreboard"), {X = 1, O = 0, draws = 0}, "score after X wins")

flux.dispatch("ticTacToe.reset")
play(0, 1, 2, 4, 3, 5, 7, 6, 8)
expect(flux.state("scoreboard"), {X = 1, O = 0, draws = 1}, "score after a draw")

-- The point and the move are one undo step.
flux.undo()
expect(flux.state("scoreboard"), {X = 1, O = 0, draws = 0}, "score after undoing the last move")
expect(flux.state("ticTacToe").gameInstruction, "X's turn", "game after undoing the last move")

local text = flux.render("scoreboard", 40)
assert(text:find("X wins", 1, true) and text:find("Draws", 1, true), text)
