-- The costline plugin in a real (headless) Neovim, against the real server, on the shipped
-- HPF examples: every surface arrives through Neovim's own LSP client with the expected
-- text, a code action rewrites a DISTRIBUTE as it promised, an edit refreshes the hints,
-- and the plugin's commands work (:CostlineProfile builds and runs a program: gfortran).
--
--   COSTLINE_BIN=target/debug/costline nvim --headless --clean -l editors/neovim/test/editor_test.lua
--
-- Environment: COSTLINE_BIN (the server binary, required), COSTLINE_TEST_WAIT_MS (how long
-- to wait for each surface, default 60000), COSTLINE_DROP (run the server behind
-- lsp_proxy.py, which drops that surface: the negative test), COSTLINE_PYTHON (for the
-- proxy, default python3).
-- Exit status 0 when every check passes; otherwise 1, with `FAIL [surface]: ...` on stderr.

local here = vim.fs.dirname(vim.fs.abspath(debug.getinfo(1, 'S').source:sub(2)))
local plugin = vim.fs.dirname(here)
local repo = vim.fs.dirname(vim.fs.dirname(plugin))
local WAIT = tonumber(os.getenv('COSTLINE_TEST_WAIT_MS') or '') or 60000

local function log(msg)
  io.stdout:write(msg .. '\n')
  io.stdout:flush()
end

local function finish(code)
  for _, c in ipairs(vim.lsp.get_clients()) do
    c:stop(true)
  end
  io.stdout:flush()
  io.stderr:flush()
  -- :cquit (not os.exit) so that Neovim removes its temporary directory (the workspace).
  vim.cmd('cquit ' .. code)
end

local function fail(surface, msg)
  io.stderr:write(('FAIL [%s]: %s\n'):format(surface, msg))
  finish(1)
end

--- Waits until `check()` returns true; fails naming `surface` otherwise. `check` may
--- return a second value, what it saw, for the failure message.
local function wait_for(surface, what, check)
  local seen
  local ok = vim.wait(WAIT, function()
    local good, done, saw = pcall(check)
    if not good then
      seen = 'error: ' .. tostring(done)
      return false
    end
    seen = saw
    return done == true
  end, 100)
  if not ok then
    fail(surface, ('%s: not within %d ms (last seen: %s)'):format(what, WAIT, vim.inspect(seen)))
  end
  log(('ok [%s] %s'):format(surface, what))
end

local bin = os.getenv('COSTLINE_BIN')
if not bin or bin == '' then
  fail('setup', 'COSTLINE_BIN is not set (the path of the costline binary)')
end
local cmd = { bin, 'serve' }
local drop = os.getenv('COSTLINE_DROP')
if drop and drop ~= '' then
  cmd = { os.getenv('COSTLINE_PYTHON') or 'python3', vim.fs.joinpath(here, 'lsp_proxy.py'), '--drop', drop, '--', bin, 'serve' }
  log('server behind the proxy, dropping ' .. drop)
end

-- A workspace of its own: the Jacobi relaxation and its module (the program USEs the
-- module of the other file), the fixed-form red-black relaxation, the triangular update,
-- and a costline.toml (the root marker).
local ws = vim.fn.tempname() .. '-costline-nvim'
vim.fn.mkdir(ws, 'p')
for _, f in ipairs({ 'free/jacobi_hpf.f90', 'free/grid_params.f90', 'fixed/redblack.f', 'free/triangular_update.f90' }) do
  local src = vim.fs.joinpath(repo, 'tests/fixtures', f)
  if vim.fn.filereadable(src) == 0 then
    fail('setup', 'missing fixture ' .. src)
  end
  vim.fn.writefile(vim.fn.readfile(src, 'b'), vim.fs.joinpath(ws, vim.fs.basename(f)), 'b')
end
vim.fn.writefile({ '# costline settings (none: the defaults)' }, vim.fs.joinpath(ws, 'costline.toml'))

