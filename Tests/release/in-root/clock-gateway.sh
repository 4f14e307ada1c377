# Check 3, run in the arm64 root with both packages installed (bash; /cache is the run's
# folder): the installed clock with a simulated display and a control socket, and the
# installed gateway on a free loopback port driving it. Both stay until the host ends them
# by the process ids written to /cache/e2e/{clock,gateway}.pid. Logs: clock.log,
# gateway.log (its "listening on http://127.0.0.1:PORT" line tells the host the port).
set -u
PIN=$1
e2e=/cache/e2e
rm -rf "$e2e"; mkdir -p "$e2e/clock-state" "$e2e/gateway-state"; cd "$e2e"
cat > config.toml <<TOML
program = "countdown:5:00"
[remote]
pin = "$PIN"
TOML
roundclock run --simulate --config "$e2e/config.toml" --control "$e2e/control.sock" \
  --state-dir "$e2e/clock-state" --frames "$e2e/frames.jsonl" < /dev/null > clock.log 2>&1 &
echo $! > clock.pid
# the socket before the gateway, as systemd orders the units (emulated: a generous deadline)
for _ in $(seq 600); do [ -S control.sock ] || ! kill -0 "$(cat clock.pid)" 2>/dev/null && break; sleep 0.2; done
roundclock-gateway --config "$e2e/config.toml" --control "$e2e/control.sock" --listen 127.0.0.1:0 \
  --state-dir "$e2e/gateway-state" < /dev/null > gateway.log 2>&1 &
echo $! > gateway.pid
wait
