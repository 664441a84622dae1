# Sourced by the benchmark scripts (mpi/*.sh, injvm/*.sh) so that they read their command lines alike. Messages
# start with the script's name; a usage error exits 2.
#   parse_options LAST NAME=VARIABLE... -- ARG...   sets VARIABLE to the word after NAME for each option in ARG...;
#                                                   -h/--help prints the script's header comment (show_help LAST)
#   show_help LAST              prints lines 2 to LAST of the script without their '# ' and exits 0
#   usage_error MESSAGE         prints "SCRIPT: MESSAGE" on standard error and exits 2
#   need_positive OPTION VALUE  exits 2 unless VALUE is a positive whole number

# The script that sourced this file, as its messages name it.
script_name() { local s="${BASH_SOURCE[-1]}"; echo "${s##*/}"; }

show_help() { sed -n "2,${1}s/^# \{0,1\}//p" "${BASH_SOURCE[-1]}"; exit 0; }

usage_error() { echo "$(script_name): $1" >&2; exit 2; }

need_positive() { case "$2" in ''|*[!0-9]*|0) usage_error "$1 must be a positive number" ;; esac; }

parse_options() {
  local _last="$1" _var=""
  local -A _var_of=()
  shift
  while [ "$1" != -- ]; do _var_of["${1%%=*}"]="${1#*=}"; shift; done
  shift
  while [ $# -gt 0 ]; do
    case "$1" in -h|--help) show_help "$_last" ;; esac
    _var=""
    [ -z "$1" ] || _var="${_var_of[$1]:-}"
    [ -n "$_var" ] || usage_error "unknown option '$1' (try --help)"
    [ $# -ge 2 ] || usage_error "$1 needs a value"
    printf -v "$_var" '%s' "$2"
    shift 2
  done
}
