-- rulelens for Neovim: starts `rulelens serve` for `.rules` buffers and for the corpus
-- buffers (`*.tsv`, `*.jsonl`) beside them, and binds the server's custom requests
-- (`rulelens/train`, `rulelens/showAutomaton`, `rulelens/suggest`, see src/lsp/ext.rs) to
-- commands.
--
--   require('rulelens').setup {
--     cmd = { 'rulelens', 'serve' },
--     settings = { training = { epochs = 5 }, minPrecision = 0.6 },  -- ServerOptions
--     root_markers = { '.git' },
--   }
--
-- The client is started with `vim.lsp.config` + `vim.lsp.enable` on Neovim 0.11 and
-- later, `vim.lsp.start` on 0.8 to 0.10, and `vim.lsp.start_client` +
-- `vim.lsp.buf_attach_client` on 0.7.
local M = {}

local NAME = 'rulelens'
local CORPUS_PATTERNS = { '*.tsv', '*.jsonl' }

local function has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

local defaults = {
  -- The server command.
  cmd = { 'rulelens', 'serve' },
  -- The server's settings (`ServerOptions` of src/lsp/config.rs, camelCase): sent as
  -- initializationOptions and as the `rulelens` section of the configuration.
  settings = {},
  -- Files or folders that mark a workspace root; without one, the folder of the file.
  root_markers = { '.git' },
  -- Passed to the client as they are.
  on_attach = nil,
  capabilities = nil,
  handlers = nil,
}

M.options = vim.deepcopy(defaults)

local function notify(message, level)
  vim.notify('rulelens: ' .. message, level or vim.log.levels.INFO)
end

-- Paths --------------------------------------------------------------------------------

