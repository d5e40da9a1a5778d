-- Buffer settings for rulelens `.rules` files.
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1

vim.bo.commentstring = '# %s'
vim.bo.comments = ':#'
-- Wrap comments, never statements (a statement is one line).
vim.opt_local.formatoptions:remove('t')
vim.opt_local.formatoptions:append('croql')

vim.b.undo_ftplugin = 'setlocal commentstring< comments< formatoptions<'
  .. " | lua require('rulelens.treesitter').stop(0)"

-- Tree-sitter highlighting when the `rules` parser is on the runtimepath (`parser/rules.so`,
-- see `:RulelensBuildParser`); otherwise syntax/rules.vim highlights the buffer.
require('rulelens.treesitter').start(vim.api.nvim_get_current_buf())
