#!/usr/bin/env bash
# Smoke test of the browser client: builds the bundle (`cargo xtask web`), serves target/web/
# on the loopback with Python's static server, loads the page in headless Chromium and checks
# the data hooks the app writes on its canvas (the board's place, the named controls, the
# status, no room, no connection) and, in a screenshot, that the board's wood is drawn where
# `data-board` says. Then opens a link with a bad room code and one to create a room with no
# relay behind the page: the page must go on drawing and writing its hooks (no panic).
#
# Runs on a fresh Debian machine as root: installs the packages it lacks with apt-get.
# Screenshots and DOM dumps are left in target/web-smoke/. Exits non-zero with a message on
# any failure, and never waits unbounded.
set -euo pipefail
cd "$(dirname "$0")/../../.."

out=target/web-smoke
mkdir -p "$out"

fail() {
    echo "web-smoke: FAIL: $*" >&2
    exit 1
}

step() { echo "web-smoke: $*"; }

packages=(chromium imagemagick python3 binaryen)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    step "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    timeout 600 apt-get update -qq
    timeout 900 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

step "building the bundle (cargo xtask web)"
timeout 3600 cargo xtask web
web=target/web

# ImageMagick 7 calls it `magick`, 6 (Debian 12) `convert`.
if command -v magick >/dev/null 2>&1; then im=(magick); else im=(convert); fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$web" >"$out/http.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
    sleep 0.1
done

# Headless Chromium with WebGL2 in software; virtual time lets the page load and draw. The
# window is 1100x800 unless a --window-size follows.
browse() {
    timeout 120 chromium --headless --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader \
        --window-size=1100,800 --virtual-time-budget=10000 "$@" 2>>"$out/chromium.log"
}

# The value of attribute $2 of the canvas in the DOM dump $1.
hook() {
    python3 - "$1" "$2" <<'EOF'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
canvas = re.search(r'<canvas[^>]*id="xq"[^>]*>', dom)
value = canvas and re.search(r'\s' + sys.argv[2] + r'="([^"]*)"', canvas.group(0))
print(html.unescape(value.group(1)) if value else "")
EOF
}

step "loading the page"
url="http://127.0.0.1:$port/"
browse --dump-dom "$url" >"$out/lobby.html"
# A DOM dump's page is smaller than its window, a screenshot's is the window: the screenshot
# gets a window of the dumped canvas's size, so that the page lays out the same.
size="$(hook "$out/lobby.html" width),$(hook "$out/lobby.html" height)"
browse --window-size="$size" --screenshot="$out/lobby.png" "$url" >/dev/null

board=$(hook "$out/lobby.html" data-board)
[ -n "$board" ] || fail "no data-board on the canvas (did the app start? see $out/lobby.html)"
read -r min_x min_y spacing bottom <<<"$board"
[ "$bottom" = red ] || fail "data-board says $bottom at the bottom, not red"
python3 -c "import sys; sys.exit(0 if float('$spacing') > 20 else 1)" ||
    fail "a board of spacing $spacing is too small to play on"
status=$(hook "$out/lobby.html" data-status)
[ "$status" = "Start a local game, play on a relay, or open a record" ] ||
    fail "data-status is '$status'"
[ "$(hook "$out/lobby.html" data-seat)" = none ] || fail "data-seat is not none"
[ "$(hook "$out/lobby.html" data-connected)" = false ] || fail "data-connected is not false"
[ -z "$(hook "$out/lobby.html" data-code)" ] || fail "data-code is not empty"
[ -z "$(hook "$out/lobby.html" data-moves)" ] || fail "data-moves is not empty"
controls=$(hook "$out/lobby.html" data-controls)
python3 - "$controls" <<'EOF' || fail "data-controls lacks the lobby's buttons: $controls"
import json, sys
controls = json.loads(sys.argv[1])
for name in ["New local game", "Flip board", "Resign", "Create room", "Quick match", "Join", "Watch"]:
    x, y, w, h = controls[name]
    assert w > 0 and h > 0 and 0 <= x < 1100 and 0 <= y < 800, (name, controls[name])
EOF

# The middle of the river (grid column 4, between rows 4 and 5) is bare wood.
x=$(python3 -c "print(round($min_x + (0.8 + 4) * $spacing))")
y=$(python3 -c "print(round($min_y + (0.8 + 4.5) * $spacing))")
pixel=$("${im[@]}" "$out/lobby.png" -format "%[fx:round(255*p{$x,$y}.r)] %[fx:round(255*p{$x,$y}.g)] %[fx:round(255*p{$x,$y}.b)]" info:)
read -r r g b <<<"$pixel"
# The wood is #E6BD78.
[ $((r - 0xE6)) -ge -12 ] && [ $((r - 0xE6)) -le 12 ] && [ $((g - 0xBD)) -ge -12 ] &&
    [ $((g - 0xBD)) -le 12 ] && [ $((b - 0x78)) -ge -12 ] && [ $((b - 0x78)) -le 12 ] ||
    fail "no wood at the river ($x,$y): $pixel (see $out/lobby.png)"

step "a bad link and a link with no relay behind the page"
for link in "join/NOTACODE" "create"; do
    name=${link%%/*}
    browse --dump-dom "$url#$link" >"$out/$name.html"
    [ -n "$(hook "$out/$name.html" data-board)" ] || fail "#$link: the page stopped drawing"
    [ "$(hook "$out/$name.html" data-seat)" = none ] || fail "#$link: seated without a relay"
done
browse --screenshot="$out/create.png" "$url#create" >/dev/null

step "ok (canvas $size, board at $min_x,$min_y spacing $spacing, wood $pixel; screenshots in $out/)"
