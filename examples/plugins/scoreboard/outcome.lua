-- The result of a finished board game, as the scoreboard counts it: "X", "O", "draws", or nil
-- while the game goes on. A module of its own, found by `require` because the plugin's folder is
-- on the package path.
return function(game)
  if game.winner then return game.winner end
  if game.gameInstruction == "Draw" then return "draws" end
  return nil
end
