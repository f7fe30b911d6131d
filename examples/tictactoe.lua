-- Tic-tac-toe: a full game to a win, one to a draw, undo and redo, and illegal moves.
--
-- Shows: one action per user move (`ticTacToe.placeToken {index = …}`), a store that changes board,
-- player to move and instruction in one state change, and undo/redo that take back a move the way
-- players perceive it — board and instruction together, never one without the other (the flaw the
-- Flux workshop's solution admits to). An illegal move is an error that changes nothing.
--
-- Cells are numbered 0…8, row by row from the top left:
--   0 1 2
--   3 4 5
--   6 7 8
--
-- Run it alone with `fluxsh run examples/tictactoe.lua`.

local function game() return flux.state("ticTacToe") end

-- The actions that changed something: undoing all the way back should take exactly this many steps.
local moves = 0
local function play(...)
  for _, index in ipairs{...} do
    flux.dispatch("ticTacToe.placeToken", {index = index})
    moves = moves + 1
  end
end

-- The board as the view shows it, one string per row ("X O ."): easy to read in a failed check.
local function rows()
  local result = {}
  for i, cell in ipairs(flux.model("ticTacToe").sections[1].cells) do result[i] = cell.title end
  return result
end

-- Every state an observer ever sees must be consistent: the instruction matches the board. With
-- separate changes for board and instruction, an observer would see a token placed under the old
-- "X's turn" for a moment. Tokens alternate, so with n tokens and nobody winning it is X's turn when
-- n is even. The subscriber notes what it finds wrong; the script checks the notes at the end.
local function instruction_for(state)
  local tokens = 0
  for i = 1, 9 do if state.board[i] then tokens = tokens + 1 end end
  if state.winner then return state.winner .. " wins" end
  if tokens == 9 then return "Draw" end
  return tokens % 2 == 0 and "X's turn" or "O's turn"
end
local seen, inconsistent = 0, {}
local watcher <close> = flux.subscribe("ticTacToe", function(state)
  seen = seen + 1
  if state.gameInstruction ~= instruction_for(state) then
    inconsistent[#inconsistent + 1] = ("%q on a board that calls for %q"):format(state.gameInstruction, instruction_for(state))
  end
end)

-- A fresh game: X to move on an empty board.
expect(game().gameInstruction, "X's turn", "new game")
expect(rows(), {". . .", ". . .", ". . ."}, "empty board")

-- X takes the top row.
play(0, 3, 1, 4, 2)
expect(rows(), {"X X X", "O O .", ". . ."}, "board after X's win")
expect(game().winner, "X", "winner")
expect(game().winningLine, {0, 1, 2}, "winning line")
expect(game().gameInstruction, "X wins", "instruction after the win")
expect(flux.model("ticTacToe").sections[1].header, "X wins", "the header is the instruction")

-- The game is over: another move is refused, and the board stays as it is.
local over = game()
expect_error(function() flux.dispatch("ticTacToe.placeToken", {index = 8}) end, "the game is over (X wins)")
expect(game(), over, "state after a move past the end")

-- Undo takes back X's winning move as one step: the token and the instruction go together.
local before_undo = seen
expect(flux.undo(), true, "undo")
expect(seen - before_undo, 1, "observers hear one change per undo")
expect(rows(), {"X X .", "O O .", ". . ."}, "board after undo")
expect(game().gameInstruction, "X's turn", "instruction after undo")
expect(game().winner, nil, "no winner after undo")

-- Redo plays it again.
expect(flux.redo(), true, "redo")
expect(game(), over, "state after redo")
expect(flux.redo(), false, "nothing more to redo")

-- Undo twice, then play another move: the redo history is dropped.
flux.undo()
flux.undo()
moves = moves - 2
play(8)
expect(rows(), {"X X .", "O . .", ". . O"}, "board after a different move")
expect(flux.redo(), false, "a new move clears the redo history")

-- A new game, played to a draw:
--   X O X
--   X O O
--   O X X
flux.dispatch("ticTacToe.reset")
moves = moves + 1
play(0, 1, 2, 4, 3, 5, 7, 6, 8)
expect(rows(), {"X O X", "X O O", "O X X"}, "board after the draw")
expect(game().gameInstruction, "Draw", "instruction after the draw")
expect(game().winner, nil, "no winner in a draw")

-- Illegal moves are errors that change nothing: neither the state nor the undo history.
flux.dispatch("ticTacToe.reset")
moves = moves + 1
play(4)
local legal = game()
expect_error(function() flux.dispatch("ticTacToe.placeToken", {index = 4}) end, "cell 4 is already taken by X")
expect_error(function() flux.dispatch("ticTacToe.placeToken", {index = 9}) end, "cell 9 is not on the board")
expect_error(function() flux.dispatch("ticTacToe.placeToken", {index = "centre"}) end, "expected an integer")
expect_error(function() flux.dispatch("ticTacToe.placeToken") end, "field 'index': expected a value, got nil")
-- pcall is how a script recovers from a refused move on its own.
local ok, message = pcall(flux.dispatch, "ticTacToe.placeToken", {index = -1})
expect(ok, false, "a negative index is refused")
assert(message:find("not on the board", 1, true), message)
expect(game(), legal, "state after the illegal moves")

-- Undo all the way back: one step per move that happened, none for the refused ones, and the
-- board ends empty.
local steps = 0
while flux.undo() do steps = steps + 1 end
expect(steps, moves, "undo steps")
expect(rows(), {". . .", ". . .", ". . ."}, "board after undoing everything")
expect(game().gameInstruction, "X's turn", "instruction after undoing everything")
expect(inconsistent, {}, "states observers saw that disagree with their board")
