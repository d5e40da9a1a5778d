-- Minimal init for test.sh: this plugin on the runtimepath (with a folder for the parser
-- the test builds), the server from $RULELENS_TEST_SERVER, training kept short, and a
-- record of what the server publishes and of the deprecated APIs called.
local plugin = assert(os.getenv('RULELENS_TEST_PLUGIN'), 'RULELENS_TEST_PLUGIN is not set')
local dir = assert(os.getenv('RULELENS_TEST_DIR'), 'RULELENS_TEST_DIR is not set')
local server = assert(os.getenv('RULELENS_TEST_SERVER'), 'RULELENS_TEST_SERVER is not set')

vim.opt.runtimepath:prepend(plugin)
vim.opt.runtimepath:append(dir .. '/site')
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'

-- What the server sent, for the test to wait on.
_G.rulelens_test = { published = {}, progress_ended = 0, notes = {} }

local function record(method, on_params)
  local original = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    if result then
      on_params(result)
    end
    if original then
      return original(err, result, ctx, config)
    end
  end
end

record('textDocument/publishDiagnostics', function(params)
  table.insert(_G.rulelens_test.published, params)
end)
record('$/progress', function(params)
  if type(params.value) == 'table' and params.value.kind == 'end' then
    _G.rulelens_test.progress_ended = _G.rulelens_test.progress_ended + 1
  end
end)

-- Every deprecated API the plugin (or the test) calls, which Neovim reports through
-- vim.deprecate (soft deprecations only to :checkhealth vim.deprecated).
_G.rulelens_test.deprecated = {}
local deprecate = vim.deprecate
vim.deprecate = function(name, alternative, version, plugin, backtrace)
  table.insert(_G.rulelens_test.deprecated, string.format('%s (use %s; removed in %s)\n%s', name,
    tostring(alternative), tostring(version), debug.traceback('', 2)))
  return deprecate(name, alternative, version, plugin, backtrace)
end

local notify = vim.notify
vim.notify = function(message, level, opts)
  table.insert(_G.rulelens_test.notes, message)
  return notify(message, level, opts)
end

local ok, err = pcall(require('rulelens').setup, {
  cmd = { server, 'serve' },
  settings = {
    training = { enabled = true, epochs = 2, patience = 1, modelCache = dir .. '/cache' },
  },
})
_G.rulelens_test.init_error = not ok and err or nil
