#!/usr/bin/env bash
# Stop the single-node Slurm that .ci/slurm/start.sh started: the daemons recorded in its pid files, and munged
# only if start.sh started it, and /etc/slurm/slurm.conf if start.sh wrote it. Safe to run twice.
set -uo pipefail
STATE="${FAIRSTATS_SLURM_DIR:-/var/tmp/fairstats-slurm}"

stop_pid_file() {
    local file="$1" pid
    [[ -s "$file" ]] || return 0
    pid="$(cat "$file")"
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    fi
    rm -f "$file"
}

CONF=/etc/slurm/slurm.conf
MARKER="# Single-node Slurm for \`make test-cluster\`"
ours=0
[[ -e "$CONF" ]] && grep -qF "$MARKER" "$CONF" && ours=1
if [[ $ours -eq 1 ]] && command -v scancel >/dev/null; then
    scancel --quiet --full --partition=local 2>/dev/null || true
fi
stop_pid_file "$STATE/slurmd.pid"
stop_pid_file "$STATE/slurmctld.pid"
if [[ -e /run/munge/.started-by-fairstats ]]; then
    stop_pid_file /run/munge/munged.pid
    rm -f /run/munge/.started-by-fairstats
fi
# Remove the configuration only if it is ours, so that no client is left pointing at a stopped controller.
[[ $ours -eq 1 ]] && rm -f "$CONF"
echo "stop.sh: stopped"
