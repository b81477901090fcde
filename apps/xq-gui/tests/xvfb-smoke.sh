#!/usr/bin/env bash
# Smoke test of xq-gui in a real X server: starts it under Xvfb in local mode, moves Red's
# cannon h2-e2 with synthetic mouse clicks, screenshots the screen and checks pixels: the
# board's wood is drawn, a red piece stands on e2 and none on h2 any more. Clicks "Flip board"
# by name (the window writes its buttons' rectangles to XQ_GUI_HITS) and finds the cannon
# turned round. Resizes the window to a phone's 390x844 and checks that screenshot: the board
# across the top at full width, the buttons below it inside the width, and a named click that
# still works. Then checks that `--screenshot` writes a PNG of the window by itself, and that
# `--host` serves a relay from the window's process and keeps drawing the board while it
# waits for an opponent.
#
# Runs on a fresh Debian machine as root: installs the X packages it lacks with apt-get.
# Screenshots are left in target/xvfb-smoke/ for a look. Exits non-zero with a message on any
# failure, and never waits unbounded.
set -euo pipefail
cd "$(dirname "$0")/../../.."

out=target/xvfb-smoke
mkdir -p "$out"

fail() {
    echo "xvfb-smoke: FAIL: $*" >&2
    exit 1
}

step() { echo "xvfb-smoke: $*"; }

packages=(xvfb xauth x11-utils xdotool imagemagick libgl1 libglx-mesa0 libgl1-mesa-dri libegl1
    libegl-mesa0 libxkbcommon-x11-0 libxcursor1 libxrandr2 libxi6 libx11-xcb1)
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

step "building xq-gui (dev profile)"
timeout 1800 cargo build --locked -p xq-gui
gui=target/debug/xq-gui

# ImageMagick 7 calls it `magick`, 6 (Debian 12) `convert`.
if command -v magick >/dev/null 2>&1; then im=(magick); else im=(convert); fi

pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap cleanup EXIT

display=""
for n in $(seq 90 120); do
    if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then
        display=":$n"
        break
    fi
done
[ -n "$display" ] || fail "no free X display number"
step "starting Xvfb on $display"
Xvfb "$display" -screen 0 1280x1024x24 -nolisten tcp >"$out/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY="$display"
for _ in $(seq 50); do
    xdpyinfo >/dev/null 2>&1 && break
    sleep 0.2
done
xdpyinfo >/dev/null 2>&1 || fail "Xvfb did not start (see $out/xvfb.log)"

step "starting xq-gui --local at 0,0"
hits="$out/hits.tsv"
rm -f "$hits"
XQ_GUI_HITS="$hits" "$gui" --local --position 0,0 >"$out/gui.log" 2>&1 &
gui_pid=$!
pids+=("$gui_pid")
window=$(timeout 30 xdotool search --sync --onlyvisible --name '^xq$' | head -n 1) ||
    fail "no xq window within 30 s (see $out/gui.log)"
[ -n "$window" ] || fail "no xq window"
sleep 2 # let the first frames settle

# The colour of one pixel, as RRGGBB.
pixel() {
    "${im[@]}" "$1" -crop "1x1+$2+$3" -depth 8 txt:- | grep -o '#[0-9A-Fa-f]\{6\}' | head -n 1 | tr -d '#'
}

# The fraction (0..1) of pixels of a box of side `size` centred at x,y that are the red of Red's
# pieces.
red_fraction() {
    local x=$(($2 - $4 / 2)) y=$(($3 - $4 / 2))
    "${im[@]}" "$1" -crop "$4x$4+$x+$y" +repage \
        -fx 'r > 0.55 && g < 0.3 && b < 0.3 ? 1 : 0' -format '%[fx:mean]' info:
}

