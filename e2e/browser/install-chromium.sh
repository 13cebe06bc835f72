#!/usr/bin/env bash
# Installs Debian's Chromium for the browser test when it is missing.
# Needs root (CI and the developers' machines run as root) and apt.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version
