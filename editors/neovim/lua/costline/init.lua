--- costline for Neovim 0.11+: the language server (`costline serve`) for Fortran buffers,
--- with inlay hints and code lenses on, and commands to pick the machine model, bind the
--- program's unknowns and compare distributions. See `:help costline`.
local M = {}

local NAME = 'costline'

--- The options of `setup`, defaults first. `machine`, `params`, `imbalanceThreshold`,
--- `findingShare`, `fixedLineLength`, `compiler`, `askCompiler`, `hints` and `codeLens`
--- are the server's settings (DESIGN.md section 7).
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

--- The machine models `costline machines` lists: { name, default, path, description }.
function M.machines_from_cli()
  local out = vim.system({ binary(), 'machines' }, { text = true }):wait()
  local list = {}
  if out.code ~= 0 then
    return list
  end
  for line in (out.stdout or ''):gmatch('[^\n]+') do
    local name, rest = line:match('^(%S+)(.*)$')
    if name then
      local path = rest:match('%[(.*)%]%s*$')
      if path then
        list[#list + 1] = { name = name, default = rest:find('(default)', 1, true) ~= nil, path = path }
      elseif #list > 0 and not list[#list].description then
        list[#list].description = vim.trim(line)
      end
    elseif #list > 0 and not list[#list].description then
      list[#list].description = vim.trim(line)
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

--- The modules a Fortran text USEs (lower case).
local function used_modules(lines)
  local used = {}
  for _, line in ipairs(lines) do
    local name = line:lower():match('^%s*use%s*[,:]*%s*([%a_][%w_]*)')
    if name then
      used[name] = true
    end
  end
  return used
end

--- The files `costline compare` needs for the file `path`: itself and the Fortran
--- files beside it that define a module it uses.
function M.compare_files(path, lines)
  local files = { path }
  local used = used_modules(lines)
  if not next(used) then
    return files
  end
  local dir = vim.fs.dirname(path)
  for name, kind in vim.fs.dir(dir) do
    local file = vim.fs.joinpath(dir, name)
    if kind == 'file' and file ~= path and name:lower():match('%.f%w*$') then
      local ok, text = pcall(vim.fn.readfile, file, '', 2000)
      if ok then
        for _, line in ipairs(text) do
          local m = line:lower():match('^%s*module%s+([%a_][%w_]*)%s*$')
          if m and used[m] then
            files[#files + 1] = file
            break
          end
        end
      end
    end
  end
  return files
end

--- The command line of `costline compare` for `files`, with the extra arguments `args`
--- (e.g. `{ '--param', 'n=16..1024', '--procs', '4..64' }`) and the plot written to `svg`.
function M.compare_command(files, args, svg)
  local cmd = { binary(), 'compare' }
  vim.list_extend(cmd, files)
  local given = table.concat(args, ' '):lower()
  for name, value in pairs(options.params) do
    -- A binding the arguments give a range for is theirs.
    if not given:find('%f[%w_]' .. name .. '=') then
      vim.list_extend(cmd, { '--param', name .. '=' .. tostring(value) })
    end
  end
  if options.machine and not vim.tbl_contains(args, '--machine') then
    vim.list_extend(cmd, { '--machine', options.machine })
  end
  vim.list_extend(cmd, args)
  vim.list_extend(cmd, { '--svg', svg })
  return cmd
end

--- `:CostlineCompare [ARGS]`: compares the current file's distributions (as saved),
--- shows the table in a scratch window and opens the plot. Calls `done(ok, svg, buf)`.
function M.compare(args, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == '' then
    vim.notify('costline: the buffer has no file to compare', vim.log.levels.ERROR)
    return
  end
  if vim.bo[bufnr].modified then
    vim.notify('costline: comparing the saved file (the buffer has unsaved changes)', vim.log.levels.WARN)
  end
  local svg = vim.fn.tempname() .. '-costline-compare.svg'
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local cmd = M.compare_command(M.compare_files(path, lines), args or {}, svg)
  vim.system(cmd, { text = true, cwd = vim.fs.dirname(path) }, function(out)
    vim.schedule(function()
      local text = (out.stdout or '') .. (out.stderr or '')
      local buf = vim.api.nvim_create_buf(false, true)
      vim.bo[buf].bufhidden = 'wipe'
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { trimempty = true }))
      vim.api.nvim_buf_set_name(buf, 'costline compare ' .. vim.fs.basename(path) .. ' #' .. buf)
      vim.cmd('botright split')
      vim.api.nvim_win_set_buf(0, buf)
      local ok = out.code == 0
      if ok then
        local open = options.open or vim.ui.open
        open(svg)
      else
        vim.notify('costline compare failed (exit ' .. out.code .. ')', vim.log.levels.ERROR)
      end
      if done then
        done(ok, svg, buf)
      end
    end)
  end)
end

local function create_commands()
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
  end, { nargs = '*', desc = 'costline: compare the distributions (costline compare)' })
end

--- Starts costline for Fortran buffers. `opts`: see `defaults` above and `:help costline`.
function M.setup(opts)
  options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.params then
    options.params = vim.deepcopy(opts.params) -- replaced, not merged
  end
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  -- The server asks for lens and diagnostic refreshes when results change without an
  -- edit (settings, the workspace's other files); Neovim 0.11 handles neither, the
  -- handlers below do.
  capabilities.workspace.codeLens = { refreshSupport = true }
  capabilities.workspace.diagnostics = { refreshSupport = true }
  local settings = { costline = M.settings() }
  vim.lsp.config(NAME, {
    cmd = options.cmd or { options.path, 'serve' },
    filetypes = options.filetypes,
    root_markers = options.root_markers,
    capabilities = capabilities,
    init_options = settings.costline,
    settings = settings,
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
  })
  vim.lsp.enable(NAME)

  local group = vim.api.nvim_create_augroup('costline', { clear = true })
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if not client or client.name ~= NAME then
        return
      end
      if vim.b[ev.buf].costline_attached then
        return
      end
      vim.b[ev.buf].costline_attached = true
      if options.hints.enable ~= false then
        vim.lsp.inlay_hint.enable(true, { bufnr = ev.buf })
        -- Neovim refreshes the hints of shown buffers only: a buffer shown again asks anew.
        vim.api.nvim_create_autocmd('BufWinEnter', {
          group = group,
          buffer = ev.buf,
          callback = function(a)
            if #M.clients(a.buf) > 0 and vim.lsp.inlay_hint.is_enabled({ bufnr = a.buf }) then
              vim.lsp.inlay_hint.enable(false, { bufnr = a.buf })
              vim.lsp.inlay_hint.enable(true, { bufnr = a.buf })
            end
          end,
        })
      end
      if options.codeLens.enable ~= false then
        vim.lsp.codelens.refresh({ bufnr = ev.buf })
        vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
          group = group,
          buffer = ev.buf,
          callback = function(a)
            if #M.clients(a.buf) > 0 then
              vim.lsp.codelens.refresh({ bufnr = a.buf })
            end
          end,
        })
      end
      if options.on_attach then
        options.on_attach(client, ev.buf)
      end
    end,
  })
  create_commands()
end

return M