# Whether "RRGGBB" is within 24 per channel of the board's wood (E6BD78).
is_wood() {
    local r=$((16#${1:0:2})) g=$((16#${1:2:2})) b=$((16#${1:4:2}))
    [ $((r > 230 - 24 && r < 230 + 24 && g > 189 - 24 && g < 189 + 24 && b > 120 - 24 && b < 120 + 24)) = 1 ]
}

at_least() { awk -v v="$1" -v min="$2" 'BEGIN { exit !(v >= min) }'; }
at_most() { awk -v v="$1" -v max="$2" 'BEGIN { exit !(v <= max) }'; }

import -window root "$out/before.png"

# Finds the board in a screenshot: sets left, top, width and height to the bounding box of
# the wood-coloured pixels, and box to it written out.
find_board() {
    box=$("${im[@]}" "$1" -fuzz 8% -fill black +opaque '#E6BD78' -fill white -opaque '#E6BD78' \
        -format '%@' info:)
    [[ "$box" =~ ^([0-9]+)x([0-9]+)\+([0-9]+)\+([0-9]+)$ ]] || fail "no board found in $1 (bounding box '$box')"
    width=${BASH_REMATCH[1]} height=${BASH_REMATCH[2]} left=${BASH_REMATCH[3]} top=${BASH_REMATCH[4]}
    [ "$width" -gt 300 ] && [ "$height" -gt 300 ] || fail "the board is too small in $1: $box"
    # The board is 9.6 by 10.6 line spacings (8 by 9 intervals and a margin of 0.8 around them).
    local ratio
    ratio=$(awk -v w="$width" -v h="$height" 'BEGIN { print (w / h) }')
    awk -v r="$ratio" 'BEGIN { exit !(r > 0.86 && r < 0.95) }' || fail "the board's shape is off in $1: $box"
}
find_board "$out/before.png"
step "board at $box"

# Screen position of an ICCS square with Red at the bottom (file a..i left to right, rank 9 at
# top), or with Black at the bottom when the second argument is "flipped".
square() {
    local file=$(($(printf '%d' "'${1:0:1}") - 97)) rank=${1:1:1} flipped=0
    [ "${2:-}" = flipped ] && flipped=1
    awk -v l="$left" -v t="$top" -v w="$width" -v f="$file" -v r="$rank" -v flip="$flipped" \
        'BEGIN { s = w / 9.6; col = flip ? 8 - f : f; row = flip ? r : 9 - r
                 printf "%d %d %d\n", l + (0.8 + col) * s, t + (0.8 + row) * s, s }'
}

# The rectangle the window last drew the button `name` in, as "left top right bottom" (whole
# pixels), from the file the window writes; fails if there is no single one.
hit() {
    local rect
    rect=$(awk -F '\t' -v name="$1" '$1 == name { n++; r = sprintf("%d %d %d %d", $2, $3, $4, $5) }
        END { if (n == 1) print r }' "$hits" 2>/dev/null)
    [ -n "$rect" ] || fail "no single button \"$1\" in $hits"
    echo "$rect"
}

# Clicks the middle of the button `name`.
click_named() {
    local rect l t r b
    rect=$(hit "$1")
    read -r l t r b <<<"$rect"
    xdotool mousemove --sync $(((l + r) / 2)) $(((t + b) / 2)) click 1
}
read -r h2x h2y spacing < <(square h2)
read -r e2x e2y _ < <(square e2)
box_side=$((spacing * 6 / 10))

# A point between lines and pieces: the middle of the cell between a8, b8, a7 and b7.
wood=$(pixel "$out/before.png" $((left + spacing * 13 / 10)) $((top + spacing * 23 / 10)))
is_wood "$wood" || fail "no wood colour inside the board: #$wood"
before_h2=$(red_fraction "$out/before.png" "$h2x" "$h2y" "$box_side")
before_e2=$(red_fraction "$out/before.png" "$e2x" "$e2y" "$box_side")
at_least "$before_h2" 0.05 || fail "no red piece drawn on h2 at the start (red fraction $before_h2)"
at_most "$before_e2" 0.005 || fail "something red on the empty e2 at the start ($before_e2)"

step "clicking the cannon on h2 ($h2x,$h2y), then e2 ($e2x,$e2y)"
xdotool mousemove --sync "$h2x" "$h2y" click 1
sleep 0.5
xdotool mousemove --sync "$e2x" "$e2y" click 1
sleep 1.5
import -window root "$out/after.png"

after_h2=$(red_fraction "$out/after.png" "$h2x" "$h2y" "$box_side")
after_e2=$(red_fraction "$out/after.png" "$e2x" "$e2y" "$box_side")
at_least "$after_e2" 0.05 || fail "the cannon did not arrive on e2 (red fraction $after_e2; see $out/after.png)"
at_most "$after_h2" 0.005 || fail "the cannon is still on h2 (red fraction $after_h2; see $out/after.png)"
kill -0 "$gui_pid" 2>/dev/null || fail "xq-gui exited (see $out/gui.log)"

[ -s "$hits" ] || fail "the window wrote no buttons to XQ_GUI_HITS"
rect=$(hit "Flip board")
step "clicking \"Flip board\" by name at $rect"
click_named "Flip board"
sleep 1
import -window root "$out/flipped.png"
read -r e2fx e2fy _ < <(square e2 flipped)
flipped_e2=$(red_fraction "$out/flipped.png" "$e2fx" "$e2fy" "$box_side")
unflipped_e2=$(red_fraction "$out/flipped.png" "$e2x" "$e2y" "$box_side")
at_least "$flipped_e2" 0.05 || fail "no cannon on e2 of the turned board ($flipped_e2; see $out/flipped.png)"
at_most "$unflipped_e2" 0.005 || fail "the board did not turn ($unflipped_e2 where e2 was)"

step "resizing the window to a phone's 390x844"
xdotool windowsize --sync "$window" 390 844
# The buttons move under the board once a frame is drawn at the new size.
for _ in $(seq 50); do
    rect=$(hit Resign)
    read -r _ _ resign_right _ <<<"$rect"
    [ "$resign_right" -le 390 ] && break
    sleep 0.1
done
sleep 1
import -window "$window" "$out/phone.png"
size=$("${im[@]}" "$out/phone.png" -format '%wx%h' info:)
[ "$size" = "390x844" ] || fail "the phone-sized window is ${size}, not 390x844"
find_board "$out/phone.png"
step "phone board at $box"
[ "$left" -le 8 ] && [ "$top" -le 8 ] && [ $((left + width)) -ge 382 ] ||
    fail "the board does not span the phone's width: $box (see $out/phone.png)"
board_bottom=$((top + height))
[ "$board_bottom" -le 506 ] || fail "the board leaves too little room below it: $box"
# Every button lies inside the width and under the board.
while IFS=$'\t' read -r name l t r _; do
    awk -v l="$l" -v t="$t" -v r="$r" -v b="$board_bottom" 'BEGIN { exit !(l >= 0 && r <= 390 && t >= b) }' ||
        fail "\"$name\" at $l,$t-$r is off the phone's width or over the board (see $out/phone.png)"
done <"$hits"
# Below the board: the controls' panel, no wood.
below=$(pixel "$out/phone.png" 200 $((board_bottom + 12)))
! is_wood "$below" || fail "wood below the board on the phone: #$below"
rect=$(hit Resign)
read -r _ resign_top _ resign_bottom <<<"$rect"
[ "$resign_bottom" -le 800 ] || fail "\"Resign\" is not in view on the phone (top $resign_top)"
# A named click in the phone layout turns the board back: the cannon on e2, Red at the bottom.
click_named "Flip board"
sleep 1
import -window "$window" "$out/phone-unflipped.png"
read -r e2x e2y spacing < <(square e2)
box_side=$((spacing * 6 / 10))
phone_e2=$(red_fraction "$out/phone-unflipped.png" "$e2x" "$e2y" "$box_side")
at_least "$phone_e2" 0.05 || fail "no cannon on e2 of the phone's board ($phone_e2; see $out/phone-unflipped.png)"
kill -0 "$gui_pid" 2>/dev/null || fail "xq-gui exited (see $out/gui.log)"
kill "$gui_pid"
phone_box=$box
# Back to the desktop window's board, where the hosting window below draws it.
find_board "$out/before.png"
read -r _ _ spacing < <(square a0)

step "checking --screenshot"
rm -f "$out/self.png"
timeout 60 "$gui" --local --moves h2e2,h9g7 --screenshot "$out/self.png" >>"$out/gui.log" 2>&1 ||
    fail "xq-gui --screenshot failed (see $out/gui.log)"
size=$("${im[@]}" "$out/self.png" -format '%wx%h' info:) || fail "--screenshot wrote no PNG"
[ "$size" = "1100x800" ] || fail "--screenshot wrote a ${size} image, not the 1100x800 window"

step "starting xq-gui --host on free ports"
"$gui" --host --udp-port 0 --quic-port 0 --position 0,0 >"$out/host.log" 2>&1 &
host_pid=$!
pids+=("$host_pid")
timeout 30 xdotool search --sync --onlyvisible --name '^xq$' >/dev/null ||
    fail "no hosting window within 30 s (see $out/host.log)"
sleep 3 # the relay starts and the room is created
import -window root "$out/host.png"
wood=$(pixel "$out/host.png" $((left + spacing * 13 / 10)) $((top + spacing * 23 / 10)))
is_wood "$wood" || fail "no board while hosting: #$wood (see $out/host.png)"
kill -0 "$host_pid" 2>/dev/null || fail "xq-gui --host exited (see $out/host.log)"
! grep -qi "panicked" "$out/host.log" || fail "xq-gui --host panicked (see $out/host.log)"
kill "$host_pid"

echo "xvfb-smoke: ok (red on e2 $after_e2, on h2 $after_h2; turned round $flipped_e2; phone board at $phone_box, red on e2 $phone_e2; screenshots in $out/)"
