-- End-to-end test of the plugin against `rulelens serve`, run by test.sh in a headless
-- Neovim started with test/minimal_init.lua, in a copy of examples/sms.
--
-- Each step waits with vim.wait under one overall deadline; the first failing step ends
-- the run. Neovim exits 0 when every step passed and 1 otherwise, whatever happens: every
-- step runs under xpcall, and a failure leaves through `:cquit 1` (os.exit(1) if that
-- does not end it).

local dir = os.getenv('RULELENS_TEST_DIR')
local deadline_s = tonumber(os.getenv('RULELENS_TEST_DEADLINE') or '') or 300
local uv = vim.uv or vim.loop
local started = uv.hrtime()
local sms = dir .. '/sms'
local rulelens = require('rulelens')
local record = _G.rulelens_test

-- 0-based positions in examples/sms/sms.rules, as in tests/lsp/test_server.py.
local PATTERN_LINE = 17 -- spam: $* won $* cash $* prize $*
local REGEX_COLUMN = 6 -- where the regex starts
local PATTERN_COLUMN = 12 -- inside it

local function say(line)
  io.stdout:write(line .. '\n')
  io.stdout:flush()
end

local function elapsed()
  return (uv.hrtime() - started) / 1e9
end

local function fail(message)
  error(message, 0)
end

local function check(condition, message)
  if not condition then
    fail(message)
  end
end

-- Waits until `condition()` returns a truthy value and returns it; fails at the deadline.
local function wait_for(what, condition, interval)
  local value
  local remaining = math.floor((deadline_s - elapsed()) * 1000)
  local ok = remaining > 0
    and vim.wait(remaining, function()
      value = condition()
      return value and true or false
    end, interval or 50)
  if not ok then
    fail(string.format('timed out after %.0f s waiting for %s', elapsed(), what))
  end
  return value
end

local function diagnostics_with(buf, code)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == code then
      table.insert(found, d)
    end
  end
  return found
end

local function published_for(uri)
  for i = #record.published, 1, -1 do
    if record.published[i].uri == uri then
      return record.published[i]
    end
  end
  return nil
end

-- The hover text at a 0-based position of `buf`, or nil.
local function hover(buf, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }
  local timeout = math.max(1, math.min(10000, math.floor((deadline_s - elapsed()) * 1000)))
  local answers = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, timeout)
  for _, answer in pairs(answers or {}) do
    local result = answer.result
    if type(result) == 'table' and result.contents then
      local contents = result.contents
      if type(contents) == 'table' and contents.value then
        return contents.value
      elseif type(contents) == 'string' then
        return contents
      end
    end
  end
  return nil
end

