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
  -- (section "grounded"): docs, debounceMs, dryRun = { enabled, budgetMs, idleMs }.
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

function M.setup(user)
  local opts = vim.tbl_deep_extend("force", defaults, user or {})
  local group = vim.api.nvim_create_augroup("grounded_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = opts.filetypes,
    callback = function(args)
      attach(opts, args.buf)
    end,
  })
end

return M
