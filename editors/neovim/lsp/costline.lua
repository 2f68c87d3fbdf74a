--- The costline language server for Neovim 0.11+'s `vim.lsp.config()`: with this
--- plugin on the 'runtimepath', `vim.lsp.enable('costline')` alone starts `costline
--- serve` (from $PATH) for Fortran buffers, with the default settings, inlay hints and
--- code lenses. `require('costline').setup({...})` (or `vim.lsp.config('costline',
--- {...})`) overrides any of it. See `:help costline-enable`.
return require('costline').config()