local function buffer_path(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return vim.fn.fnamemodify(name, ':p')
end

local function dirname(path)
  return vim.fn.fnamemodify(path, ':h')
end

local function exists(path)
  return (vim.uv or vim.loop).fs_stat(path) ~= nil
end

-- Whether `path` is `dir` or below it.
local function inside(path, dir)
  dir = dir:gsub('/+$', '')
  return path == dir or path:sub(1, #dir + 1) == dir .. '/'
end

-- The nearest folder at or above `dir` holding a root marker.
local function marked_root(dir)
  while true do
    for _, marker in ipairs(M.options.root_markers or {}) do
      if exists(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = dirname(dir)
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

-- The workspace root of a rules file.
local function rules_root(path)
  local dir = dirname(path)
  return marked_root(dir) or dir
end

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = NAME })
  end
  local found = {}
  for _, client in pairs(vim.lsp.get_active_clients()) do
    if client.name == NAME then
      table.insert(found, client)
    end
  end
  return found
end

local function is_stopped(client)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

-- The workspace root of a corpus file: that of a running client whose root holds it, else
-- that of a rules file in its folder or the folder above (where the server looks for the
-- rules that bind it); nil when there is none, so a stray TSV starts no server.
local function corpus_root(path)
  for _, client in ipairs(all_clients()) do
    local root = client.config.root_dir
    if root and not is_stopped(client) and inside(path, root) then
      return root
    end
  end
  local dir = dirname(path)
  for _, folder in ipairs({ dir, dirname(dir) }) do
    local rules = vim.fn.glob(folder .. '/*.rules', true, true)
    if #rules > 0 then
      return rules_root(rules[1])
    end
  end
  return nil
end

local function is_corpus(path)
  return path:match('%.tsv$') ~= nil or path:match('%.jsonl$') ~= nil
end

local function root_of(buf)
  local path = buffer_path(buf)
  if not path then
    return nil
  end
  if vim.bo[buf].filetype == 'rules' or path:match('%.rules$') then
    return rules_root(path)
  end
  if is_corpus(path) then
    return corpus_root(path)
  end
  return nil
end

-- Client configuration -------------------------------------------------------------------

-- `settings`, with every empty table (which would encode as a JSON array) made a dict.
local function as_object(value)
  if type(value) ~= 'table' then
    return value
  end
  if next(value) == nil then
    return vim.empty_dict()
  end
  local copy = {}
  for key, item in pairs(value) do
    copy[key] = as_object(item)
  end
  return copy
end

local function client_config(root)
  local settings = as_object(M.options.settings or {})
  return {
    name = NAME,
    cmd = M.options.cmd,
    root_dir = root,
    init_options = settings,
    -- The answer to `workspace/configuration` for the `rulelens` section, which the
    -- server asks for after initializing (the same options: nothing changes).
    settings = { [NAME] = settings },
    on_attach = M.options.on_attach,
    capabilities = M.options.capabilities,
    handlers = M.options.handlers,
  }
end

-- Starting and attaching -------------------------------------------------------------------

-- 0.7: client ids by root.
local clients_by_root = {}

local function start_0_7(buf, config)
  local root = config.root_dir
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    config.on_exit = function()
      if clients_by_root[root] == id then
        clients_by_root[root] = nil
      end
    end
    id = vim.lsp.start_client(config)
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(buf, id)
  end
end

local warned = false

-- Whether the server command of `config` can run (a warning, once, when it cannot).
local function startable(config)
  local cmd = config.cmd
  if type(cmd) == 'table' and vim.fn.executable(cmd[1]) == 0 then
    if not warned then
      warned = true
      local where = has('0.11') and "setup{} or vim.lsp.config('" .. NAME .. "', …)" or 'setup{}'
      notify('`' .. tostring(cmd[1]) .. '` is not executable; set cmd in ' .. where, vim.log.levels.WARN)
    end
    return false
  end
  return true
end

-- Starts (or reuses) the client of `buf`'s root and attaches it to `buf`.
local function attach(buf)
  if not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= '' then
    return
  end
  local root = root_of(buf)
  if not root then
    return
  end
  local config = client_config(root)
  if has('0.11') then
    -- The configuration as vim.lsp.config resolved it (with the user's own overrides).
    config = vim.tbl_extend('force', vim.deepcopy(vim.lsp.config[NAME]), { root_dir = root })
  end
  if not startable(config) then
    return
  end
  if has('0.8') then
    vim.api.nvim_buf_call(buf, function()
      vim.lsp.start(config, { bufnr = buf })
    end)
  else
    start_0_7(buf, config)
  end
end

-- The client attached to `buf`, if any.
function M.client(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  for _, client in ipairs(all_clients()) do
    if vim.lsp.buf_is_attached(buf, client.id) then
      return client
    end
  end
  return nil
end

-- Sends `method` to the client of `buf` (default: the current buffer); `on_result(result,
-- client)` on success.
local function request(method, params, on_result, buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local client = M.client(buf)
  if not client then
    notify('no rulelens server is attached to this buffer', vim.log.levels.WARN)
    return
  end
  local function handler(err, result)
    if err then
      notify(method .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_result(result, client)
  end
  if has('0.11') then
    client:request(method, params, handler, buf)
  else
    client.request(method, params, handler, buf)
  end
end

-- Commands -------------------------------------------------------------------------------

-- `rulelens/train` for the current buffer (a rules file, or a corpus a rules file binds);
-- `opts.full` trains from scratch (no warm start from the previous network).
function M.train(opts)
  request('rulelens/train', {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    full = (opts or {}).full or false,
  }, function(result)
    local level = result.started and vim.log.levels.INFO or vim.log.levels.WARN
    notify(result.message, level)
  end)
end

-- How long :RulelensSuggest waits for the suggestions of a save being measured.
local SUGGEST_TIMEOUT_MS = 120000

-- Applies a code action's edit, resolving it first when the server left it out (it then
-- refuses an action whose document changed since it was offered).
local function apply_action(client, action, buf)
  local function apply(edit)
    vim.lsp.util.apply_workspace_edit(edit, client.offset_encoding or 'utf-16')
  end
  if action.edit then
    apply(action.edit)
    return
  end
  request('codeAction/resolve', action, function(resolved)
    if resolved and resolved.edit then
      apply(resolved.edit)
    end
  end, buf)
end

-- `rulelens/suggest`: every suggestion of the last save of the rules (of this rules buffer,
-- or of the rules binding this corpus) in vim.ui.select, best first, titled with its
-- evidence; the one picked is applied like its code action. Asks again while the save's
-- suggestions are being measured.
function M.suggest()
  local buf = vim.api.nvim_get_current_buf()
  local uv = vim.uv or vim.loop
  local deadline = uv.now() + SUGGEST_TIMEOUT_MS
  local function ask()
    request('rulelens/suggest', { textDocument = { uri = vim.uri_from_bufnr(buf) } }, function(result, client)
      if result.status == 'pending' and uv.now() < deadline then
        vim.defer_fn(ask, 500)
        return
      end
      if result.status ~= 'ready' or #result.suggestions == 0 then
        notify(result.message)
        return
      end
      vim.ui.select(result.suggestions, {
        prompt = result.message .. ': pick one to apply',
        format_item = function(item)
          return item.action.title
        end,
        kind = 'rulelens.suggestion',
      }, function(item)
        if item then
          apply_action(client, item.action, buf)
        end
      end)
    end, buf)
  end
  ask()
end

-- Opens DOT text in a scratch buffer (filetype `dot`) in a new window.
function M.show_dot(title, dot)
  vim.cmd('new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, 'rulelens://automaton/' .. title)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(dot, '\n', { plain = true }))
  vim.bo[buf].modified = false
  vim.bo[buf].filetype = 'dot'
  return buf
end

-- `rulelens/showAutomaton`: the minimal DFA of `opts.pattern` (a name), else of the
-- pattern under the cursor, or of every pattern with `opts.all`, shown as DOT.
function M.automaton(opts)
  opts = opts or {}
  local params = { textDocument = { uri = vim.uri_from_bufnr(0) } }
  if opts.pattern and opts.pattern ~= '' then
    params.pattern = opts.pattern
  elseif not opts.all then
    local client = M.client(0)
    local position = vim.lsp.util.make_position_params(0, client and client.offset_encoding or 'utf-16')
    params.position = position.position
  end
  request('rulelens/showAutomaton', params, function(result)
    local title = result.pattern
    if title == nil or title == vim.NIL then
      title = 'all'
    end
    M.show_dot(title, result.dot)
  end)
end

-- Opens `path` with the system's opener: vim.ui.open where Neovim has it (0.10+), else
-- `open` on macOS and `xdg-open` elsewhere. Replaceable (the tests replace it).
function M.open(path)
  if vim.ui.open then
    vim.ui.open(path)
    return
  end
  local opener = vim.fn.has('mac') == 1 and 'open' or 'xdg-open'
  if vim.fn.executable(opener) == 0 then
    notify('no ' .. opener .. ' to open ' .. path .. ' with', vim.log.levels.WARN)
    return
  end
  vim.fn.jobstart({ opener, path }, { detach = true })
end

-- `rulelens report` of the rules file in the current buffer, written to `opts.out` (default:
-- report-<name>.html in Neovim's cache folder's rulelens/), then opened with M.open. Runs the
-- binary of `cmd` (the server's); the rules are read from disk, so save them first.
function M.report(opts)
  opts = opts or {}
  local path = buffer_path(0)
  if not path or not path:match('%.rules$') then
    notify('`:RulelensReport` makes the report of a rules file: open one first', vim.log.levels.WARN)
    return
  end
  local cmd = M.options.cmd
  local binary = type(cmd) == 'table' and cmd[1] or 'rulelens'
  local out = opts.out
  if not out or out == '' then
    local folder = vim.fn.stdpath('cache') .. '/rulelens'
    vim.fn.mkdir(folder, 'p')
    out = folder .. '/report-' .. vim.fn.fnamemodify(path, ':t:r') .. '.html'
  end
  out = vim.fn.fnamemodify(out, ':p')
  local errors = {}
  local job = vim.fn.jobstart({ binary, 'report', path, '-o', out }, {
    cwd = dirname(path),
    stderr_buffered = true,
    on_stderr = function(_, data)
      errors = data or {}
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        if code == 0 then
          notify('wrote ' .. out)
          M.open(out)
        else
          notify('`rulelens report` failed:\n' .. table.concat(errors, '\n'), vim.log.levels.ERROR)
        end
      end)
    end,
  })
  if job <= 0 then
    notify('cannot run `' .. tostring(binary) .. '`; set cmd in require("rulelens").setup{}', vim.log.levels.ERROR)
  end
end

-- Setup ----------------------------------------------------------------------------------

local group

function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  -- Lists replace, they do not merge.
  if opts and opts.cmd then
    M.options.cmd = opts.cmd
  end
  if opts and opts.root_markers then
    M.options.root_markers = opts.root_markers
  end

  group = vim.api.nvim_create_augroup('rulelens', { clear = true })

  if has('0.11') then
    local config = client_config(nil)
    -- The root decides which buffers get the server: rules buffers, and corpus buffers
    -- with a client or a rules file near them (root_of). No `filetypes`: a corpus has any
    -- filetype (tsv, json, none), and from 0.12 on vim.lsp.enable detaches a client from
    -- every buffer whose filetype its configuration does not list, corpus buffers included.
    config.root_dir = function(buf, on_dir)
      local root = root_of(buf)
      if root then
        on_dir(root)
      end
    end
    vim.lsp.config(NAME, config)
    vim.lsp.enable(NAME)
  else
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = 'rules',
      callback = function(args)
        attach(args.buf)
      end,
    })
  end

  -- Corpus buffers, whatever their filetype.
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    pattern = CORPUS_PATTERNS,
    callback = function(args)
      attach(args.buf)
    end,
  })

  -- Buffers already open when setup runs.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and not M.client(buf) then
      local path = buffer_path(buf)
      if path and (vim.bo[buf].filetype == 'rules' or is_corpus(path)) then
        attach(buf)
      end
    end
  end
end

return M
