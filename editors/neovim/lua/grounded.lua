-- grounded for Neovim: starts `grounded serve` for JavaScript buffers.
--
-- Neovim 0.8+ uses vim.lsp.start (one client per project root, reused across buffers);
-- 0.7 (Debian 12's version) has only vim.lsp.start_client + vim.lsp.buf_attach_client,
-- so the client id is kept per root by hand.
--
-- Usage (init.lua):
--   require("grounded").setup({
--     cmd = { "grounded", "serve" },        -- or an absolute path to the binary
--     filetypes = { "javascript" },
--     settings = { debounceMs = 50, dryRun = { enabled = true, budgetMs = 2000 } },
--   })

local M = {}

local defaults = {
  cmd = { "grounded", "serve" },
  filetypes = { "javascript", "javascriptreact" },
  root_markers = { "grounded.toml", ".git" },
  -- Sent as initializationOptions and answered to workspace/configuration
  -- (section "grounded"): docs, debounceMs, dryRun = { enabled, budgetMs, idleMs },
  -- agent = { baseUrl, model, apiKeyEnv, allowValidate, transcript }.
  settings = {},
}

local function find_root(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = (name ~= "" and vim.fn.fnamemodify(name, ":p:h")) or vim.loop.cwd()
  for _, marker in ipairs(markers) do
    local found = vim.fn.findfile(marker, dir .. ";")
    if found == "" then
      found = vim.fn.finddir(marker, dir .. ";")
    end
    if found ~= "" then
      return vim.fn.fnamemodify(found, ":p:h"):gsub("/%.git/?$", "")
    end
  end
  return dir
end

-- The end of an agent turn (grounded/agentFinished): the answer in a scratch buffer
-- of its own, "grounded://agent", opened in a split, and a one-line summary. The
-- server's showMessage says only the status; the answer is what the user asked for.
function M.show_finished(p)
  local changed = (p.changed and #p.changed > 0) and table.concat(p.changed, ", ") or "none"
  local lines = { "grounded agent: " .. (p.status or "finished") .. " (turn " .. tostring(p.turn) .. ")", "" }
  for line in ((p.answer or "") .. "\n"):gmatch("(.-)\n") do
    table.insert(lines, line)
  end
  vim.list_extend(lines, { "", "why it ended: " .. (p.reason or ""), "files changed: " .. changed })
  if p.transcript then
    table.insert(lines, "transcript: " .. p.transcript)
  end
  local buf = M.answer_buf
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, "grounded://agent")
    vim.api.nvim_buf_set_option(buf, "filetype", "markdown")
    M.answer_buf = buf
  end
  vim.api.nvim_buf_set_option(buf, "modifiable", true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, "modifiable", false)
  if vim.fn.bufwinnr(buf) == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
    vim.cmd("wincmd p")
  end
  local level = p.status == "done" and vim.log.levels.INFO or vim.log.levels.WARN
  vim.notify("grounded agent: " .. (p.status or "finished") .. "; changed: " .. changed, level)
end

local function config_for(opts, root)
  return {
    name = "grounded",
    cmd = opts.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = opts.settings,
    settings = { grounded = opts.settings },
    handlers = {
      -- Answer workspace/configuration from opts.settings on every version.
      ["workspace/configuration"] = function(_, params)
        local out = {}
        for i, _ in ipairs(params.items or {}) do
          out[i] = opts.settings
        end
        return out
      end,
      ["grounded/agentFinished"] = function(_, params)
        vim.schedule(function()
          M.show_finished(params or {})
        end)
      end,
    },
  }
end

local clients_07 = {}

local function attach(opts, bufnr)
  local root = find_root(bufnr, opts.root_markers)
  if vim.lsp.start then
    vim.lsp.start(config_for(opts, root), { bufnr = bufnr })
    return
  end
  -- Neovim 0.7: start one client per root, attach each buffer to it.
  local id = clients_07[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(config_for(opts, root))
    clients_07[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

-- :GroundedAsk {request}: sends the request with the buffer and the selection (the
-- range given to the command, or the cursor line) to grounded.askAgent. The server
-- answers at once; edits arrive as workspace edits, the end (status and the answer)
-- in the "grounded://agent" buffer (M.show_finished).
local function grounded_client(bufnr)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, c in ipairs(get({ bufnr = bufnr })) do
    if c.name == "grounded" then
      return c
    end
  end
end

function M.ask(request, line1, line2)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = grounded_client(bufnr)
  if not client then
    vim.notify("grounded: no grounded server for this buffer", vim.log.levels.WARN)
    return
  end
  local arg = {
    request = request,
    uri = vim.uri_from_bufnr(bufnr),
    range = {
      start = { line = line1 - 1, character = 0 },
      ["end"] = { line = line2, character = 0 },
    },
  }
  client.request("workspace/executeCommand", { command = "grounded.askAgent", arguments = { arg } },
    function(err, result)
      if err then
        vim.notify("grounded agent: " .. (err.message or tostring(err)), vim.log.levels.ERROR)
      elseif result and result.turn then
        M.last_turn = result.turn
        vim.notify("grounded agent: turn " .. result.turn .. " started", vim.log.levels.INFO)
      end
    end, bufnr)
end

function M.cancel()
  local client = grounded_client(vim.api.nvim_get_current_buf())
  if client then
    client.request("workspace/executeCommand", {
      command = "grounded.cancelAgent",
      arguments = M.last_turn and { { turn = M.last_turn } } or {},
    }, function() end)
  end
end

function M.setup(user)
  local opts = vim.tbl_deep_extend("force", defaults, user or {})
  local group = vim.api.nvim_create_augroup("grounded_lsp", { clear = true })
  vim.api.nvim_create_user_command("GroundedAsk", function(c)
    M.ask(c.args, c.line1, c.line2)
  end, { nargs = "+", range = true, desc = "Ask the grounded agent" })
  vim.api.nvim_create_user_command("GroundedCancel", M.cancel, { desc = "Cancel the grounded agent's turn" })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = opts.filetypes,
    callback = function(args)
      attach(opts, args.buf)
    end,
  })
end

return M
