#!/usr/bin/env bash
# An ssh server on this machine, for trying runners started by ssh as they are on a real network:
# Debian's openssh-server (installed when missing, as root) on 127.0.0.1:PORT with host and user
# keys of its own, accepting only that key for root.
#
#   scripts/ssh-local.sh start [DIR] [PORT]   starts sshd (keys and config under DIR, default
#                                             /tmp/loopscope-ssh; port 2222) and prints the ssh
#                                             command that reaches it
#   scripts/ssh-local.sh stop  [DIR]
set -euo pipefail

action="${1:-start}"
dir="${2:-/tmp/loopscope-ssh}"
port="${3:-2222}"
say() { printf 'ssh-local: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 1
}

stop() {
  [ -f "$dir/sshd.pid" ] || return 0
  kill "$(cat "$dir/sshd.pid")" 2> /dev/null || true
  rm -f "$dir/sshd.pid"
}

case "$action" in
stop)
  stop
  exit 0
  ;;
start) ;;
*) die "unknown action '$action' (start or stop)" ;;
esac

[ "$(id -u)" -eq 0 ] || die "sshd runs as root here: run this as root"
if ! command -v sshd > /dev/null || ! command -v ssh > /dev/null; then
  say "installing openssh-server and openssh-client"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server openssh-client > /dev/null
fi
stop
mkdir -p "$dir" /run/sshd
chmod 700 "$dir"
[ -f "$dir/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
[ -f "$dir/user_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$dir/user_key"
cp "$dir/user_key.pub" "$dir/authorized_keys"
cat > "$dir/sshd_config" << EOF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel ERROR
EOF
/usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log" || die "sshd did not start (see $dir/sshd.log)"
ssh_command="ssh -p $port -i $dir/user_key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes root@127.0.0.1"
for _ in $(seq 50); do
  $ssh_command true 2> /dev/null && break
  sleep 0.1
done
$ssh_command true || die "ssh to 127.0.0.1:$port does not work (see $dir/sshd.log)"
say "sshd on 127.0.0.1:$port"
echo "$ssh_command"
