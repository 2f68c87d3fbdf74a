--- `:checkhealth costline`: whether the plugin can work here — Neovim's version, the
--- `costline` binary and its machine models, the server's configuration (from
--- `lsp/costline.lua` or `setup`), the filetypes it serves, the settings it sends, and
--- the clients running.
local M = {}

local health = vim.health

--- The first line a command prints, or nil and why it could not run.
local function first_line(cmd)
  local ok, out = pcall(function()
    return vim.system(cmd, { text = true }):wait(10000)
  end)
  if not ok then
    return nil, tostring(out)
  end
  if out.code ~= 0 then
    return nil, ('exit %d: %s'):format(out.code, vim.trim(out.stderr or ''))
  end
  return vim.split(vim.trim(out.stdout or ''), '\n')[1]
end

local function check_neovim()
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()) .. ' (0.11 or later: vim.lsp.config and vim.lsp.enable)')
  else
    health.error('Neovim ' .. tostring(vim.version()) .. ' is too old', { 'costline needs Neovim 0.11 or later' })
  end
end

--- The binary the configuration starts, checked by running it.
local function check_binary(config)
  local cmd = config and config.cmd
  local program = type(cmd) == 'table' and cmd[1] or nil
  if not program then
    health.error('the costline server has no command', { 'set `path` or `cmd` in require("costline").setup()' })
    return nil
  end
  if vim.fn.executable(program) ~= 1 then
    health.error(('`%s` is not an executable (on $PATH or at that path)'):format(program), {
      'build it with `cargo build --release` in the costline repository',
      'put target/release/costline on $PATH, or set `path` in require("costline").setup()',
    })
    return nil
  end
  local version, why = first_line({ program, '--version' })
  if not version then
    health.error(('`%s --version` failed: %s'):format(program, why))
    return nil
  end
  health.ok(('%s: %s'):format(vim.fn.exepath(program) ~= '' and vim.fn.exepath(program) or program, version))
  return program
end

local function check_machines()
  local list = require('costline').machines_from_cli()
  if #list == 0 then
    health.error('`costline machines --format json` lists no valid machine model', {
      'run `costline machines` to see which file is invalid',
    })
    return
  end
  local default
  for _, m in ipairs(list) do
    if m.default then
      default = m.name
    end
  end
  health.ok(('%d machine models (default %s)'):format(#list, default or '?'))
end

local function check_config(config)
  if not config then
    health.error('no configuration named costline', {
      'put the plugin on the runtimepath (its lsp/costline.lua), or call require("costline").setup()',
    })
    return
  end
  health.ok('configuration: cmd ' .. table.concat(config.cmd or {}, ' ') .. '; filetypes ' .. table.concat(config.filetypes or {}, ', '))
  local enabled = vim.lsp.is_enabled and vim.lsp.is_enabled('costline')
  if enabled == false then
    health.warn('costline is not enabled', { "vim.lsp.enable('costline') or require('costline').setup()" })
  elseif enabled then
    health.ok('enabled')
  end
  for _, ft in ipairs(config.filetypes or {}) do
    if ft == 'fortran' then
      local hpf = vim.filetype.match({ filename = 'x.hpf' })
      if hpf == 'fortran' then
        health.ok('.f90, .f, .hpf, ... files are `fortran`')
      else
        health.warn(('.hpf files are `%s`, not fortran'):format(tostring(hpf)), {
          'the plugin/costline.lua of the plugin adds .hpf (is it loaded?)',
        })
      end
    end
  end
end

local function check_settings()
  local s = require('costline').settings()
  local problems = {}
  if type(s.imbalanceThreshold) ~= 'number' or s.imbalanceThreshold < 0 then
    problems[#problems + 1] = 'imbalanceThreshold must be a number >= 0'
  end
  if type(s.findingShare) ~= 'number' or s.findingShare < 0 or s.findingShare > 1 then
    problems[#problems + 1] = 'findingShare must be a number in [0, 1]'
  end
  if s.fixedLineLength and (s.fixedLineLength < 72 or s.fixedLineLength > 1024) then
    problems[#problems + 1] = 'fixedLineLength must be 72 to 1024'
  end
  for name, value in pairs(s.params or {}) do
    if type(value) ~= 'number' or value % 1 ~= 0 then
      problems[#problems + 1] = ('params.%s must be an integer'):format(name)
    end
  end
  for name, value in pairs(s.defines or {}) do
    if not name:match('^[%a_][%w_]*$') or value:match('%s') then
      problems[#problems + 1] = ('defines.%s: a macro name and a value of one word'):format(name)
    end
  end
  if #problems == 0 then
    health.ok('settings: ' .. vim.inspect(s, { newline = ' ', indent = '' }))
  else
    for _, p in ipairs(problems) do
      health.error('settings: ' .. p)
    end
  end
end

local function check_clients()
  local clients = require('costline').clients()
  if #clients == 0 then
    health.info('no costline server is running (open a Fortran file)')
    return
  end
  for _, c in ipairs(clients) do
    local buffers = vim.tbl_count(c.attached_buffers or {})
    health.ok(('server %d running for %s, %d buffer%s'):format(
      c.id,
      c.root_dir or c.config.root_dir or '(no root)',
      buffers,
      buffers == 1 and '' or 's'
    ))
  end
end

function M.check()
  health.start('costline')
  check_neovim()
  local config = vim.lsp.config.costline
  if check_binary(config) then
    check_machines()
  end
  check_config(config)
  check_settings()
  check_clients()
end

return M
