#!/usr/bin/env bash
# Debian packages lab_widget needs: tmux (the runner), Node.js + npm (the agent CLIs and the
# widget's build), Chromium (the browser tests drive Debian's build, never a downloaded one).
set -euo pipefail
need=()
command -v tmux >/dev/null || need+=(tmux)
command -v npm >/dev/null || need+=(nodejs npm)
command -v git >/dev/null || need+=(git)
[ -x /usr/bin/chromium ] || need+=(chromium)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "installing Debian packages: ${need[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
