#!/usr/bin/env bash
# Prints the path of a Python that can import islpy with barvinok (for the formula oracle,
# engine/db/tests/formula_barvinok.rs), installing it first when it is missing: islpy-barvinok
# from PyPI in a virtual environment at VENV.
# Usage: ensure-barvinok.sh VENV   (idempotent; COSTLINE_PYTHON picks the Python, default python3)
# With COSTLINE_OFFLINE=1 it installs nothing: exit 75 when barvinok is missing.
set -euo pipefail
venv=${1:?usage: ensure-barvinok.sh VENV}
python=${COSTLINE_PYTHON:-python3}
py="$venv/bin/python"

# Succeeds when the venv's islpy counts with barvinok.
has_barvinok() {
    "$py" -c 'import islpy as isl; isl.Set("[n] -> { [i] : 0 <= i < n }").card()' >/dev/null 2>&1
}

if ! has_barvinok && [ -n "${COSTLINE_OFFLINE:-}" ] && [ "${COSTLINE_OFFLINE}" != 0 ]; then
    echo "ensure-barvinok.sh: no islpy-barvinok in $venv and COSTLINE_OFFLINE is set: not installed" >&2
    exit 75
fi
if ! has_barvinok; then
    if [ ! -x "$venv/bin/pip" ]; then
        "$python" -m venv "$venv" >&2
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check islpy-barvinok >&2
fi
if ! has_barvinok; then
    echo "ensure-barvinok.sh: $py cannot count with islpy-barvinok" >&2
    exit 1
fi
echo "$py"
