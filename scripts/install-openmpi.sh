#!/usr/bin/env bash
# Installs Open MPI (mpirun, mpicc and headers) from the distribution's packages, for benchmarks/mpi/.
# Idempotent: does nothing when mpicc and mpirun are already on the PATH. Needs root (or sudo) and apt-get.
set -euo pipefail
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
  echo "install-openmpi: already installed: $(mpirun --version 2>/dev/null | head -n 1)"
  exit 0
fi
# shellcheck source=apt-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
apt_install install-openmpi "install Open MPI (mpicc, mpirun) with your package manager" openmpi-bin libopenmpi-dev
echo "install-openmpi: installed: $(mpirun --version 2>/dev/null | head -n 1)"
