-- Tree-sitter support for `.rules` buffers: highlighting with the `rules` parser and this
-- plugin's queries/rules/*.scm, and building that parser from the grammar's sources.
--
-- Neovim loads a parser from `parser/<lang>.so` on the runtimepath and queries from
-- `queries/<lang>/*.scm`. Highlighting needs only highlights.scm: Neovim's own highlighter
-- (0.7 and later) reads no locals.scm.
local M = {}

local LANG = 'rules'

-- This plugin's root: this file is lua/rulelens/treesitter.lua below it.
local function plugin_root()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(source, ':p:h:h:h')
end

local function buffer(buf)
  if buf == nil or buf == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return buf
end

-- Starts tree-sitter highlighting of `buf` when the parser is available; returns whether
-- it did. Leaves a buffer that already has a tree-sitter highlighter (nvim-treesitter's)
-- alone. `vim.g.rulelens_treesitter = false` turns it off.
function M.start(buf)
  buf = buffer(buf)
  if vim.g.rulelens_treesitter == false or vim.g.rulelens_treesitter == 0 then
    return false
  end
  local highlighter = require('vim.treesitter.highlighter')
  if highlighter.active[buf] then
    return true
  end
  -- Raises (0.7 to 0.11) or returns nil (later) when no parser is on the runtimepath.
  local ok, parser = pcall(vim.treesitter.get_parser, buf, LANG)
  if not ok or not parser then
    return false
  end
  -- Set before the syntax autocommand runs (it runs after ftplugins): syntax/rules.vim
  -- then defines nothing, so regex highlighting does not mix with tree-sitter's.
  vim.api.nvim_buf_set_var(buf, 'rulelens_treesitter', 1)
  if vim.treesitter.start then
    vim.treesitter.start(buf, LANG)
  else
    -- 0.7: the highlighter itself (it also clears 'syntax').
    highlighter.new(parser)
  end
  return true
end

-- Stops the highlighting `start` began (when the filetype changes).
function M.stop(buf)
  buf = buffer(buf)
  if not pcall(vim.api.nvim_buf_get_var, buf, 'rulelens_treesitter') then
    return
  end
  vim.api.nvim_buf_del_var(buf, 'rulelens_treesitter')
  if vim.treesitter.stop then
    vim.treesitter.stop(buf)
  else
    local active = require('vim.treesitter.highlighter').active[buf]
    if active then
      active:destroy()
    end
  end
end

-- Compiles the parser with the system C compiler into `<dir>/parser/rules.so`.
--
-- opts.source: the grammar's `src/` (default: grammars/tree-sitter-rules/src of the
--   repository this plugin is in, two folders up);
-- opts.dir: a folder on the runtimepath (default: this plugin's root);
-- opts.cc: the compiler (default `$CC`, else `cc`).
--
-- Returns the library's path, or nil and a message.
function M.build(opts)
  opts = opts or {}
  local root = plugin_root()
  local source = opts.source
    or vim.fn.fnamemodify(root .. '/../../grammars/tree-sitter-rules/src', ':p')
  source = source:gsub('/+$', '')
  if vim.fn.filereadable(source .. '/parser.c') == 0 then
    return nil, 'no parser.c in ' .. source
  end
  local cc = opts.cc or vim.env.CC or 'cc'
  if cc == '' or vim.fn.executable(cc) == 0 then
    return nil, 'no C compiler `' .. cc .. '` (set $CC)'
  end
  local dir = (opts.dir or root):gsub('/+$', '') .. '/parser'
  vim.fn.mkdir(dir, 'p')
  local target = dir .. '/' .. LANG .. '.so'
  -- Compile beside the target and rename: overwriting a library that a running Neovim has
  -- loaded would crash it.
  local partial = target .. '.tmp'
  local cmd = {
    cc,
    '-shared',
    '-fPIC',
    '-O2',
    '-I',
    source,
    '-o',
    partial,
    source .. '/parser.c',
    source .. '/scanner.c',
  }
  local output = vim.fn.system(cmd)
  if vim.v.shell_error ~= 0 then
    os.remove(partial)
    return nil, table.concat(cmd, ' ') .. ' failed:\n' .. output
  end
  local ok, err = os.rename(partial, target)
  if not ok then
    return nil, err
  end
  return target
end

return M
