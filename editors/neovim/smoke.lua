-- A headless smoke test of grounded.lua against a real `grounded serve` (Neovim 0.7+).
--
--   cd examples/demo
--   GROUNDED_BIN=../../target/debug/grounded nvim --headless -u ../../editors/neovim/smoke.lua
--
-- Opens mistakes/member.js, waits for the `member` diagnostic, asks for hover, applies
-- the *Delete* quick fix and waits for the diagnostic to go away. Prints each step and
-- exits 0 on success, 1 on failure.

vim.cmd("filetype on")
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)")
vim.opt.runtimepath:append(here)
local bin = os.getenv("GROUNDED_BIN") or "grounded"
require("grounded").setup({ cmd = { bin, "serve" }, settings = { debounceMs = 0, dryRun = { enabled = false } } })

local function fail(msg)
  print("FAIL: " .. msg)
  vim.cmd("cquit 1")
end

vim.cmd("edit mistakes/member.js")
if not vim.wait(15000, function() return #vim.diagnostic.get(0) > 0 end, 50) then
  fail("no diagnostics")
end
local d = vim.diagnostic.get(0)[1]
print(string.format("diagnostic %d:%d %s", d.lnum + 1, d.col + 1, d.message:sub(1, 60)))

local doc = vim.lsp.util.make_text_document_params()
local hover = vim.lsp.buf_request_sync(0, "textDocument/hover",
  { textDocument = doc, position = { line = 4, character = 10 } }, 5000)
local shown = false
for _, r in pairs(hover or {}) do
  if r.result and r.result.contents.value:find("tableStart") then shown = true end
end
if not shown then fail("no hover") end
print("hover ok")

local actions = vim.lsp.buf_request_sync(0, "textDocument/codeAction", {
  textDocument = doc,
  range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.lnum, character = d.col } },
  context = { diagnostics = {} },
}, 5000)
local applied = false
for _, r in pairs(actions or {}) do
  for _, a in ipairs(r.result or {}) do
    print("action: " .. a.title:sub(1, 60))
    if not applied and a.title:match("^Delete") then
      vim.lsp.util.apply_workspace_edit(a.edit, "utf-16")
      applied = true
    end
  end
end
if not applied then fail("no Delete action") end
if not vim.wait(10000, function() return #vim.diagnostic.get(0) == 0 end, 50) then
  fail("diagnostic still there after the fix")
end
print("fixed: no diagnostics left")
vim.cmd("qa!")
