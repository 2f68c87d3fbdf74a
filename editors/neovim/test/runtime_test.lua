-- The plugin as a user gets it without any setup: on the 'runtimepath' before startup
-- (its plugin/costline.lua loaded by Neovim), the server started by
-- `vim.lsp.enable('costline')` alone through its lsp/costline.lua, with `costline` from
-- $PATH; a `.hpf` file is Fortran; and `:checkhealth costline` reports the installation.
--
--   PATH=target/debug:$PATH nvim --headless --clean --cmd 'set rtp^=editors/neovim' \
--     -l editors/neovim/test/runtime_test.lua
--
-- Environment: COSTLINE_TEST_WAIT_MS (how long to wait for each check, default 60000).
-- Exit status 0 when every check passes; otherwise 1, with `FAIL [check]: ...` on stderr.

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
  vim.cmd('cquit ' .. code)
end

local function fail(check, msg)
  io.stderr:write(('FAIL [%s]: %s\n'):format(check, msg))
  finish(1)
end

local function wait_for(check, what, test)
  local seen
  local ok = vim.wait(WAIT, function()
    local good, done, saw = pcall(test)
    seen = good and saw or ('error: ' .. tostring(done))
    return good and done == true
  end, 100)
  if not ok then
    fail(check, ('%s: not within %d ms (last seen: %s)'):format(what, WAIT, vim.inspect(seen)))
  end
  log(('ok [%s] %s'):format(check, what))
end

-- Loaded by Neovim, not by this script.
if not vim.g.loaded_costline then
  fail('startup', "plugin/costline.lua was not loaded: run with --cmd 'set rtp^=editors/neovim'")
end
if package.loaded['costline'] == nil then
  fail('startup', 'the plugin did not load its Lua module')
end
if vim.fn.exists(':CostlineCompare') ~= 2 then
  fail('startup', 'the commands exist without setup()')
end
if vim.fn.executable('costline') ~= 1 then
  fail('startup', 'costline is not on $PATH')
end

-- A workspace with an .hpf file: the triangular update, whose (BLOCK, *) is imbalanced.
local ws = vim.fn.tempname() .. '-costline-runtime'
vim.fn.mkdir(ws, 'p')
vim.fn.writefile(vim.fn.readfile(vim.fs.joinpath(repo, 'tests/fixtures/free/triangular_update.f90'), 'b'), vim.fs.joinpath(ws, 'triangular.hpf'), 'b')
vim.fn.writefile({ 'askCompiler = false' }, vim.fs.joinpath(ws, 'costline.toml'))

vim.notify = function(msg, level)
  log(('notify(%s): %s'):format(tostring(level), msg))
end

-- The one line of configuration a user writes.
vim.lsp.enable('costline')

vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(ws, 'triangular.hpf')))
local buf = vim.api.nvim_get_current_buf()
if vim.bo[buf].filetype ~= 'fortran' then
  fail('filetype', '.hpf is ' .. vim.inspect(vim.bo[buf].filetype))
end
log('ok [filetype] triangular.hpf is fortran')

wait_for('enable', 'vim.lsp.enable alone starts costline for the buffer', function()
  local clients = vim.lsp.get_clients({ bufnr = buf, name = 'costline' })
  return #clients == 1 and clients[1].root_dir == ws, vim.tbl_map(function(c)
    return { c.name, c.root_dir }
  end, vim.lsp.get_clients())
end)
wait_for('enable', 'the imbalance warning of line 12 arrives', function()
  local got = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    got[#got + 1] = ('%d %s'):format(d.lnum + 1, d.code)
    if d.lnum == 11 and d.code == 'imbalance' then
      return true
    end
  end
  return false, got
end)
wait_for('enable', 'inlay hints are on (the runtime configuration attaches them)', function()
  local hints = vim.lsp.inlay_hint.get({ bufnr = buf })
  for _, h in ipairs(hints) do
    local label = h.inlay_hint.label
    label = type(label) == 'table' and label[1].value or label
    if h.inlay_hint.position.line == 11 and label:find('^×5%.0e5 · wd 0%.57') then
      return true
    end
  end
  return false, #hints
end)

-- :checkhealth costline, in its own buffer.
vim.cmd('checkhealth costline')
local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
log(report)
for _, expected in ipairs({
  'costline',
  'OK Neovim',
  'machine models (default ib-hdr)',
  'OK configuration: cmd costline serve',
  '.hpf, ... files are `fortran`',
  'server ',
}) do
  if not report:find(expected, 1, true) then
    fail('checkhealth', ('%q is not in the report'):format(expected))
  end
end
if report:find('ERROR', 1, true) then
  fail('checkhealth', 'the report has an error')
end
log('ok [checkhealth] :checkhealth costline reports the installation')

log('all runtime checks passed')
finish(0)
