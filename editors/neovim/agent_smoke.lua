-- A headless test of the agent's answer in Neovim, against a real `grounded serve` and a
-- model endpoint given in GROUNDED_MODEL_URL (tests/editor/editor_neovim_agent.rs starts a
-- scripted one). Opens main.js, runs :GroundedAsk, and waits for the turn's answer in
-- the grounded://agent buffer. Prints each step; exits 0 on success, 1 on failure.

vim.cmd("filetype on")
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)")
vim.opt.runtimepath:append(here)
local bin = os.getenv("GROUNDED_BIN") or "grounded"
local grounded = require("grounded")
grounded.setup({
  cmd = { bin, "serve" },
  settings = {
    debounceMs = 0,
    dryRun = { enabled = false },
    agent = { baseUrl = os.getenv("GROUNDED_MODEL_URL"), model = "scripted" },
  },
})

local function fail(msg)
  print("FAIL: " .. msg)
  vim.cmd("cquit 1")
end

vim.cmd("edit main.js")
local function attached()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, c in ipairs(get({ bufnr = 0 })) do
    if c.name == "grounded" and c.initialized then return true end
  end
  return false
end
if not vim.wait(15000, attached, 50) then fail("no grounded client") end
print("attached")
vim.cmd("GroundedAsk what does main.js lay out?")
local function shown()
  local b = grounded.answer_buf
  if not (b and vim.api.nvim_buf_is_valid(b)) then return false end
  return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n"):find("lays out one table", 1, true) ~= nil
end
if not vim.wait(30000, shown, 50) then fail("no answer buffer") end
local lines = vim.api.nvim_buf_get_lines(grounded.answer_buf, 0, -1, false)
for _, l in ipairs(lines) do print("answer buffer: " .. l) end
print("buffer name: " .. vim.api.nvim_buf_get_name(grounded.answer_buf))
print("windows: " .. #vim.api.nvim_list_wins())
vim.cmd("qa!")
