#!/usr/bin/env bash
# Debian packages lab_widget needs: tmux (the runner), Node.js + npm (the agent CLIs and the
# widget's build), Chromium (the browser tests drive Debian's build, never a downloaded one),
# the OpenSSH server (the tests' second host, reached with the OpenSSH client), and
# bubblewrap (sandboxed runs).
#
# bubblewrap is unpacked into lab_widget's own folder ($LAB_WIDGET_BWRAP_DIR, default
# ~/.local/share/lab_widget/bubblewrap), not installed on PATH: Codex CLI prefers a bwrap on
# PATH to the one it ships, and with Debian 12's (0.8.0) every command it sandboxes fails
# ("bwrap: execvp codex-linux-sandbox: No such file or directory").
set -euo pipefail
need=()
command -v tmux >/dev/null || need+=(tmux)
command -v npm >/dev/null || need+=(nodejs npm)
command -v git >/dev/null || need+=(git)
command -v ssh >/dev/null || need+=(openssh-client)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
[ -x /usr/bin/chromium ] || need+=(chromium)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
bwrap_dir="${LAB_WIDGET_BWRAP_DIR:-$HOME/.local/share/lab_widget/bubblewrap}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ ${#need[@]} -gt 0 ]; then
    echo "installing Debian packages: ${need[*]}"
    $sudo apt-get update -qq
    # The tests start sshd themselves, with a configuration of their own: the package must
    # not start it as a service while it installs (policy-rc.d says no, unless one exists).
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod +x "$policy"
    fi
    status=0
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" || status=$?
    [ -z "$policy" ] || $sudo rm -f "$policy"
    [ "$status" -eq 0 ] || exit "$status"
fi
if [ ! -x "$bwrap_dir/usr/bin/bwrap" ]; then
    echo "unpacking Debian's bubblewrap into $bwrap_dir"
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && apt-get download -qq bubblewrap 2>/dev/null) || {
        $sudo apt-get update -qq
        (cd "$tmp" && apt-get download -qq bubblewrap)
    }
    mkdir -p "$bwrap_dir"
    dpkg-deb -x "$tmp"/bubblewrap_*.deb "$bwrap_dir"
fi
