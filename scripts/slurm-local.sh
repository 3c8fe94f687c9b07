#!/usr/bin/env bash
# A Slurm cluster of one node on this machine, for trying runners and campaigns as they run on a
# real cluster: Debian's munge and slurm-wlm (installed when missing, as root), munged, slurmctld
# and slurmd on this host, a small slurm.conf with one partition of every core here.
#
#   scripts/slurm-local.sh start   [DIR]   starts it (state, logs and slurm.conf under DIR,
#                                          default /tmp/loopscope-slurm) and waits for the node
#   scripts/slurm-local.sh stop    [DIR]   stops the daemons it started
#   scripts/slurm-local.sh env     [DIR]   prints the export line the Slurm commands need
#
# Then: `export SLURM_CONF=DIR/slurm.conf` (what `env` prints), and srun, sbatch, squeue and
# sinfo talk to it. Jobs run as root here; a real cluster's are the user's own.
set -euo pipefail

action="${1:-start}"
dir="${2:-/tmp/loopscope-slurm}"
conf="$dir/slurm.conf"
node="$(hostname -s 2> /dev/null || hostname)"

say() { printf 'slurm-local: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 1
}

install_missing() {
  local need=()
  command -v munged > /dev/null || need+=(munge)
  command -v slurmctld > /dev/null || need+=(slurmctld)
  command -v slurmd > /dev/null || need+=(slurmd)
  command -v srun > /dev/null || need+=(slurm-client)
  command -v pgrep > /dev/null || need+=(procps)
  [ "${#need[@]}" -eq 0 ] && return
  [ "$(id -u)" -eq 0 ] || die "installing ${need[*]} needs root (apt-get)"
  say "installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" > /dev/null
}

stop() {
  local f pid
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
    [ -f "$f" ] || continue
    pid="$(cat "$f")"
    kill "$pid" 2> /dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null || true
    rm -f "$f"
  done
}

case "$action" in
env)
  echo "export SLURM_CONF=$conf"
  exit 0
  ;;
stop)
  stop
  exit 0
  ;;
start) ;;
*) die "unknown action '$action' (start, stop or env)" ;;
esac

[ "$(id -u)" -eq 0 ] || die "the daemons run as root here: run this as root"
install_missing
stop
# slurmd reads the cgroup file system at start, even with no cgroup plugin configured (a root
# made with debootstrap needs the machine's /sys bound with its submounts: mount --rbind).
mountpoint -q /sys/fs/cgroup 2> /dev/null ||
  die "no cgroup file system on /sys/fs/cgroup, which slurmd reads at start (in a chroot: bind /sys with mount --rbind)"
# slurmd and munged look their own host name up; a machine whose name does not resolve (a fresh
# root, a container) gets it on the loopback address.
if ! getent hosts "$node" > /dev/null; then
  say "$node does not resolve: adding '127.0.1.1 $node' to /etc/hosts"
  echo "127.0.1.1 $node" >> /etc/hosts
fi
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 755 "$dir"

# munge: the key the Debian package made (or a new one), its socket in our folder.
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  if command -v mungekey > /dev/null; then mungekey --create --force > /dev/null; else
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2> /dev/null
  fi
fi
chown -R munge:munge /etc/munge "$dir/munge" 2> /dev/null || true
chmod 700 /etc/munge
chmod 600 /etc/munge/munge.key
mkdir -p /run/munge /var/lib/munge /var/log/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge
socket=/run/munge/munge.socket.2
# munged runs as its own user, as the package's service does.
runuser -u munge -- munged --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --socket="$socket" --force || die "munged did not start (see $dir/munge/munged.log)"
cp "$dir/munge/munged.pid" "$dir/munged.pid" 2> /dev/null || pgrep -n munged > "$dir/munged.pid"
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
munge -n -S "$socket" | unmunge -S "$socket" > /dev/null || die "munge cannot encode and decode a credential"

cpus="$(nproc)"
mem_mb="$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)"
cat > "$conf" << EOF
# A cluster of one node, made by scripts/slurm-local.sh.
ClusterName=loopscope
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MaxArraySize=100001
KillWait=5
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
export SLURM_CONF="$conf"
slurmctld -f "$conf" || {
  tail -n 20 "$dir/slurmctld.log" >&2 || true
  die "slurmctld did not start (see $dir/slurmctld.log)"
}
slurmd -f "$conf" -N "$node" || {
  tail -n 20 "$dir/slurmd.log" >&2 || true
  die "slurmd did not start (see $dir/slurmd.log)"
}
for _ in $(seq 100); do
  state="$(sinfo -h -N -o '%t' 2> /dev/null | head -n 1 || true)"
  [ "$state" = "idle" ] && break
  sleep 0.2
done
[ "$state" = "idle" ] || {
  tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
  die "the node $node is '$state', not idle"
}
say "a cluster of one node ($node, $cpus CPUs) is up; $(sinfo --version)"
echo "export SLURM_CONF=$conf"
