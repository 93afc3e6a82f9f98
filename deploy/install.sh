#!/bin/sh
# Installs deploy/webui.service for this checkout: a system user `webui`, /etc/webui/bot_config.toml (kept if present), the unit
# with this checkout's path and this machine's node, checked by systemd-analyze verify, then enabled and started.
#   sudo deploy/install.sh                 install and start
#   deploy/install.sh --print-unit         print the unit as it would be installed (no root needed)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
UNIT=/etc/systemd/system/webui.service

fail() {
  echo "deploy/install.sh: $*" >&2
  exit 1
}

NODE=$(command -v node) || fail "node is not on PATH; install Node.js 20.19 or later"
NODE=$(readlink -f "$NODE")

# The shipped unit names /opt/webui and /usr/bin/node; this checkout and this node take their places.
render() {
  sed -e "s#/opt/webui#$ROOT#g" -e "s#^ExecStart=/usr/bin/node #ExecStart=$NODE #" "$ROOT/deploy/webui.service"
}

if [ "${1:-}" = "--print-unit" ]; then
  render
  exit 0
fi
[ "$#" -eq 0 ] || fail "unknown argument $1 (expected none, or --print-unit)"
[ "$(id -u)" -eq 0 ] || fail "run it as root: sudo deploy/install.sh"
# Checked before anything is changed: in a container without systemd, see "Reachable from other machines" in docs/operations.md.
[ -d /run/systemd/system ] || fail "systemd is not running on this machine (PID 1 is $(cat /proc/1/comm)); nothing was changed"

# ProtectHome=yes hides /home and /root from the service: neither the checkout nor node may live there (nvm does).
for path in "$ROOT" "$NODE"; do
  case "$path" in
    /home/* | /root/* | /run/user/*) fail "$path is under /home or /root, which the service cannot see (ProtectHome=yes); put the checkout in /opt/webui and use a system-wide node" ;;
  esac
done
"$NODE" -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1)' ||
  fail "$NODE is Node.js $("$NODE" --version); 20.19 or later is needed"
[ -f "$ROOT/apps/server/dist/main.js" ] || fail "$ROOT/apps/server/dist/main.js is missing: run npm run build in $ROOT first (as yourself, not root)"

if ! id -u webui > /dev/null 2>&1; then
  useradd --system --user-group --home-dir /var/lib/webui --no-create-home --shell /usr/sbin/nologin webui
  echo "created the system user webui"
fi

install -d -m 0750 -o root -g webui /etc/webui
if [ ! -e /etc/webui/bot_config.toml ]; then
  printf '[webui]\n# Every key: %s/docs/reference/configuration.md\n' "$ROOT" > /etc/webui/bot_config.toml
  chown root:webui /etc/webui/bot_config.toml
  chmod 0640 /etc/webui/bot_config.toml
  echo "wrote /etc/webui/bot_config.toml (defaults)"
fi

checked=$(mktemp -d)
trap 'rm -rf "$checked"' EXIT
render > "$checked/webui.service"
systemd-analyze verify "$checked/webui.service"
install -m 0644 "$checked/webui.service" "$UNIT"
systemctl daemon-reload
systemctl enable --now webui.service
echo "installed $UNIT and started it; the temporary token and login URL: journalctl -u webui -o cat | grep -A6 'WebUI management API'"
