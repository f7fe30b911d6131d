-- The plugins in examples/plugins, checked: what `fluxsh --plugins examples/plugins` loads.
--
-- Shows: loading plugins in a script with flux.load, as :load does — a file, and a folder whose init.lua
-- requires its own modules (a relative path is read from this script's folder) — then using their
-- stores and views like any other. A plugin's own store can take part in the shipped stores' actions:
-- the scoreboard counts tic-tac-toe results in the same dispatch as the move, so undo takes a point
-- back with the move.

flux.load("plugins/counter.lua")
flux.load("plugins/scoreboard")

describe("the counter plugin", function()
  it("counts by one, or by what it is given", function()
    local t = flux.test_store("counter")
    t:dispatch("counter.increment", function(s) s.count = 1 end)
    t:dispatch("counter.increment", {by = 41}, function(s) s.count = 42 end)
    expect(flux.model("counter").sections[1].cells[1].detail, "42", "the view shows the count")
  end)

  it("refuses a count that is not an integer", function()
    expect_error(function() flux.dispatch("counter.increment", {by = 0.5}) end, "'by' must be an integer")
  end)

  it("resets to zero", function()
    flux.dispatch("counter.increment", {by = 5})
    flux.dispatch("counter.reset")
    expect(flux.state("counter").count, 0)
  end)
end)

describe("the scoreboard plugin", function()
  local function play(...)
    for _, index in ipairs{...} do flux.dispatch("ticTacToe.placeToken", {index = index}) end
  end

  it("scores nothing while the game goes on", function()
    play(0, 1, 3, 4)
    expect(flux.state("scoreboard"), {X = 0, O = 0, draws = 0})
  end)

  context("when X wins on the left column (X: 0, 3, 6)", function()
    before_each(function() play(0, 1, 3, 4, 6) end)

    it("gives X a point", function()
      expect(flux.state("scoreboard"), {X = 1, O = 0, draws = 0})
    end)

    context("and a new game ends in a draw", function()
      before_each(function()
        flux.dispatch("ticTacToe.reset")
        play(0, 1, 2, 4, 3, 5, 7, 6, 8)
      end)

      it("counts the draw", function()
        expect(flux.state("scoreboard"), {X = 1, O = 0, draws = 1})
        local text = flux.render("scoreboard", 40)
        assert(text:find("X wins", 1, true) and text:find("Draws", 1, true), text)
      end)

      -- The point and the move are one undo step.
      it("takes the point back with the last move", function()
        flux.undo()
        expect(flux.state("scoreboard"), {X = 1, O = 0, draws = 0})
        expect(flux.state("ticTacToe").gameInstruction, "X's turn")
      end)
    end)
  end)
end)
