--- Loaded at startup with the plugin: `.hpf` files are Fortran (free form, as HPF
--- compilers read them), and the commands exist before any `setup`.
if vim.g.loaded_costline then
  return
end
vim.g.loaded_costline = true

vim.filetype.add({ extension = { hpf = 'fortran' } })
require('costline').create_commands()
