# Sourced by the install scripts (install-openmpi.sh, install-rdma-core.sh):
#   apt_install NAME HINT PACKAGE...
# installs the packages with apt-get (through sudo when not root) and returns; exits 1, with a message naming NAME,
# when apt-get is missing (HINT says what to install instead) or neither root nor sudo is there.
apt_install() {
  local name="$1" hint="$2" sudo=""
  shift 2
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$name: apt-get not found; $hint" >&2
    exit 1
  fi
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "$name: run as root (or install sudo)" >&2
      exit 1
    fi
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "$@"
}
