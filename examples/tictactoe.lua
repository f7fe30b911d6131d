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
-- The checks are specs: each `it` starts from a fresh game (stores and undo history are reset between
-- tests). Run it alone with `fluxsh run examples/tictactoe.lua`.

local function game() return flux.state("ticTacToe") end

local function play(...)
  for _, index in ipairs{...} do flux.dispatch("ticTacToe.placeToken", {index = index}) end
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
-- n is even. The subscriber notes what it finds wrong, in every test; the last test checks the notes.
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

describe("tic-tac-toe", function()
  it("starts with X to move on an empty board", function()
    expect(game().gameInstruction, "X's turn")
    expect(rows(), {". . .", ". . .", ". . ."})
  end)

  describe("when X takes the top row", function()
    before_each(function() play(0, 3, 1, 4, 2) end)

    it("ends the game with X the winner", function()
      expect(rows(), {"X X X", "O O .", ". . ."})
      expect(game().winner, "X")
      expect(game().winningLine, {0, 1, 2})
      expect(game().gameInstruction, "X wins")
      expect(flux.model("ticTacToe").sections[1].header, "X wins", "the header is the instruction")
    end)

    it("refuses another move, changing nothing", function()
      local over = game()
      expect_error(function() flux.dispatch("ticTacToe.placeToken", {index = 8}) end, "the game is over (X wins)")
      expect(game(), over)
    end)

    -- Undo takes back X's winning move as one step: the token and the instruction go together.
    context("when the winning move is undone", function()
      local over, before_undo
      before_each(function()
        over, before_undo = game(), seen
        expect(flux.undo(), true, "undo")
      end)

      it("takes back token and instruction together, in one change", function()
        expect(seen - before_undo, 1, "observers hear one change per undo")
        expect(rows(), {"X X .", "O O .", ". . ."})
        expect(game().gameInstruction, "X's turn")
        expect(game().winner, nil)
      end)

      it("plays it again on redo", function()
        expect(flux.redo(), true, "redo")
        expect(game(), over)
        expect(flux.redo(), false, "nothing more to redo")
      end)

      it("drops the redo history when another move is played", function()
        flux.undo()
        play(8)
        expect(rows(), {"X X .", "O . .", ". . O"})
        expect(flux.redo(), false, "a new move clears the redo history")
      end)
    end)
  end)

  -- X O X
  -- X O O
  -- O X X
  it("ends in a draw when the board fills with no line", function()
    play(0, 1, 2, 4, 3, 5, 7, 6, 8)
    expect(rows(), {"X O X", "X O O", "O X X"})
    expect(game().gameInstruction, "Draw")
    expect(game().winner, nil, "no winner in a draw")
  end)

  -- Illegal moves are errors that change nothing: neither the state nor the undo history.
  describe("an illegal move", function()
    before_each(function() play(4) end)

    it("is refused with the reason, changing nothing", function()
      local legal = game()
      expect_error(function() flux.dispatch("ticTacToe.placeToken", {index = 4}) end, "cell 4 is already taken by X")
      expect_error(function() flux.dispatch("ticTacToe.placeToken", {index = 9}) end, "cell 9 is not on the board")
      expect_error(function() flux.dispatch("ticTacToe.placeToken", {index = "centre"}) end, "expected an integer")
      expect_error(function() flux.dispatch("ticTacToe.placeToken") end, "field 'index': expected a value, got nil")
      expect(game(), legal)
    end)

    -- pcall is how a script recovers from a refused move on its own.
    it("can be caught with pcall", function()
      local ok, message = pcall(flux.dispatch, "ticTacToe.placeToken", {index = -1})
      expect(ok, false)
      assert(message:find("not on the board", 1, true), message)
    end)

    it("leaves no step in the undo history", function()
      pcall(flux.dispatch, "ticTacToe.placeToken", {index = 4})
      expect(flux.undo(), true, "the legal move")
      expect(flux.undo(), false, "no step for the refused one")
    end)
  end)

  -- Undo all the way back: one step per move that happened, and the board ends empty.
  it("undoes move by move back to an empty board", function()
    play(0, 3, 1, 4)
    local steps = 0
    while flux.undo() do steps = steps + 1 end
    expect(steps, 4)
    expect(rows(), {". . .", ". . .", ". . ."})
    expect(game().gameInstruction, "X's turn")
  end)

  it("never showed observers an instruction that disagrees with the board", function()
    expect(inconsistent, {})
    assert(seen > 10, "the observer heard the tests' moves")
  end)
end)
