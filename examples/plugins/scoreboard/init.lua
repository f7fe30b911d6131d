-- A plugin in a folder: a scoreboard for the shipped tic-tac-toe game. `init.lua` is what runs;
-- it can `require` the folder's other modules.
--
-- The store handles the game's own action, `ticTacToe.placeToken`, and waits for the `ticTacToe`
-- store first (wait_for), so the state it reads is the one the move has just made. Its change is
-- part of the same dispatch: undoing the winning move takes the point back too.
--
-- Load it with `fluxsh --plugins examples/plugins`, then play a game and `:render scoreboard`.

local outcome = require "outcome"

flux.store{
  name = "scoreboard",
  state = {X = 0, O = 0, draws = 0},
  wait_for = {"ticTacToe"},
  on = {
    ["ticTacToe.placeToken"] = function(state)
      local result = outcome(flux.state("ticTacToe"))
      if not result then return end -- the game goes on: no change
      state[result] = state[result] + 1
      return state
    end,
  },
}

flux.view("scoreboard", {store = "scoreboard", render = function(state)
  local cells = {}
  for i, key in ipairs{"X", "O", "draws"} do
    cells[i] = {id = key, title = key == "draws" and "Draws" or key .. " wins", detail = tostring(state[key])}
  end
  return {sections = {{header = "Scoreboard", height = 28, cells = cells}}}
end})
