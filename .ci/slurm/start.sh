#!/usr/bin/env bash
# Start a single-node Slurm cluster on this machine for `make test-cluster` (needs root).
#
#   bash .ci/slurm/start.sh        # installs slurm-wlm + munge if missing, starts munged, slurmctld, slurmd
#   bash .ci/slurm/stop.sh         # stops what start.sh started (by pid file)
#
# The configuration (slurm.conf.in beside this script) puts the node at 127.0.0.1, tracks processes through /proc
# (proctrack/linuxproc), binds no tasks (task/none) and keeps no accounting, so it runs in a container without
# systemd or cgroups. It is written to /etc/slurm/slurm.conf, the place every Slurm client looks (Snakemake's job
# step executor drops SLURM_* variables, SLURM_CONF included, before its nested srun, so a private path would not
# reach it); an existing slurm.conf that start.sh did not write is never overwritten. State, logs and pid files
# live under $FAIRSTATS_SLURM_DIR (default /var/tmp/fairstats-slurm). The munge key is Debian's
# /etc/munge/munge.key (created if missing).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
STATE="${FAIRSTATS_SLURM_DIR:-/var/tmp/fairstats-slurm}"
CONF=/etc/slurm/slurm.conf
MARKER="# Single-node Slurm for \`make test-cluster\`"

die() { echo "start.sh: $*" >&2; exit 1; }

if [[ $(id -u) -ne 0 ]]; then
    die "needs root (it installs packages and starts munged, slurmctld and slurmd); make test does not"
fi

# 1. Packages (Debian).
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    echo "start.sh: installing slurm-wlm and munge (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# 2. Munge: key, directories, daemon (as the munge user).
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [[ ! -s /etc/munge/munge.key ]]; then
    if command -v mungekey >/dev/null; then
        mungekey --create --keyfile=/etc/munge/munge.key
    else
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged
    touch "/run/munge/.started-by-fairstats"
    for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.2; done
    munge -n | unmunge >/dev/null || die "munged did not start (see /var/log/munge/munged.log)"
fi

# 3. slurm.conf from the template, with this machine's name, CPUs and memory.
HOST="$(hostname -s)"
# `slurmd -C` prints this node's real layout; leave 512 MB out of RealMemory so slurmd never finds less than
# configured (it would then drain the node).
NODE="$(slurmd -C | head -n 1 | awk '{
    for (i = 1; i <= NF; i++) if ($i ~ /^RealMemory=/) { split($i, kv, "="); $i = "RealMemory=" (kv[2] - 512) }
    print }')"
[[ "$NODE" == NodeName=* ]] || die "unexpected output of slurmd -C: $NODE"
NODE="${NODE/NodeName=* /NodeName=$HOST }"
mkdir -p "$STATE/ctld" "$STATE/d" /etc/slurm
if [[ -e "$CONF" ]] && ! grep -qF "$MARKER" "$CONF"; then
    die "$CONF exists and was not written by this script; refusing to overwrite a real cluster's configuration"
fi
sed -e "s|@HOST@|$HOST|g" -e "s|@STATE@|$STATE|g" -e "s|@NODE@|$NODE|" \
    -e "s|@CTLD_PORT@|${FAIRSTATS_SLURMCTLD_PORT:-6817}|" -e "s|@SLURMD_PORT@|${FAIRSTATS_SLURMD_PORT:-6818}|" \
    "$HERE/slurm.conf.in" > "$CONF"

# 4. Daemons (they fork into the background and write their pid files under $STATE).
running() { [[ -s "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
running "$STATE/slurmctld.pid" || slurmctld -f "$CONF"
running "$STATE/slurmd.pid" || slurmd -f "$CONF"

# 5. Wait until the node takes jobs.
for _ in $(seq 60); do
    state="$(sinfo -h -N -n "$HOST" -o '%t' 2>/dev/null || true)"
    case "$state" in
        idle|mix|alloc) break ;;
        down*|drain*|drng*) scontrol update NodeName="$HOST" State=RESUME 2>/dev/null || true ;;
    esac
    sleep 1
done
state="$(sinfo -h -N -n "$HOST" -o '%t' 2>/dev/null || true)"
case "$state" in
    idle|mix|alloc) ;;
    *) tail -n 20 "$STATE/slurmctld.log" "$STATE/slurmd.log" >&2 || true
       die "node $HOST is '$state', not idle, after 60 s (logs above)" ;;
esac
# A trivial job proves the whole path (munge auth, controller, node, srun) before Snakemake uses it.
out="$(srun -N1 -n1 -t 1 echo fairstats-slurm-ok)" || die "a test job through srun failed"
[[ "$out" == fairstats-slurm-ok ]] || die "test job printed '$out'"
echo "start.sh: Slurm is up (node $HOST, $CONF, logs in $STATE)"
sinfo
