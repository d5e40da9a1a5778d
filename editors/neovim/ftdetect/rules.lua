-- `*.rules` files are rulelens rules.
--
-- Neovim's own detection already claims `*.rules`: udev, polkit and ufw rules by their
-- path, and everything else as `hog` (Snort rules). rulelens takes over everything but
-- those system paths. It has to win before `hog` is set, not after: hog's ftplugin sets
-- b:did_ftplugin without an undo, which would keep ftplugin/rules.lua from running.

-- Rules files that Neovim recognises by their path.
local function system_rules(path)
  return path:match('/udev/') ~= nil
    or path:match('^/etc/ufw/') ~= nil
    or path:match('/polkit%-1/rules%.d/') ~= nil
end

-- Neovim's own answer for a system rules file.
local function builtin(path, buf)
  local ok, detect = pcall(require, 'vim.filetype.detect')
  if ok and type(detect.rules) == 'function' then
    return detect.rules(path, buf)
  end
  -- 0.7: the Vim script function sets the filetype itself.
  pcall(vim.fn['dist#ft#FTRules'])
  return 0
end

-- Lua detection (the default from 0.8 on; 0.7 with g:do_filetype_lua): an added
-- extension replaces the built-in one.
if vim.filetype and vim.filetype.add then
  vim.filetype.add({
    extension = {
      rules = function(path, buf)
        if system_rules(path) then
          return builtin(path, buf)
        end
        return 'rules'
      end,
    },
  })
end

-- 0.7's filetype.vim: its `*.rules` autocommand ran `setf hog` before any ftdetect one, so
-- replace it with this one (this script runs inside the filetypedetect group).
if vim.fn.has('nvim-0.8') == 0 then
  vim.cmd('autocmd! filetypedetect BufNewFile,BufRead *.rules')
  vim.api.nvim_create_autocmd({ 'BufNewFile', 'BufRead' }, {
    group = vim.api.nvim_create_augroup('filetypedetect', { clear = false }),
    pattern = '*.rules',
    callback = function(args)
      local path = vim.fn.fnamemodify(args.file, ':p')
      if system_rules(path) then
        builtin(path, args.buf)
      else
        vim.cmd('setfiletype rules')
      end
    end,
  })
end
