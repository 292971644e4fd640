#!/usr/bin/env bash
# Every figure of the targets table in benchmarks/README.md, one script after the other (about
# 15 minutes on the 2-core machine; run it with nothing else running).
#
#   bash benchmarks/run_all.sh > figures.log
#
# LOCAL_VENV: a venv with only `pip install -e '.[local]'` (the README's first command), for the
# cold start of what users install; skipped when unset.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
echo "== $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)"
for pass in 1 2; do
  echo "== tool_call_accuracy.py --lengths 1 10 --seconds 1 (run $pass)"
  $py benchmarks/tool_call_accuracy.py --lengths 1 10 --seconds 1
done
echo "== tool_call_accuracy.py --lengths 10 --seconds 1 --wrong-every 0"
$py benchmarks/tool_call_accuracy.py --lengths 10 --seconds 1 --wrong-every 0
echo "== startup.py --repeat 5 (.venv)"
$py benchmarks/startup.py --repeat 5
if [ -n "${LOCAL_VENV:-}" ]; then
  echo "== startup.py --repeat 5 ($LOCAL_VENV)"
  "$LOCAL_VENV/bin/python" benchmarks/startup.py --repeat 5
fi
for metric in goal topics; do
  for n in 50 200; do
    echo "== fanout.py --metric $metric --n $n --repeat 3"
    $py benchmarks/fanout.py --metric "$metric" --n "$n" --repeat 3
  done
done
echo "== fanout.py --metric goal --n 50 --cold --repeat 1, each transport in a fresh process"
for transport in direct langchain; do
  $py benchmarks/fanout.py --transports "$transport" --no-floor --cold --repeat 1
done
echo "== transport_calls.py"
$py benchmarks/transport_calls.py
for n in 2000 10000; do
  for spool in 1000 never; do
    echo "== dataset_run.py --n $n --latency-ms 50 --spool-after $spool"
    $py benchmarks/dataset_run.py --n "$n" --latency-ms 50 --spool-after "$spool"
  done
done
echo "== batch_rounds.py (N=1,000 x 2 judges through batches)"
$py benchmarks/batch_rounds.py
echo "== dataset_run.py (N=10,000, 4 judges, 200 ms: the issue's run)"
$py benchmarks/dataset_run.py
echo "== done $(date -u +%FT%TZ)"