-- Asks for the hover every half second until it contains `needle`; returns the text.
-- (Not through wait_for: buf_request_sync waits itself, and a vim.wait inside the
-- condition of another does not end at the outer one's timeout.)
local function hover_containing(what, buf, line, character, needle)
  local last
  while true do
    last = hover(buf, line, character)
    if last and last:find(needle, 1, true) then
      return last
    end
    if elapsed() >= deadline_s then
      fail(string.format('timed out after %.0f s waiting for %s; last hover:\n%s', elapsed(), what, tostring(last)))
    end
    vim.wait(500)
  end
end

-- Tree-sitter captures (name -> true) of the `highlights` query at a 0-based position.
local function captures_at(buf, row, col)
  local query_module = vim.treesitter.query
  local query = query_module.get and query_module.get('rules', 'highlights')
    or query_module.get_query('rules', 'highlights')
  check(query, 'no highlights query for rules on the runtimepath')
  local tree = vim.treesitter.get_parser(buf, 'rules'):parse()[1]
  local names = {}
  for id, node in query:iter_captures(tree:root(), buf, row, row + 1) do
    local start_row, start_col, end_row, end_col = node:range()
    if start_row <= row and row <= end_row and start_col <= col and col < end_col then
      names[query.captures[id]] = true
    end
  end
  return names
end

local function syntax_at(line, col)
  local stack = vim.fn.synstack(line, col)
  return stack[#stack] and vim.fn.synIDattr(stack[#stack], 'name') or ''
end

local state = {}

local steps = {
  {
    'minimal_init.lua ran',
    function()
      check(record, 'minimal_init.lua did not run')
      check(not record.init_error, 'minimal_init.lua failed: ' .. tostring(record.init_error))
    end,
  },
  {
    'regex syntax highlights a rules buffer when there is no parser',
    function()
      vim.cmd('enew')
      local buf = vim.api.nvim_get_current_buf()
      vim.bo[buf].buftype = 'nofile'
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'default ham  # a comment' })
      vim.bo[buf].filetype = 'rules'
      check(vim.b.rulelens_treesitter == nil, 'tree-sitter started without a parser')
      check(vim.b.current_syntax == 'rules', 'syntax/rules.vim not loaded: ' .. tostring(vim.b.current_syntax))
      check(syntax_at(1, 1) == 'rulesKeyword', 'no rulesKeyword at `default`: ' .. syntax_at(1, 1))
      check(syntax_at(1, 9) == 'rulesDefaultLabel', 'no rulesDefaultLabel at `ham`: ' .. syntax_at(1, 9))
      check(syntax_at(1, 14) == 'rulesComment', 'no rulesComment at `#`: ' .. syntax_at(1, 14))
      vim.cmd('bwipeout!')
    end,
  },
  {
    'the tree-sitter parser builds with the C compiler',
    function()
      local path, err = require('rulelens.treesitter').build({ dir = dir .. '/site' })
      check(path, 'build failed: ' .. tostring(err))
      check(#vim.api.nvim_get_runtime_file('parser/rules.so', true) > 0, 'parser/rules.so not on the runtimepath')
    end,
  },
  {
    'sms.rules opens as filetype rules with tree-sitter highlighting',
    function()
      vim.cmd('edit ' .. vim.fn.fnameescape(sms .. '/sms.rules'))
      state.rules = vim.api.nvim_get_current_buf()
      state.original = vim.api.nvim_buf_get_lines(state.rules, PATTERN_LINE, PATTERN_LINE + 1, false)[1]
      check(vim.bo.filetype == 'rules', 'filetype is ' .. vim.bo.filetype)
      check(vim.bo.commentstring == '# %s', 'commentstring is ' .. vim.bo.commentstring)
      check(vim.b.rulelens_treesitter == 1, 'tree-sitter highlighting did not start')
      check(require('vim.treesitter.highlighter').active[state.rules], 'no active tree-sitter highlighter')
      check(vim.b.current_syntax == nil, 'regex syntax loaded on top of tree-sitter')
      -- Line 11 is `default ham`, line 17 `spam: $* won ...`.
      check(captures_at(state.rules, 10, 0).keyword, '`default` is not captured as @keyword')
      check(captures_at(state.rules, 10, 8).type, '`ham` is not captured as @type')
      check(captures_at(state.rules, PATTERN_LINE, 9).string, '`won` is not captured as @string')
    end,
  },
  {
    'the client attaches and publishes diagnostics without errors',
    function()
      local client = wait_for('the rulelens client to attach and initialize', function()
        local client = rulelens.client(state.rules)
        return client and client.initialized and client
      end)
      local pid = client.rpc and client.rpc.pid
      if pid then
        vim.fn.writefile({ tostring(pid) }, dir .. '/server.pid')
      end
      local uri = vim.uri_from_bufnr(state.rules)
      wait_for('diagnostics of sms.rules', function()
        return published_for(uri)
      end)
      local errors = vim.diagnostic.get(state.rules, { severity = vim.diagnostic.severity.ERROR })
      check(#errors == 0, 'errors in sms.rules: ' .. vim.inspect(errors))
    end,
  },
  {
    'a bad edit gets E0106 at the start of the regex',
    function()
      vim.api.nvim_buf_set_text(state.rules, PATTERN_LINE, REGEX_COLUMN, PATTERN_LINE, REGEX_COLUMN, { '( ' })
      local found = wait_for('an E0106 diagnostic', function()
        local found = diagnostics_with(state.rules, 'E0106')
        return #found > 0 and found
      end)
      check(#found == 1, 'expected one E0106, got ' .. vim.inspect(found))
      local d = found[1]
      check(d.severity == vim.diagnostic.severity.ERROR, 'E0106 is not an error: ' .. vim.inspect(d))
      check(
        d.lnum == PATTERN_LINE and d.col == REGEX_COLUMN,
        string.format('E0106 at %d:%d, expected %d:%d', d.lnum, d.col, PATTERN_LINE, REGEX_COLUMN)
      )
    end,
  },
  {
    'undoing the edit clears E0106',
    function()
      vim.cmd('silent undo')
      local line = vim.api.nvim_buf_get_lines(state.rules, PATTERN_LINE, PATTERN_LINE + 1, false)[1]
      check(line == state.original, 'undo left: ' .. line)
      wait_for('E0106 to go away', function()
        return #diagnostics_with(state.rules, 'E0106') == 0
      end)
      vim.cmd('silent write')
    end,
  },
  {
    'hover on a pattern shows its table',
    function()
      local text = hover_containing('a pattern hover with corpus figures', state.rules, PATTERN_LINE, PATTERN_COLUMN, '| train |')
      check(text:find('DFA state', 1, true), 'no DFA states in the hover:\n' .. text)
    end,
  },
  {
    'train.tsv attaches, and its hover shows the gold label and the trained network',
    function()
      vim.cmd('edit ' .. vim.fn.fnameescape(sms .. '/train.tsv'))
      local buf = vim.api.nvim_get_current_buf()
      wait_for('the client to attach to train.tsv', function()
        local client = rulelens.client(buf)
        return client and rulelens.client(state.rules) and client.id == rulelens.client(state.rules).id
      end)
      local spam
      for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
        if line:sub(1, 5) == 'spam\t' then
          spam = i - 1
          break
        end
      end
      check(spam, 'no spam line in train.tsv')
      local text = hover_containing('a trained network (**FA-RNN** in a corpus hover)', buf, spam, 10, '**FA-RNN**')
      check(text:find('gold **spam**', 1, true), 'no gold label in the hover:\n' .. text)
      check(record.progress_ended > 0, 'training ended without a $/progress end')
    end,
  },
  {
    ':RulelensAutomaton opens the DFA of the pattern under the cursor as DOT',
    function()
      vim.cmd('buffer ' .. state.rules)
      vim.api.nvim_win_set_cursor(0, { PATTERN_LINE + 1, PATTERN_COLUMN })
      vim.cmd('RulelensAutomaton')
      local buf = wait_for('the automaton buffer', function()
        local buf = vim.api.nvim_get_current_buf()
        return buf ~= state.rules and vim.bo[buf].filetype == 'dot' and buf
      end)
      local first = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or ''
      check(first:match('^digraph'), 'the automaton buffer starts with: ' .. first)
      check(vim.bo[buf].buftype == 'nofile', 'the automaton buffer is not a scratch buffer')
      vim.cmd('close')
    end,
  },
  {
    ':RulelensReport writes the report and opens it with the system opener',
    function()
      vim.cmd('buffer ' .. state.rules)
      local opened
      local open = rulelens.open
      rulelens.open = function(path)
        rulelens.open = open
        opened = path
      end
      local out = dir .. '/report.html'
      vim.cmd('RulelensReport ' .. vim.fn.fnameescape(out))
      wait_for('the report opened', function()
        return opened
      end)
      check(opened == out, 'opened ' .. tostring(opened) .. ', not ' .. out)
      local page = table.concat(vim.fn.readfile(out), '\n')
      check(page:find('<!DOCTYPE html>', 1, true) == 1, 'not an HTML page: ' .. page:sub(1, 80))
      check(page:find('id="rules-table"', 1, true), 'no rules table in the report')
    end,
  },
  {
    ':RulelensSuggest lists the suggestions with their evidence and applies the one picked',
    function()
      vim.cmd('buffer ' .. state.rules)
      local offered
      local select = vim.ui.select
      vim.ui.select = function(items, _, on_choice)
        vim.ui.select = select
        offered = items
        on_choice(items[1], 1)
      end
      local before = table.concat(vim.api.nvim_buf_get_lines(state.rules, 0, -1, false), '\n')
      vim.cmd('RulelensSuggest')
      wait_for('the picked suggestion applied', function()
        return table.concat(vim.api.nvim_buf_get_lines(state.rules, 0, -1, false), '\n') ~= before
      end)
      local title = offered[1].action.title
      check(title:find('train line', 1, true) and title:find('dev ', 1, true), 'no evidence in: ' .. title)
      local rule = title:match('^Add rule `([^`]+)`')
      if rule then
        local lines = vim.api.nvim_buf_get_lines(state.rules, 0, -1, false)
        check(vim.tbl_contains(lines, rule), 'the rule is not in the buffer: ' .. rule)
      end
    end,
  },
  {
    ':RulelensTrain starts training',
    function()
      vim.cmd('buffer ' .. state.rules)
      vim.cmd('RulelensTrain')
      wait_for('the answer to rulelens/train', function()
        for _, note in ipairs(record.notes) do
          if note:find('training', 1, true) then
            return true
          end
        end
      end)
    end,
  },
  {
    'no deprecated Neovim API was called',
    function()
      check(#record.deprecated == 0, 'deprecated:\n' .. table.concat(record.deprecated, '\n'))
    end,
  },
}

local passed, failed = 0, 0
for _, step in ipairs(steps) do
  local name, run = step[1], step[2]
  local ok, err = xpcall(run, function(e)
    return type(e) == 'string' and e or vim.inspect(e)
  end)
  if ok then
    passed = passed + 1
    say(string.format('ok   %5.1f s  %s', elapsed(), name))
  else
    failed = failed + 1
    say(string.format('FAIL %5.1f s  %s\n     %s', elapsed(), name, tostring(err):gsub('\n', '\n     ')))
    break
  end
end
local skipped = #steps - passed - failed
say(string.format('neovim: %d passed, %d failed%s', passed, failed, skipped > 0 and (', ' .. skipped .. ' skipped') or ''))

if failed == 0 and skipped == 0 then
  vim.cmd('qall!')
end
pcall(vim.cmd, 'cquit 1')
os.exit(1)
