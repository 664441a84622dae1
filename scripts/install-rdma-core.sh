#!/usr/bin/env bash
# Installs rdma-core's user-space RDMA stack from the distribution's packages, for MetaRoCE's NIC offload discovery
# (io.jccl.metaroce.verbs, `jccl devices`): libibverbs1 (libibverbs.so.1, which JCCL loads through FFM),
# ibverbs-providers (the user-space drivers: mlx5, rxe, ...; without one a device is not listed) and rdma-core (udev
# rules and services that load the kernel's RDMA modules at boot). With --dev also libibverbs-dev, whose
# <infiniband/verbs.h> IbvLayoutsTest checks the struct layouts against, and ibverbs-utils (ibv_devinfo).
# JCCL builds and its tests pass without any of these: discovery then reports "libibverbs: not installed".
# Idempotent: does nothing when what is asked for is there. Needs root (or sudo) and apt-get.
set -euo pipefail
packages=(libibverbs1 ibverbs-providers rdma-core)
if [ "${1:-}" = "--dev" ]; then
  packages+=(libibverbs-dev ibverbs-utils)
elif [ -n "${1:-}" ]; then
  echo "usage: scripts/install-rdma-core.sh [--dev]" >&2
  exit 2
fi
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-rdma-core: already installed: ${packages[*]}"
  exit 0
fi
# shellcheck source=apt-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
apt_install install-rdma-core "install rdma-core's libibverbs (libibverbs.so.1) and its providers with your package \
manager" "${missing[@]}"
echo "install-rdma-core: installed: ${missing[*]} ($(dpkg-query -W -f='${Version}' libibverbs1))"
