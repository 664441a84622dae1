#!/usr/bin/env bash
# Installs Open MPI (mpirun, mpicc and headers) from the distribution's packages, for benchmarks/mpi/.
# Idempotent: does nothing when mpicc and mpirun are already on the PATH. Needs root (or sudo) and apt-get.
set -euo pipefail
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
  echo "install-openmpi: already installed: $(mpirun --version 2>/dev/null | head -n 1)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-openmpi: apt-get not found; install Open MPI (mpicc, mpirun) with your package manager" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-openmpi: run as root (or install sudo)" >&2
    exit 1
  fi
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends openmpi-bin libopenmpi-dev
echo "install-openmpi: installed: $(mpirun --version 2>/dev/null | head -n 1)"
