-- rulelens commands. The server starts from require('rulelens').setup{}; these send its
-- custom requests for the current buffer.
if vim.g.loaded_rulelens then
  return
end
vim.g.loaded_rulelens = 1

local command = vim.api.nvim_create_user_command

command('RulelensTrain', function(args)
  require('rulelens').train({ full = args.bang })
end, {
  bang = true,
  desc = 'rulelens: train the network of this rules file (or of the rules binding this corpus); with !, from scratch',
})

command('RulelensSuggest', function()
  require('rulelens').suggest()
end, { desc = 'rulelens: pick one of the suggested edits of the rules (with its evidence) and apply it' })

command('RulelensAutomaton', function(args)
  require('rulelens').automaton({ pattern = args.args, all = args.bang })
end, {
  nargs = '?',
  bang = true,
  desc = 'rulelens: show the minimal DFA of a pattern (by name, else under the cursor; ! for all) as DOT',
})

command('RulelensReport', function(args)
  require('rulelens').report({ out = args.args })
end, {
  nargs = '?',
  complete = 'file',
  desc = 'rulelens: write the HTML report of this rules file (to FILE, else the cache folder) and open it',
})

command('RulelensBuildParser', function()
  local path, err = require('rulelens.treesitter').build()
  if path then
    vim.notify('rulelens: built ' .. path .. ' (`:edit` open .rules buffers to use it)')
  else
    vim.notify('rulelens: ' .. err, vim.log.levels.ERROR)
  end
end, { desc = 'rulelens: compile the tree-sitter parser into parser/rules.so' })
