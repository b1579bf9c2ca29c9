#!/usr/bin/env bash
# Installs what the sweep tests and a one-machine trial of `narlab sweep`
# need from Debian, idempotently: SLURM (slurmctld, slurmd, sbatch, squeue,
# scancel), MUNGE (SLURM's authentication) and PostgreSQL (the backend store
# of a shared MLflow server). Only the packages that are missing are
# installed; nothing is configured or started here: the tests start their own
# single-node cluster and database server in temporary directories and stop
# them at the end.
#
# Needs root (or passwordless sudo) and apt only when something is missing;
# otherwise it does nothing and says so.
set -euo pipefail

if [ -t 2 ]; then log() { printf '\033[1m[setup-cluster]\033[0m %s\n' "$*" >&2; }; else log() { printf '[setup-cluster] %s\n' "$*" >&2; }; fi

# package -> a file it installs (dpkg status alone can be stale in images).
declare -A probe=(
  [slurm-wlm]=/usr/sbin/slurmctld
  [munge]=/usr/sbin/munged
  [postgresql]=/usr/lib/postgresql
)
missing=()
for pkg in slurm-wlm munge postgresql; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || [ ! -e "${probe[$pkg]}" ]; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  log "slurm-wlm, munge and postgresql are installed"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    log "missing ${missing[*]}; installing them needs root (run: sudo $0)"
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null; then
  log "missing ${missing[*]} and there is no apt-get; install them with the system's package manager"
  exit 1
fi
log "installing ${missing[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
log "installed ${missing[*]}"
