-- The notes plugin (examples/plugins/notes): a manifest, options, a command and a health check.
--
-- Shows: setting a plugin's options before it loads (what the user's init.lua does), loading it,
-- running its `:note` command, reading its API with require, and its health check.

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

-- Options are checked against the manifest: a key it does not declare, or a value of another type, is refused.
flux.configure("notes", {limit = 2, marker = "*"})
flux.exec(":load " .. here .. "plugins/notes")
expect(flux.options("notes"), {limit = 2, marker = "*"}, "options as set")
expect_error(function() flux.configure("notes", {limt = 3}) end, "plugin notes has no option 'limt'")
expect_error(function() flux.configure("notes", {limit = "many"}) end, "option 'limit' of plugin notes must be a number")

-- The command, as typed at the prompt.
flux.exec(":note add buy milk")
flux.exec(":note add call Ann")
expect(flux.state("notes").items, {"buy milk", "call Ann"}, "two notes")
expect_error(function() flux.exec(":note add a third") end, "the limit of 2 notes is reached")
expect_error(function() flux.exec(":note frobnicate") end, "unknown subcommand 'frobnicate'")

-- The API its init.lua returns.
local notes = require "notes"
expect(notes.count(), 2, "count")
expect(notes.list(), "* 1. buy milk\n* 2. call Ann", "list")
expect(notes.check()[2].status, "warning", "a full list is a warning")

flux.exec(":note drop 1")
expect(flux.state("notes").items, {"call Ann"}, "after drop")
expect(#notes.check(), 1, "healthy again")

-- Unloaded, the command goes with it.
flux.exec(":unload notes")
expect_error(function() flux.exec(":note list") end, "unknown command ':note'")
