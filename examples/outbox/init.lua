-- The issue store, synced through an outbox to a receiver: the seed's offline-first step 4.
--
-- Every committed change to an issue is queued in the outbox `issues-sync` (durably, with the session's
-- journal) and handed to `receive.sh`, a file drop standing in for a server: one entry at a time, in
-- order; "not now" makes the outbox wait and try again; a refusal dispatches `sync.refused`, and the
-- listener below closes the issue the receiver refused, so the list never shows what the world refused.
--
-- fluxsh --plugins examples/outbox --session issues          (ISSUES_INBOX names the inbox folder)

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local inbox = os.getenv("ISSUES_INBOX") or "issues-inbox"

-- What the receiver refused, for a view or a test to show.
flux.store{name = "sync", state = {refused = {}}, on = {
  ["sync.refused"] = function(s, a)
    s.refused[#s.refused + 1] = {id = a.entry.id, action = a.entry.action, title = a.entry.payload.title, reason = a.reason}
    return s
  end,
}}

flux.outbox{
  name = "issues-sync",
  actions = {"issues.create", "issues.edit", "issues.assign", "issues.close", "issues.reopen"},
  rejected = "sync.refused",
  retry = {first_ms = 500, max_ms = 30000},
  send = function(entry, reply)
    local said = {}
    flux.spawn({"sh", here .. "receive.sh", inbox, tostring(entry.id), entry.action, entry.json}, {
      on_line = function(line) said[#said + 1] = line end,
      on_exit = function(code)
        if code == 0 then reply("ok")
        elseif code == 65 then reply("reject", table.concat(said, " "))
        else reply("retry", said[1] or ("exit " .. tostring(code))) end
      end,
    })
  end,
}

-- The compensation: an issue whose creation was refused is closed (journalled, undoable).
flux.on("sync.refused", function(action)
  if action.entry.action ~= "issues.create" then return end
  for _, issue in ipairs(flux.state("issues").allIssues) do
    if issue.title == action.entry.payload.title and issue.status == "open" then
      flux.dispatch("issues.close", {id = issue.id})
      return
    end
  end
end)