vim.opt.rtp:prepend(plugin)
local opened_plots = {}
require('costline').setup({
  cmd = cmd,
  -- Every finding, the boundary row's imbalance too (the default share of 2% hides it).
  findingShare = 0,
  -- The fixtures keep to 72 columns; the setting must still reach the server.
  fixedLineLength = 72,
  -- No compiler report in the background: one landing mid-check would re-price what a
  -- check waits for (the compiler's own word is tested by the server's tests).
  askCompiler = false,
  open = function(path)
    opened_plots[#opened_plots + 1] = path
  end,
})

if require('costline').settings().fixedLineLength ~= 72 or require('costline').settings().askCompiler ~= false then
  fail('setup', 'fixedLineLength is not sent: ' .. vim.inspect(require('costline').settings()))
end

-- Messages the server shows (window/showMessage) would be lost headless: log them.
vim.notify = function(msg, level)
  log(('notify(%s): %s'):format(tostring(level), msg))
end

--- Opens a file in a window of its own (Neovim refreshes the hints of shown buffers).
local function open(name, split)
  if split then
    vim.cmd.split()
  end
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(ws, name)))
  local buf = vim.api.nvim_get_current_buf()
  wait_for('setup', name .. ': the costline client attaches', function()
    return #vim.lsp.get_clients({ bufnr = buf, name = 'costline' }) > 0
  end)
  return buf
end

--- The hint labels of a buffer by 0-based line (Neovim's own inlay hint state).
local function hints(buf)
  local by_line = {}
  for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
    local label = h.inlay_hint.label
    if type(label) == 'table' then
      label = table.concat(vim.tbl_map(function(p)
        return p.value
      end, label))
    end
    by_line[h.inlay_hint.position.line] = label
  end
  return by_line
end

--- The code lens titles shown as virtual text, by 0-based line.
local function lens_text(buf)
  local by_line = {}
  local ns = {}
  for name, id in pairs(vim.api.nvim_get_namespaces()) do
    if name:find('codelens', 1, true) then
      ns[id] = true
    end
  end
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true })) do
    if ns[m[4].ns_id] and m[4].virt_text then
      local text = table.concat(vim.tbl_map(function(chunk)
        return chunk[1]
      end, m[4].virt_text))
      by_line[m[2]] = (by_line[m[2]] or '') .. text
    end
  end
  return by_line
end

--- Seconds of the `≈ X unit/run` in a lens title.
local function lens_seconds(title)
  local value, unit = (title or ''):match('≈ ([%d%.]+) (%S+)/run')
  local scale = { s = 1, ms = 1e-3, ['µs'] = 1e-6, ns = 1e-9 }
  return value and scale[unit] and tonumber(value) * scale[unit]
end

--- Makes the window showing `buf` the current one.
local function focus(buf)
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    fail('setup', 'no window shows buffer ' .. buf)
  end
  vim.api.nvim_set_current_win(win)
end

local jacobi = open('jacobi_hpf.f90', false)
local redblack = open('redblack.f', true)
local triangular = open('triangular_update.f90', true)

---------------------------------------------------------------------------------------
-- Diagnostics: the imbalance of `u(0, :) = 1.0d0` (one processor owns row 0), on the
-- statement and on the directives behind it. Its n comes from the module in the other
-- file of the workspace.
wait_for('diagnostics', 'jacobi_hpf.f90: imbalance warnings on line 15 and on the ALIGN at line 10', function()
  local got = {}
  local statement, directive = false, false
  for _, d in ipairs(vim.diagnostic.get(jacobi)) do
    got[#got + 1] = ('%d: %s'):format(d.lnum + 1, d.message)
    if d.lnum == 14 and d.severity == vim.diagnostic.severity.WARN and d.source == 'costline' and d.code == 'imbalance'
      and d.message:find('unevenly spread over the 4 processors of `pr` (wd 1.73)', 1, true) then
      statement = true
    end
    if d.lnum == 9 and d.message:find('this mapping of `u` spreads the work of 1 assignment unevenly', 1, true) then
      directive = true
    end
  end
  return statement and directive, got
end)

---------------------------------------------------------------------------------------
-- Inlay hints: counts, wd, communication, times; in both source forms.
wait_for('inlay hints', 'jacobi_hpf.f90: ×258 · wd 1.73 on line 15 and the halo messages on line 20', function()
  local h = hints(jacobi)
  return h[14] == '×258 · wd 1.73' and (h[19] or ''):find('^×~6%.6e6 · wd 0%.02 · 600 msg · 1%.2 MiB$') ~= nil, h
end)
wait_for('inlay hints', 'redblack.f (fixed form): the red sweep ×6.5e6 with a predicted time, its assignment 2400 msg', function()
  local h = hints(redblack)
  return (h[13] or ''):find('^×6%.5e6 · wd 0%.01 · ≈ [%d%.]+ %S+$') ~= nil
    and (h[15] or ''):find('^×6%.5e6 · wd 0%.01 · 2400 msg · ') ~= nil,
    h
end)

---------------------------------------------------------------------------------------
-- Code lenses above each program: runs, work, wd, messages, time, machine.
wait_for('code lenses', 'jacobi_hpf.f90: the program lens on line 2', function()
  local l = lens_text(jacobi)
  return (l[1] or ''):find('^×1 run · 1%.3e7 assignments/run · wd 0%.02 · 1200 msg · 1%.2 MiB · ≈ [%d%.]+ %S+/run %(compute [^)]*%) on ib%-hdr$') ~= nil, l
end)
wait_for('code lenses', 'redblack.f: the program lens on line 3', function()
  local l = lens_text(redblack)
  return (l[2] or ''):find('^×1 run · 1%.3e7 assignments/run · wd 0%.01 · 4800 msg · ') ~= nil, l
end)

---------------------------------------------------------------------------------------
-- Hover (vim.lsp.buf.hover, in its floating window): wd and the communication's NT, TD.
local function hover_text(buf, line, col)
  focus(buf)
  vim.api.nvim_win_set_cursor(0, { line, col })
  local before = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    before[w] = true
  end
  vim.lsp.buf.hover()
  local text
  vim.wait(WAIT, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if not before[w] and vim.api.nvim_win_get_config(w).relative ~= '' then
        text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), '\n')
        return true
      end
    end
    return false
  end, 100)
  -- Close the float before the next request.
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      vim.api.nvim_win_close(w, true)
    end
  end
  return text
