-- The manifest: data only (it runs with no globals), read before the plugin runs.
return {
  name = "notes",
  version = "1.0.0",
  description = "a list of notes, kept in a store, with a :note command",
  requires = {},                       -- e.g. {"z_base >= 2.0"}: loaded first, `require "z_base"` gives its API
  options = {limit = 100, marker = "-"}, -- defaults; flux.configure("notes", {limit = 10}) in init.lua sets them
  health = "check",                    -- the function of the API below that :health calls
}
