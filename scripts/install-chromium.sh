#!/usr/bin/env bash
# Installs headless Chromium for the web explorer's browser test
# (server/web_test.go, driven by chromedp): Debian's `chromium` package.
# Idempotent: does nothing when a chromium is already on PATH. Prints the
# browser's path.
set -euo pipefail

for name in chromium chromium-browser; do
	if path=$(command -v "$name"); then
		echo "$path"
		exit 0
	fi
done
if ! command -v apt-get >/dev/null; then
	echo "install-chromium: no apt-get; install Chromium yourself (or set OSSIE_CHROMIUM to its path)" >&2
	exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	sudo="sudo"
fi
$sudo apt-get update >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends chromium >&2
command -v chromium
