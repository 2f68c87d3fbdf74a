--- costline for Neovim 0.11+: the language server (`costline serve`) for Fortran buffers,
--- with inlay hints and code lenses on, and commands to pick the machine model, bind the
--- program's unknowns, compare distributions and run a profile. `lsp/costline.lua` gives Neovim the
--- server's configuration (`vim.lsp.enable('costline')` alone starts it), `setup()`
--- overrides it; `:checkhealth costline` checks the installation. See `:help costline`.
local M = {}

local NAME = 'costline'

--- The options of `setup`, defaults first. `machine`, `params`, `imbalanceThreshold`,
--- `findingShare`, `fixedLineLength`, `compiler`, `askCompiler`, `profileArguments`,
--- `profileRanks`, `hints` and `codeLens` are the server's settings (DESIGN.md section 7).
local defaults = {
  --- The server: `cmd` when given, else `{ path, 'serve' }`.
  cmd = nil,
  path = 'costline',
  filetypes = { 'fortran' },
  root_markers = { 'costline.toml', '.git' },
  --- A machine model: a name from `costline machines` or a path to a model's TOML.
  machine = nil,
  --- Bindings of the program's unknowns, e.g. `{ n = 1000, p = 16 }`.
  params = {},
  imbalanceThreshold = 0.25,
  --- The share of its procedure's time below which a statement earns no imbalance or
  --- communication warning (0: every one).
  findingShare = 0.02,
  --- The columns of fixed-form lines, 72 to 1024 (132 for compilers' extended lines);
  --- nil: 72, or `fixedLineLength` in costline.toml.
  fixedLineLength = nil,
  --- The compiler command and flags the program is built with (`'gfortran -O3'`);
  --- nil: `compiler` in costline.toml, else gfortran with the machine model's flags.
  compiler = nil,
  --- Run that compiler on each open file in the background and take which loops it
  --- vectorizes from its own report (false: costline's rules alone).
  askCompiler = true,
  --- Macros for the preprocessor's conditionals, `{ USE_MPI = true, NX = 512 }`: the
  --- branches cpp takes with them are analyzed.
  defines = {},
  --- The directories holding the project's sources (relative to the root); empty:
  --- the whole workspace.
  sourceDirs = {},
  --- Gitignore-style globs of paths whose Fortran files are not analyzed on their own.
  exclude = {},
  --- `:CostlineProfile` runs the program with these arguments...
  profileArguments = {},
  --- ...and, for an MPI program, on this many ranks (nil: a serial run).
  profileRanks = nil,
  hints = { enable = true },
  codeLens = { enable = true },
  --- Called with (client, bufnr) when the server attaches to a buffer.
  on_attach = nil,
  --- `:CostlineCompare` opens the plot with this function (default `vim.ui.open`).
  open = nil,
}

local options = vim.deepcopy(defaults)

local function binary()
  return (options.cmd and options.cmd[1]) or options.path
end

--- The `costline` settings the server receives (initialization options and
--- `workspace/configuration`): keys left unset are left out.
function M.settings()
  local s = {
    imbalanceThreshold = options.imbalanceThreshold,
    findingShare = options.findingShare,
    askCompiler = options.askCompiler ~= false,
    hints = { enable = options.hints.enable ~= false },
    codeLens = { enable = options.codeLens.enable ~= false },
  }
  if options.machine and options.machine ~= '' then
    s.machine = options.machine
  end
  if options.fixedLineLength then
    s.fixedLineLength = options.fixedLineLength
  end
  if options.compiler and options.compiler ~= '' then
    s.compiler = options.compiler
  end
  if next(options.params) then
    s.params = vim.deepcopy(options.params)
  end
  if next(options.defines) then
    s.defines = {}
    for name, value in pairs(options.defines) do
      if value == true then
        s.defines[name] = '1'
      elseif value ~= false then
        s.defines[name] = tostring(value)
      end
    end
  end
  if #options.sourceDirs > 0 then
    s.sourceDirs = vim.deepcopy(options.sourceDirs)
  end
  if #options.exclude > 0 then
    s.exclude = vim.deepcopy(options.exclude)
  end
  if #options.profileArguments > 0 then
    s.profileArguments = vim.deepcopy(options.profileArguments)
  end
  if options.profileRanks then
    s.profileRanks = options.profileRanks
  end
  return s
end

--- The running costline clients (of one buffer when `bufnr` is given).
function M.clients(bufnr)
  return vim.lsp.get_clients({ name = NAME, bufnr = bufnr })
end

--- One line for a statusline: the machine and the bindings.
function M.status()
  local parts = {}
  for _, k in ipairs(vim.tbl_keys(options.params)) do
    parts[#parts + 1] = k .. '=' .. tostring(options.params[k])
  end
  table.sort(parts)
  local s = 'costline ' .. (options.machine or 'default machine')
  if #parts > 0 then
    s = s .. ' · ' .. table.concat(parts, ' ')
  end
  return s
end

--- Sends the settings to the running servers (and to those started later).
local function push_settings()
  local settings = { costline = M.settings() }
  vim.lsp.config(NAME, { settings = settings, init_options = settings.costline })
  for _, client in ipairs(M.clients()) do
    client.settings = settings
    client:notify('workspace/didChangeConfiguration', { settings = settings })
  end
end

--- Calls `f(client, bufnr)` for each loaded buffer a costline client is attached to.
local function each_attached_buffer(client_id, f)
  local client = vim.lsp.get_client_by_id(client_id)
  if not client then
    return
  end
  for bufnr in pairs(client.attached_buffers) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      f(client, bufnr)
    end
  end
end

--- Refreshes the code lenses of the buffers a costline client is attached to.
local function refresh_lenses(client_id)
  if options.codeLens.enable == false then
    return
  end
  each_attached_buffer(client_id, function(_, bufnr)
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end)
end

--- Pulls the diagnostics of the buffers a costline client is attached to again (the
--- answers go to Neovim's own `textDocument/diagnostic` handler).
local function refresh_diagnostics(client_id)
  each_attached_buffer(client_id, function(client, bufnr)
    client:request('textDocument/diagnostic', {
      textDocument = vim.lsp.util.make_text_document_params(bufnr),
    }, nil, bufnr)
  end)
end

--- `NAME=VALUE` words (commas or spaces between) as a params table; `nil` and the
--- message for a bad word.
function M.parse_params(text)
  local params = {}
  for word in text:gmatch('[^%s,]+') do
    local name, value = word:match('^([%a_][%w_]*)=(-?%d+)$')
    if not name then
      return nil, ('`%s` is not NAME=INTEGER'):format(word)
    end
    params[name:lower()] = tonumber(value)
  end
  return params
end

--- Sets the bindings (a table, or text as `:CostlineParams` takes it).
function M.set_params(params)
  if type(params) == 'string' then
    local parsed, err = M.parse_params(params)
    if not parsed then
      vim.notify('costline: ' .. err, vim.log.levels.ERROR)
      return false
    end
    params = parsed
  end
  options.params = params
  push_settings()
  return true
end

--- Picks the machine model by name or path.
function M.set_machine(machine)
  options.machine = (machine ~= '' and machine) or nil
  push_settings()
end

--- The valid machine models `costline machines --format json` lists: { name, default,
--- source, description, provenance }; empty when it cannot be run or read.
function M.machines_from_cli()
  local ok, out = pcall(function()
    return vim.system({ binary(), 'machines', '--format', 'json' }, { text = true }):wait()
  end)
  if not ok then
    return {}
  end
  local decoded, listing = pcall(vim.json.decode, out.stdout or '')
  if not decoded or type(listing) ~= 'table' or listing.version ~= 1 then
    return {}
  end
  local list = {}
  for _, m in ipairs(listing.machines or {}) do
    if type(m) == 'table' and m.error == nil then
      list[#list + 1] = m
    end
  end
  return list
end

--- The machine models, from the server (`costline/machines`) when one runs, else from
--- `costline machines`; calls `done(list)` with { name, description, current }.
function M.machines(done)
  local client = M.clients()[1]
  if client then
    client:request('costline/machines', vim.empty_dict(), function(err, result)
      if err or type(result) ~= 'table' then
        done(M.machines_from_cli())
      else
        done(result)
      end
    end)
  else
    done(M.machines_from_cli())
  end
end

local function choose_machine()
  M.machines(function(list)
    if #list == 0 then
      vim.notify('costline: no machine models found (`costline machines`)', vim.log.levels.ERROR)
      return
    end
    vim.ui.select(list, {
      prompt = 'costline machine',
      format_item = function(m)
        return m.name .. ((m.current or m.default) and ' (current)' or '') .. ' — ' .. (m.description or '')
      end,
    }, function(choice)
      if choice then
        M.set_machine(choice.name)
      end
    end)
  end)
end

--- The argument of the server's `costline.compare` for the buffer `bufnr` and the words
--- of `:CostlineCompare` (`--param n=16..1024`, `--procs 4..64`, `--top 2`); nil and a
--- message for a word it does not take.
function M.compare_argument(bufnr, args)
  local argument = { uri = vim.uri_from_bufnr(bufnr), params = {} }
  local i = 1
  while i <= #args do
    local flag, value = args[i], args[i + 1]
    if value == nil then
      return nil, ('%s needs a value'):format(flag)
    elseif flag == '--param' then
      argument.params[#argument.params + 1] = value
    elseif flag == '--procs' then
      argument.procs = value
    elseif flag == '--top' and tonumber(value) then
      argument.top = tonumber(value)
    else
      return nil, ('`%s %s`: :CostlineCompare takes --param NAME=LO..HI, --procs LO..HI and --top N'):format(flag, value)
    end
    i = i + 2
  end
  return argument
end

--- `:CostlineCompare [ARGS]`: the server compares the current buffer's distributions (as
--- edited, with the workspace files that define the modules it uses) under the
--- machine and bindings in effect; the table opens in a scratch window, the plot with
--- `open`. Calls `done(ok, svg, buf)`.
function M.compare(args, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.clients(bufnr)[1]
  if not client then
    vim.notify('costline: no costline server is attached to this buffer', vim.log.levels.ERROR)
    return
  end
  local argument, err = M.compare_argument(bufnr, args or {})
  if not argument then
    vim.notify('costline: ' .. err, vim.log.levels.ERROR)
    return
  end
  local name = vim.fs.basename(vim.api.nvim_buf_get_name(bufnr))
  client:request('workspace/executeCommand', { command = 'costline.compare', arguments = { argument } }, function(e, result)
    vim.schedule(function()
      local ok = e == nil and type(result) == 'table' and type(result.text) == 'string'
      local text
      if e then
        text = 'costline compare failed: ' .. (e.message or vim.inspect(e))
      elseif ok then
        text = result.text
      else
        text = 'no DISTRIBUTE directive with formats: nothing to compare'
      end
      local buf = vim.api.nvim_create_buf(false, true)
      vim.bo[buf].bufhidden = 'wipe'
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { trimempty = true }))
      vim.api.nvim_buf_set_name(buf, 'costline compare ' .. name .. ' #' .. buf)
      vim.cmd('botright split')
      vim.api.nvim_win_set_buf(0, buf)
      local svg
      if ok then
        svg = vim.fn.tempname() .. '-costline-compare.svg'
        vim.fn.writefile(vim.split(result.svg, '\n'), svg)
        local open = options.open or vim.ui.open
        open(svg)
      elseif e then
        vim.notify(text, vim.log.levels.ERROR)
      end
      if done then
        done(ok, svg, buf)
      end
    end)
  end, bufnr)
end

--- `:CostlineProfile [FILES]`: the server builds the workspace's program (or the files
--- given, relative to the root) with counters, runs it once (with `profileArguments`, on
--- `profileRanks` MPI ranks when set), writes the profile (`profile` in costline.toml,
--- else `.costline/profile.json`) and counts with it; it says how it went
--- (`window/showMessage`, the compiler's or the program's message when it failed).
--- Calls `done(ok, message)`.
function M.profile(files, done)
  local client = M.clients(vim.api.nvim_get_current_buf())[1] or M.clients()[1]
  if not client then
    vim.notify('costline: no costline server is running', vim.log.levels.ERROR)
    return
  end
  vim.notify('costline: running the profile...', vim.log.levels.INFO)
  local arguments = {}
  if files and #files > 0 then
    arguments = { { files = files } }
  end
  client:request('workspace/executeCommand', { command = 'costline.runProfile', arguments = arguments }, function(e, result)
    vim.schedule(function()
      local ok = e == nil and type(result) == 'table' and result.ok == true
      local message
      if e then
        message = 'costline profile failed: ' .. (e.message or vim.inspect(e))
        vim.notify(message, vim.log.levels.ERROR)
      else
        message = type(result) == 'table' and result.message or ''
      end
      if done then
        done(ok, message)
      end
    end)
  end)
end

--- Creates the user commands (plugin/costline.lua at startup, and `setup`).
function M.create_commands()
  vim.api.nvim_create_user_command('CostlineMachine', function(c)
    if c.args == '' then
      choose_machine()
    else
      M.set_machine(c.args)
    end
  end, {
    nargs = '?',
    desc = 'costline: pick the machine model',
    complete = function(lead)
      local names = {}
      for _, m in ipairs(M.machines_from_cli()) do
        if m.name:find(lead, 1, true) == 1 then
          names[#names + 1] = m.name
        end
      end
      return names
    end,
  })
  vim.api.nvim_create_user_command('CostlineParams', function(c)
    if c.args ~= '' then
      M.set_params(c.args)
      return
    end
    local current = {}
    for k, v in pairs(options.params) do
      current[#current + 1] = k .. '=' .. tostring(v)
    end
    table.sort(current)
    vim.ui.input({ prompt = 'costline params (n=1000 p=16): ', default = table.concat(current, ' ') }, function(text)
      if text then
        M.set_params(text)
      end
    end)
  end, { nargs = '*', desc = 'costline: bind the program unknowns (NAME=VALUE ...)' })
  vim.api.nvim_create_user_command('CostlineCompare', function(c)
    M.compare(c.fargs)
  end, { nargs = '*', desc = 'costline: compare the distributions (--param N=LO..HI --procs LO..HI)' })
  vim.api.nvim_create_user_command('CostlineProfile', function(c)
    M.profile(c.fargs)
  end, {
    nargs = '*',
    complete = 'file',
    desc = "costline: run the workspace's program (or FILES) once and count with what it measured",
  })
end

--- What the server asks for and the client does not do by itself: code lenses shown
--- and refreshed as the buffer changes, inlay hints on (per `hints` and `codeLens`).
local function attach(client, bufnr)
  if vim.b[bufnr].costline_attached then
    return
  end
  vim.b[bufnr].costline_attached = true
  local group = vim.api.nvim_create_augroup('costline.buffer.' .. bufnr, { clear = true })
  if options.hints.enable ~= false then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
    -- Neovim refreshes the hints of shown buffers only: a buffer shown again asks anew.
    vim.api.nvim_create_autocmd('BufWinEnter', {
      group = group,
      buffer = bufnr,
      callback = function(a)
        if #M.clients(a.buf) > 0 and vim.lsp.inlay_hint.is_enabled({ bufnr = a.buf }) then
          vim.lsp.inlay_hint.enable(false, { bufnr = a.buf })
          vim.lsp.inlay_hint.enable(true, { bufnr = a.buf })
        end
      end,
    })
  end
  if options.codeLens.enable ~= false then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
      group = group,
      buffer = bufnr,
      callback = function(a)
        if #M.clients(a.buf) > 0 then
          vim.lsp.codelens.refresh({ bufnr = a.buf })
        end
      end,
    })
  end
  if options.on_attach then
    options.on_attach(client, bufnr)
  end
end

--- The server's configuration for `vim.lsp.config` under the options in force (the
--- defaults until `setup`): what `lsp/costline.lua` gives Neovim.
function M.config()
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  -- The server asks for lens and diagnostic refreshes when results change without an
  -- edit (settings, the workspace's other files); Neovim 0.11 handles neither, the
  -- handlers below do.
  capabilities.workspace.codeLens = { refreshSupport = true }
  capabilities.workspace.diagnostics = { refreshSupport = true }
  local settings = { costline = M.settings() }
  return {
    cmd = options.cmd or { options.path, 'serve' },
    filetypes = options.filetypes,
    root_markers = options.root_markers,
    capabilities = capabilities,
    init_options = settings.costline,
    settings = settings,
    on_attach = attach,
    handlers = {
      ['workspace/codeLens/refresh'] = function(_, _, ctx)
        refresh_lenses(ctx.client_id)
        return vim.NIL
      end,
      ['workspace/diagnostic/refresh'] = function(_, _, ctx)
        refresh_diagnostics(ctx.client_id)
        return vim.NIL
      end,
    },
  }
end

--- Starts costline for Fortran buffers. `opts`: see `defaults` above and `:help costline`.
function M.setup(opts)
  options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  for _, key in ipairs({ 'params', 'defines', 'sourceDirs', 'exclude', 'profileArguments' }) do
    if opts and opts[key] then
      options[key] = vim.deepcopy(opts[key]) -- replaced, not merged
    end
  end
  vim.lsp.config(NAME, M.config())
  vim.lsp.enable(NAME)
  M.create_commands()
end

return M