end

local function check_hover(buf, name, line, col, fragments)
  local text = hover_text(buf, line, col)
  if not text then
    fail('hover', ('%s line %d: no hover window within %d ms'):format(name, line, WAIT))
  end
  for _, f in ipairs(fragments) do
    if not text:find(f, 1, true) then
      fail('hover', ('%s line %d: %q is not in the hover:\n%s'):format(name, line, f, text))
    end
  end
  log(('ok [hover] %s line %d'):format(name, line))
end

check_hover(jacobi, 'jacobi_hpf.f90', 20, 9, {
  'assignment',
  'wd **0.02** over 4 processors',
  'NT **300** · TD **600 KiB**',
})
check_hover(redblack, 'redblack.f', 15, 16, {
  'wd **0.01** over 16 processors',
  'NT **600** · TD **149 KiB**',
})

---------------------------------------------------------------------------------------
-- A code action on the DISTRIBUTE of the triangular update: (BLOCK, *) leaves the long
-- rows to the last processors; (CYCLIC, *), applied through vim.lsp.buf.code_action,
-- deals them round-robin. The directive changes, the program's lens then shows the time
-- the action promised, and the imbalance is gone.
wait_for('code action', 'triangular_update.f90: the lens and the imbalance of line 12 as written', function()
  local title = lens_text(triangular)[2]
  local h = hints(triangular)
  return lens_seconds(title) ~= nil and (h[11] or ''):find('^×5%.0e5 · wd 0%.57') ~= nil, { title, h[11] }
end)
local written = lens_seconds(lens_text(triangular)[2])
focus(triangular)
vim.api.nvim_win_set_cursor(0, { 8, 20 })
local chosen
local offered = {}
vim.lsp.buf.code_action({
  apply = true,
  filter = function(action)
    offered[#offered + 1] = action.title
    if action.title:find('^DISTRIBUTE a%(CYCLIC, %*%) ONTO PR%(8%) — [%d%.]+× faster') then
      chosen = action
      return true
    end
    return false
  end,
})
wait_for('code action', 'triangular_update.f90: the (CYCLIC, *) alternative is offered', function()
  return chosen ~= nil, offered
end)
wait_for('code action', 'triangular_update.f90: line 8 now reads DISTRIBUTE (CYCLIC, *)', function()
  local line = vim.api.nvim_buf_get_lines(triangular, 7, 8, false)[1]
  return line == '!HPF$ DISTRIBUTE (CYCLIC, *) ONTO pr :: a', line
end)
local promised = chosen.data and chosen.data.predicted_time_s
if type(promised) ~= 'number' or not (promised < written) then
  fail('code action', ('the action promises %s s, the program as written takes %s s'):format(tostring(promised), tostring(written)))
end
wait_for('code action', ('triangular_update.f90: the lens shows the promised %.4g s'):format(promised), function()
  local title = lens_text(triangular)[2]
  local t = lens_seconds(title)
  return t ~= nil and math.abs(t - promised) <= 0.005 * promised, title
end)
wait_for('code action', 'triangular_update.f90: line 12 is balanced (wd 0.00, no imbalance warning)', function()
  local h = hints(triangular)
  local warned = false
  for _, d in ipairs(vim.diagnostic.get(triangular)) do
    warned = warned or (d.lnum == 11 and d.code == 'imbalance')
  end
  return (h[11] or ''):find('^×5%.0e5 · wd 0%.00') ~= nil and not warned, { h[11], warned }
end)

---------------------------------------------------------------------------------------
-- An edit refreshes the hints: N = 512 becomes N = 256 in the fixed-form PARAMETER.
focus(redblack)
local param = vim.api.nvim_buf_get_lines(redblack, 4, 5, false)[1]
local col = param:find('512', 1, true)
if not col then
  fail('setup', 'redblack.f line 5 has no 512: ' .. param)
end
vim.api.nvim_buf_set_text(redblack, 4, col - 1, 4, col + 2, { '256' })
wait_for('inlay hints after an edit', 'redblack.f: the red sweep runs ×1.6e6 with N = 256', function()
  local h = hints(redblack)
  return (h[13] or ''):find('^×1%.6e6 · wd 0%.01 · ≈ ') ~= nil, h
end)
wait_for('code lenses after an edit', 'redblack.f: the lens counts 3.2e6 assignments', function()
  local l = lens_text(redblack)
  return (l[2] or ''):find('^×1 run · 3%.2e6 assignments/run') ~= nil, l
end)

---------------------------------------------------------------------------------------
-- The plugin's commands.
vim.cmd('CostlineMachine ipsc860')
wait_for('commands', ':CostlineMachine ipsc860 reprices the lens', function()
  local title = lens_text(jacobi)[1] or ''
  return title:find('on ipsc860$') ~= nil, title
end)
vim.cmd('CostlineParams n=128')
wait_for('commands', ':CostlineParams n=128 rebinds the count of line 15', function()
  local h = hints(jacobi)
  return h[14] == '×130 · wd 1.73', h
end)
if require('costline').status() ~= 'costline ipsc860 · n=128' then
  fail('commands', 'status(): ' .. require('costline').status())
end
focus(jacobi)
local compared
require('costline').compare({ '--procs', '2..8' }, function(ok, svg, buf)
  compared = { ok = ok, svg = svg, text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') }
end)
wait_for('commands', ':CostlineCompare writes the table and the plot', function()
  return compared ~= nil, compared
end)
if not compared.ok or not compared.text:find('DISTRIBUTE (BLOCK, *) ONTO pr :: t', 1, true) then
  fail('commands', 'compare output:\n' .. compared.text)
end
local svg = table.concat(vim.fn.readfile(compared.svg), '\n')
if not svg:find('<svg', 1, true) or opened_plots[1] ~= compared.svg then
  fail('commands', 'the plot was not written or not opened: ' .. vim.inspect(opened_plots))
end
log('ok [commands] :CostlineCompare opened the plot')

-- :CostlineProfile on one program of the workspace: built, run, and counted with.
local profiled
require('costline').profile({ 'triangular_update.f90' }, function(ok, message)
  profiled = { ok = ok, message = message }
end)
wait_for('commands', ':CostlineProfile runs the program', function()
  return profiled ~= nil, profiled
end)
if not profiled.ok or not profiled.message:find('the profile is in', 1, true)
  or vim.fn.filereadable(vim.fs.joinpath(ws, '.costline/profile.json')) == 0 then
  fail('commands', ':CostlineProfile: ' .. vim.inspect(profiled))
end
log('ok [commands] :CostlineProfile wrote the profile')

---------------------------------------------------------------------------------------
-- The help file: its tags build (no duplicates) and `:help` finds it.
local docs = vim.fn.tempname() .. '-costline-rtp'
vim.fn.mkdir(docs .. '/doc', 'p')
vim.fn.writefile(vim.fn.readfile(vim.fs.joinpath(plugin, 'doc/costline.txt')), docs .. '/doc/costline.txt')
local built, err = pcall(vim.cmd.helptags, vim.fn.fnameescape(docs .. '/doc'))
if not built then
  fail('help', 'helptags: ' .. tostring(err))
end
vim.opt.rtp:append(docs)
local found, herr = pcall(vim.cmd.help, ':CostlineCompare')
if not found then
  fail('help', ':help :CostlineCompare: ' .. tostring(herr))
end
log('ok [help] doc/costline.txt')

log('all editor checks passed')
finish(0)
